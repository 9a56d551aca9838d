// Package registry is a name → value map filled at init time, shared by the engine and workload
// registries.
package registry

import (
	"sort"
	"sync"
)

// Registry maps names to values. It is safe for concurrent use.
type Registry[T any] struct {
	kind string
	mu   sync.Mutex
	m    map[string]T
}

// New returns an empty registry of things of the given kind ("engine", "workload").
func New[T any](kind string) *Registry[T] { return &Registry[T]{kind: kind, m: map[string]T{}} }

// Register adds v under name. It panics when the name is taken: registration happens in init.
func (r *Registry[T]) Register(name string, v T) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, dup := r.m[name]; dup {
		panic(r.kind + ": duplicate registration of " + name)
	}
	r.m[name] = v
}

// Lookup returns the value registered under name.
func (r *Registry[T]) Lookup(name string) (T, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	v, ok := r.m[name]
	return v, ok
}

// Names returns the registered names, sorted.
func (r *Registry[T]) Names() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	names := make([]string, 0, len(r.m))
	for n := range r.m {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}
