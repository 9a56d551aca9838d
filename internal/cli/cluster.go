package cli

import (
	"maps"
	"strconv"
	"strings"

	"github.com/rumbench/rumbench/internal/engine"
	"github.com/rumbench/rumbench/internal/input"
	"github.com/rumbench/rumbench/internal/results"
)

// clusterTargets checks --cluster and --read-from against the targets and makes one target per
// --cluster value (labelled engine:value when there are several).
func clusterTargets(f *runFlags, targets []results.Target) ([]results.Target, error) {
	switch f.readFrom {
	case "", engine.ReadPrimary, engine.ReadReplicas:
	default:
		return nil, usagef("--read-from %q: want %s or %s", input.Short(f.readFrom), engine.ReadPrimary, engine.ReadReplicas)
	}
	if len(f.clusters) == 0 {
		if f.readFrom == engine.ReadReplicas && !strings.Contains(f.dsn, ",") {
			return nil, usagef("--read-from replicas needs a cluster: --cluster replicas=N, or a --dsn list of servers")
		}
		return targets, nil
	}
	if f.dsn != "" {
		return nil, usagef("--cluster starts servers; --dsn names the user's (give a list for a cluster of theirs): not both")
	}
	if len(f.clusters) > 4 {
		return nil, usagef("--cluster: at most 4 (got %d)", len(f.clusters))
	}
	specs := make([]engine.Cluster, len(f.clusters))
	for i, v := range f.clusters {
		c, err := engine.ParseCluster(v)
		if err != nil {
			return nil, usagef("%v", err)
		}
		specs[i] = c
	}
	// Each engine runs on the --cluster values of its kind; a value no engine takes, or an engine
	// no value fits, is refused.
	var out []results.Target
	used := make([]bool, len(specs))
	for _, t := range targets {
		s, _ := engine.Lookup(t.Engine.Name)
		if s.ClusterKind == "" {
			return nil, usagef("--cluster: engine %s forms no cluster (engines that do: %s)", t.Engine.Name, clusterEngines())
		}
		n := 0
		for i, c := range specs {
			if s.ClusterKind != c.Kind() {
				continue
			}
			if f.readFrom == engine.ReadReplicas && c.Galera > 0 {
				return nil, usagef("--read-from replicas: every Galera node takes writes and reads (sessions spread over all of them)")
			}
			used[i] = true
			n++
			o := maps.Clone(t.Engine.Options)
			if o == nil {
				o = map[string]string{}
			}
			o["cluster"] = c.String()
			nt := t
			nt.Engine.Options = o
			if len(specs) > 1 {
				nt.Label = t.Label + ":" + clusterLabel(c)
			}
			out = append(out, nt)
		}
		if n == 0 {
			return nil, usagef("--cluster: engine %s's cluster is %s=N, and no --cluster value is one", t.Engine.Name, s.ClusterKind)
		}
	}
	for i, ok := range used {
		if !ok {
			return nil, usagef("--cluster %s: no engine of --engine forms a cluster of that kind (engines that do: %s)", input.Short(specs[i].String()), clusterEngines())
		}
	}
	return out, nil
}

// clusterLabel is a short name of a cluster for a target label: 2r-sync, 2r-async, galera3.
func clusterLabel(c engine.Cluster) string {
	if c.Galera > 0 {
		return "galera" + strconv.Itoa(c.Galera)
	}
	if c.Sync {
		return strconv.Itoa(c.Replicas) + "r-sync"
	}
	return strconv.Itoa(c.Replicas) + "r-async"
}

// clusterEngines lists the engines that form a cluster and its kind: "postgres (replicas=N), ...".
func clusterEngines() string {
	var out []string
	for _, name := range engine.Names() {
		if s, _ := engine.Lookup(name); s.ClusterKind != "" {
			out = append(out, name+" ("+s.ClusterKind+"=N)")
		}
	}
	return strings.Join(out, ", ")
}
