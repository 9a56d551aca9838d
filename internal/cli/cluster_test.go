package cli

import (
	"context"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/rumbench/rumbench/internal/results"
	"github.com/rumbench/rumbench/internal/server"
)

// okStep returns the step called name, failing the test when there is none or it did not end
// ok.
func okStep(t *testing.T, steps []results.Step, name string) *results.Step {
	t.Helper()
	s := stepNamed(t, steps, name)
	if s.Status != results.StatusOK {
		t.Fatalf("%s: %s %s", name, s.Status, s.Error)
	}
	return s
}

// endpoint returns the step's endpoint called name.
func endpoint(t *testing.T, s *results.Step, name string) results.Endpoint {
	t.Helper()
	for _, e := range s.Endpoints {
		if e.Name == name {
			return e
		}
	}
	t.Fatalf("%s: no endpoint %s in %+v", s.Step, name, s.Endpoints)
	return results.Endpoint{}
}

// TestClusterPostgres runs sysbench on a primary with two synchronous streaming replicas, reads
// sent to the replicas, and fails over under update-index (kill-primary): the primary takes the
// writes until it is killed, a replica is promoted and takes them after, none of the
// acknowledged updates is lost, the replication and the endpoints are reported per step, and no
// server is left running.
func TestClusterPostgres(t *testing.T) {
	out, data, d := dirs(t)
	args := append([]string{"run", "--workload", "sysbench", "--engine", "postgres", "--cluster", "replicas=2,sync=on",
		"--read-from", "replicas", "--tests", "update-index,point-query", "--table-size", "2000", "--threads", "2",
		"--run-secs", "5", "--warmup-secs", "0", "--fault", "kill-primary@2s", "--check", "lost<=0", "--store", "none", "--quiet"}, d...)
	tr := run(t, nil, args...)
	if tr.code != 0 {
		t.Fatalf("exit %d\nstderr: %s\nstdout: %s", tr.code, tr.stderr, tr.stdout)
	}
	if !strings.Contains(tr.stdout, "== endpoints") || !strings.Contains(tr.stdout, "== replication") {
		t.Errorf("no endpoints or replication table in:\n%s", tr.stdout)
	}
	_, m, steps := readRun(t, out)
	if m.Targets[0].Engine.Options["cluster"] != "replicas=2,sync=on" || m.Targets[0].Engine.Options["read_from"] != "replicas" {
		t.Errorf("target options %v", m.Targets[0].Engine.Options)
	}
	up := okStep(t, steps, "update-index")
	if len(up.Faults) != 1 || up.Faults[0].Kind != "kill-primary" || up.Faults[0].Error != "" || up.Faults[0].ServerReadySecs <= 0 {
		t.Fatalf("faults %+v: want one kill-primary with its promotion's time", up.Faults)
	}
	if a := up.AckCheck; a == nil || !a.Checked || a.Lost != 0 || a.Acknowledged == 0 {
		t.Errorf("acknowledged writes %+v: want checked, none lost (sync=on)", a)
	}
	if len(up.Endpoints) != 3 {
		t.Fatalf("endpoints %+v: want the primary and two replicas", up.Endpoints)
	}
	old := endpoint(t, up, "primary")
	if old.Role != "down" || old.Stmts == 0 {
		t.Errorf("the old primary %+v: want its writes before the kill, down after", old)
	}
	promoted := 0
	for _, name := range []string{"replica1", "replica2"} {
		if e := endpoint(t, up, name); e.Role == "primary" {
			promoted++
			if e.Stmts == 0 || e.CPUPct <= 0 || e.RSSMB <= 0 {
				t.Errorf("the promoted %+v: want the writes after the failover and its process figures", e)
			}
		}
	}
	if promoted != 1 {
		t.Errorf("endpoints %+v: want one replica promoted", up.Endpoints)
	}
	if r := up.Replication; r == nil || r.Kind != "streaming" || r.Replicas != 1 {
		t.Errorf("replication %+v: want streaming, one standby left after the failover", r)
	}
	pq := okStep(t, steps, "point-query")
	if e := endpoint(t, pq, "primary"); e.Stmts != 0 {
		t.Errorf("the killed primary served %d statements in point-query", e.Stmts)
	}
	var reads int64
	for _, e := range pq.Endpoints {
		reads += e.Stmts
	}
	if reads == 0 || pq.Replication == nil {
		t.Errorf("point-query: %d statements, replication %+v", reads, pq.Replication)
	}
	assertNoServerProcess(t, data)
}

