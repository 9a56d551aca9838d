package engine

import "testing"

// TestBufferBytes: without a cap the default; under one, the engine's share less its
// cache split among the buffers, in whole MiB, between MinBufferBytes and the default.
func TestBufferBytes(t *testing.T) {
	const def = 64 << 20
	for _, c := range []struct {
		memory, cache int64
		n             int
		want          int64
	}{
		{0, 32 << 20, 2, def},                     // no cap
		{128 << 20, 32 << 20, 2, 48 << 20},        // the iobound profile: 256M cap, 32 MiB cache
		{8 << 30, 1 << 30, 2, def},                // a large cap keeps the default
		{128 << 20, 127 << 20, 2, MinBufferBytes}, // a cache that takes the share
		{128 << 20, 200 << 20, 2, MinBufferBytes}, // and more
		{100<<20 + 5, 0, 3, 33 << 20},             // whole MiB
	} {
		o := Options{MemoryBytes: c.memory, CacheBytes: c.cache}
		if got := o.BufferBytes(c.n, def); got != c.want {
			t.Errorf("memory %d, cache %d, %d buffers: %d, want %d", c.memory, c.cache, c.n, got, c.want)
		}
	}
}
