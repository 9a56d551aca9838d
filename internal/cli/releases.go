package cli

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/rumbench/rumbench/internal/engine"
	"github.com/rumbench/rumbench/internal/input"
)

// maxReleases bounds the server directories of one run.
const maxReleases = 32

// release is one --server-bin directory, with the label the user gave it ("" for none).
type release struct {
	label, dir string
}

// serverReleases parses --server-bin: each value a directory or LABEL=DIR, or a comma-separated
// list of them. A directory must exist; a label is a name (it names the target and its data
// directory).
func serverReleases(vals []string) ([]release, error) {
	var out []release
	for _, v := range vals {
		for _, item := range strings.Split(v, ",") {
			item = strings.TrimSpace(item)
			if item == "" {
				return nil, usagef("--server-bin %q: empty item in the comma-separated list", input.Short(v))
			}
			var r release
			r.dir = item
			if l, d, ok := strings.Cut(item, "="); ok {
				r.label, r.dir = l, d
				if err := input.CheckName(l); err != nil {
					return nil, usagef("--server-bin %q: label %q: %v", input.Short(item), input.Short(l), err)
				}
			}
			fi, err := os.Stat(r.dir)
			if err != nil || !fi.IsDir() {
				return nil, usagef("--server-bin %q: not a directory (want DIR or LABEL=DIR, a directory of the server's programs)", input.Short(r.dir))
			}
			if abs, err := filepath.Abs(r.dir); err == nil {
				r.dir = abs
			}
			out = append(out, r)
		}
	}
	if len(out) > maxReleases {
		return nil, usagef("--server-bin: %d directories: a run takes at most %d", len(out), maxReleases)
	}
	return out, nil
}

// releaseTargets labels the server directories of engine spec: none given is the discovered
// binaries under the engine's name; one without a label is the engine's name too (as before
// releases were compared); several are one target each, "<engine>-<version>" by the version
// the server program reports, or the label given (LABEL=DIR). Two directories of one version
// are refused: LABEL=DIR tells them apart.
func releaseTargets(ctx context.Context, spec engine.Spec, rels []release) ([]release, error) {
	if len(rels) == 0 {
		return []release{{}}, nil
	}
	if len(rels) == 1 && rels[0].label == "" {
		return rels, nil
	}
	out := make([]release, len(rels))
	seen := map[string]string{}
	for i, r := range rels {
		out[i] = r
		if r.label == "" {
			v, err := releaseOf(ctx, spec, r.dir)
			if ctx.Err() != nil {
				return nil, interruptedBefore{fmt.Sprintf("while --server-bin %s was asked its version", input.Short(r.dir))}
			}
			if err != nil {
				return nil, usagef("--server-bin %s: %v (name it LABEL=DIR to run it anyway)", input.Short(r.dir), err)
			}
			out[i].label = spec.Name + "-" + v
		}
		if d, ok := seen[out[i].label]; ok {
			return nil, usagef("--server-bin: %s and %s are both %s: name them with LABEL=DIR", d, r.dir, out[i].label)
		}
		seen[out[i].label] = r.dir
	}
	return out, nil
}

// releaseOf is the version of the server binaries in dir, checked to be a name. ctx bounds the
// program's --version, which the server package also bounds in time.
func releaseOf(ctx context.Context, spec engine.Spec, dir string) (string, error) {
	if spec.Release == nil {
		return "", fmt.Errorf("engine %s does not compare releases", spec.Name)
	}
	v, err := spec.Release(ctx, dir)
	if err != nil {
		return "", err
	}
	if err := input.CheckName(v); err != nil {
		return "", fmt.Errorf("version %q: %v", input.Short(v), err)
	}
	return v, nil
}