// TestClusterGalera runs sysbench update-index with four clients over a three-node Galera
// cluster and kills node2 under it: the clients spread over the nodes, node2's reconnect to
// the others, the node rejoins (its time is the fault's ready time), no acknowledged update is
// lost; then TPC-C on the same kind of cluster keeps its consistency conditions, its conflicts
// (certification failures) retried and counted.
func TestClusterGalera(t *testing.T) {
	out, data, d := dirs(t)
	args := append([]string{"run", "--workload", "sysbench", "--engine", "mysql", "--cluster", "galera=3",
		"--tests", "update-index", "--table-size", "2000", "--threads", "4", "--run-secs", "6", "--warmup-secs", "0",
		"--fault", "kill@1s:node2", "--check", "lost<=0", "--store", "none", "--quiet"}, d...)
	tr := run(t, nil, args...)
	if tr.code != 0 {
		t.Fatalf("exit %d\nstderr: %s\nstdout: %s", tr.code, tr.stderr, tr.stdout)
	}
	_, _, steps := readRun(t, out)
	up := okStep(t, steps, "update-index")
	if len(up.Faults) != 1 || up.Faults[0].Node != "node2" || up.Faults[0].Error != "" || up.Faults[0].ServerReadySecs <= 0 {
		t.Fatalf("faults %+v: want kill of node2 with its rejoin time", up.Faults)
	}
	if a := up.AckCheck; a == nil || !a.Checked || a.Lost != 0 {
		t.Errorf("acknowledged writes %+v: want checked, none lost", a)
	}
	for _, name := range []string{"node1", "node2", "node3"} {
		if e := endpoint(t, up, name); e.Stmts == 0 {
			t.Errorf("%+v: no statement", e)
		}
	}
	if r := up.Replication; r == nil || r.Kind != "galera" || r.Replicas != 3 {
		t.Errorf("replication %+v: want galera, three nodes at the end", r)
	}
	assertNoServerProcess(t, data)

	out2 := filepath.Join(t.TempDir(), "out")
	args = []string{"run", "--workload", "tpcc", "--engine", "mysql", "--cluster", "galera=3", "--terminals", "6",
		"--run-secs", "6", "--warmup-secs", "0", "--store", "none", "--quiet", "--out", out2, "--data-dir", filepath.Join(data, "tpcc")}
	tr = run(t, nil, args...)
	if tr.code != 0 || !strings.Contains(tr.stdout, "consistency conditions 1-4 hold") {
		t.Fatalf("tpcc: exit %d\nstderr: %s\nstdout: %s", tr.code, tr.stderr, tr.stdout)
	}
	_, _, steps = readRun(t, out2)
	if r := okStep(t, steps, "run").Replication; r == nil || r.Kind != "galera" {
		t.Errorf("tpcc replication %+v", r)
	}
	assertNoServerProcess(t, data)
}

// TestClusterDSNList gives a primary and a replica the user runs as a --dsn list with reads
// from the replica: the writes go to the first, the reads to the second, and the first's
// replication is read.
func TestClusterDSNList(t *testing.T) {
	out, data, d := dirs(t)
	ctx := context.Background()
	p, err := server.Start(ctx, server.Config{Kind: server.Postgres, Dir: filepath.Join(data, "p")})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Stop(ctx)
	r, err := server.Start(ctx, server.Config{Kind: server.Postgres, Dir: filepath.Join(data, "r"), Name: "r", ReplicaOf: p, Password: p.Password()})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Stop(ctx)
	args := append([]string{"run", "--workload", "sysbench", "--engine", "postgres", "--dsn", p.DSN() + "," + r.DSN(),
		"--read-from", "replicas", "--tests", "update-index,point-query", "--table-size", "2000", "--run-secs", "2",
		"--warmup-secs", "0", "--store", "none", "--quiet"}, d...)
	tr := run(t, nil, args...)
	if tr.code != 0 {
		t.Fatalf("exit %d\nstderr: %s\nstdout: %s", tr.code, tr.stderr, tr.stdout)
	}
	if strings.Contains(tr.stdout+tr.stderr, p.Password()) {
		t.Error("a password of the --dsn list was printed")
	}
	_, _, steps := readRun(t, out)
	first, second := "127.0.0.1:"+strconv.Itoa(p.Port()), "127.0.0.1:"+strconv.Itoa(r.Port())
	up, pq := okStep(t, steps, "update-index"), okStep(t, steps, "point-query")
	if e := endpoint(t, up, first); e.Role != "primary" || e.Stmts == 0 {
		t.Errorf("update-index on the first: %+v", e)
	}
	if e := endpoint(t, pq, second); e.Role != "replica" || e.Stmts == 0 {
		t.Errorf("point-query on the second: %+v", e)
	}
	if e := endpoint(t, pq, first); e.Stmts != 0 {
		t.Errorf("point-query sent %d statements to the primary", e.Stmts)
	}
	if up.Replication == nil || up.Replication.Replicas != 1 {
		t.Errorf("replication %+v: want the first's one standby", up.Replication)
	}
}

