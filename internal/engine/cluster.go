package engine

import (
	"fmt"
	"strconv"
	"strings"
)

// Cluster is a replicated target (rumbench run --cluster; engine option "cluster"): PostgreSQL
// streaming replicas or a MariaDB Galera cluster that rumbench starts.
type Cluster struct {
	// Replicas is the number of PostgreSQL streaming replicas beside the primary (0: none).
	Replicas int
	// Sync makes every commit wait until one replica has flushed it (synchronous_standby_names
	// ANY 1); false: asynchronous replication.
	Sync bool
	// Galera is the number of Galera nodes (0: not Galera).
	Galera int
}

// MaxClusterNodes bounds a cluster's servers (the primary and its replicas, or Galera nodes).
const MaxClusterNodes = 9

// ClusterSyntax is the --cluster grammar, for messages and help.
const ClusterSyntax = "replicas=N[,sync=on|off] (PostgreSQL) or galera=N (mysql: MariaDB with galera-4), 9 servers at most"

// ParseCluster parses a --cluster value: "replicas=2", "replicas=2,sync=on", "galera=3".
func ParseCluster(v string) (Cluster, error) {
	var c Cluster
	bad := func(why string) (Cluster, error) {
		return Cluster{}, fmt.Errorf("--cluster %q: %s (valid: %s)", v, why, ClusterSyntax)
	}
	syncSet := false
	for _, part := range strings.Split(v, ",") {
		k, val, ok := strings.Cut(strings.TrimSpace(part), "=")
		if !ok {
			return bad(fmt.Sprintf("%q is not key=value", part))
		}
		switch k {
		case "replicas", "galera":
			n, err := strconv.Atoi(val)
			if err != nil || n < 1 {
				return bad(k + " takes a positive count")
			}
			if k == "replicas" {
				c.Replicas = n
			} else {
				c.Galera = n
			}
		case "sync":
			switch val {
			case "on", "true":
				c.Sync = true
			case "off", "false":
			default:
				return bad("sync is on or off")
			}
			syncSet = true
		default:
			return bad(fmt.Sprintf("unknown key %q", k))
		}
	}
	switch {
	case c.Replicas > 0 && c.Galera > 0:
		return bad("replicas and galera exclude each other")
	case c.Replicas == 0 && c.Galera == 0:
		return bad("say replicas=N or galera=N")
	case c.Galera > 0 && syncSet:
		return bad("Galera replication is synchronous: sync is PostgreSQL's")
	case c.Galera == 1:
		return bad("a Galera cluster has 2 nodes or more")
	case c.Replicas+1 > MaxClusterNodes || c.Galera > MaxClusterNodes:
		return bad("too many nodes")
	}
	return c, nil
}

// Kind is the cluster's kind as an engine's Spec.ClusterKind names it: "galera" or "replicas".
func (c Cluster) Kind() string {
	if c.Galera > 0 {
		return "galera"
	}
	return "replicas"
}

// Nodes names the cluster's servers as the engines name them (a fault's :NODE): primary and
// replica1..N, or node1..N.
func (c Cluster) Nodes() []string {
	if c.Galera > 0 {
		out := make([]string, c.Galera)
		for i := range out {
			out[i] = "node" + strconv.Itoa(i+1)
		}
		return out
	}
	out := []string{"primary"}
	for i := 1; i <= c.Replicas; i++ {
		out = append(out, "replica"+strconv.Itoa(i))
	}
	return out
}

// String is the cluster's canonical spelling, as ParseCluster reads it.
func (c Cluster) String() string {
	if c.Galera > 0 {
		return "galera=" + strconv.Itoa(c.Galera)
	}
	s := "off"
	if c.Sync {
		s = "on"
	}
	return fmt.Sprintf("replicas=%d,sync=%s", c.Replicas, s)
}

// Read-from choices (rumbench run --read-from; engine option "read_from").
const (
	// ReadPrimary sends every statement to the writers (the default).
	ReadPrimary = "primary"
	// ReadReplicas sends read-only statements outside a transaction to the replicas.
	ReadReplicas = "replicas"
)