// TestClusterRefusals: each wrong cluster flag is one line and exit 2.
func TestClusterRefusals(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--engine", "sqlite", "--cluster", "replicas=2"}, "--cluster: engine sqlite forms no cluster"},
		{[]string{"--engine", "postgres", "--cluster", "galera=3"}, "engine postgres's cluster is replicas=N, and no --cluster value is one"},
		{[]string{"--engine", "mysql", "--cluster", "replicas=2"}, "engine mysql's cluster is galera=N"},
		{[]string{"--engine", "postgres", "--cluster", "replicas=1", "--cluster", "galera=3"}, "--cluster galera=3: no engine of --engine forms a cluster of that kind"},
		{[]string{"--engine", "postgres", "--cluster", "replicas=0"}, `--cluster "replicas=0": replicas takes a positive count`},
		{[]string{"--engine", "postgres", "--cluster", "replicas=9"}, "too many nodes"},
		{[]string{"--engine", "mysql", "--cluster", "galera=3,sync=on"}, "Galera replication is synchronous"},
		{[]string{"--engine", "postgres", "--read-from", "replicas"}, "--read-from replicas needs a cluster"},
		{[]string{"--engine", "postgres", "--read-from", "nearest"}, `--read-from "nearest": want primary or replicas`},
		{[]string{"--engine", "mysql", "--cluster", "galera=3", "--read-from", "replicas"}, "every Galera node takes writes and reads"},
		{[]string{"--engine", "postgres", "--fault", "kill-primary@1s"}, "a node or a failover needs a --cluster"},
		{[]string{"--engine", "postgres", "--cluster", "replicas=1", "--fault", "kill@1s:node2"}, `has no node "node2" (valid: primary, replica1)`},
		{[]string{"--engine", "mysql", "--cluster", "galera=3", "--fault", "kill-primary@1s"}, "a Galera cluster has no primary"},
		{[]string{"--engine", "postgres", "--cluster", "replicas=1", "--dsn", "postgres://u@127.0.0.1:1/db"}, "not both"},
	} {
		args := append([]string{"run", "--workload", "sysbench", "--tests", "update-index", "--store", "none"}, c.args...)
		tr := run(t, nil, args...)
		if tr.code != 2 || !strings.Contains(tr.stderr, c.want) || strings.Count(tr.stderr, "\n") != 1 {
			t.Errorf("%v: exit %d, stderr %q: want exit 2 and one line with %q", c.args, tr.code, tr.stderr, c.want)
		}
	}
}

// TestClusterTargets: each engine runs on the --cluster values of its kind, labelled by the
// cluster when there are several.
func TestClusterTargets(t *testing.T) {
	f := &runFlags{clusters: []string{"replicas=1", "replicas=2,sync=on", "galera=3"}}
	in := []results.Target{{Label: "postgres"}, {Label: "mysql"}}
	in[0].Engine.Name, in[1].Engine.Name = "postgres", "mysql"
	out, err := clusterTargets(f, in)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, tg := range out {
		got = append(got, tg.Label+"="+tg.Engine.Options["cluster"])
	}
	want := "postgres:1r-async=replicas=1,sync=off postgres:2r-sync=replicas=2,sync=on mysql:galera3=galera=3"
	if strings.Join(got, " ") != want {
		t.Errorf("targets %v, want %s", got, want)
	}
}
