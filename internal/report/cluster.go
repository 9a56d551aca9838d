package report

import (
	"github.com/rumbench/rumbench/internal/results"
)

// ClusterTables renders the runs' cluster figures (rumbench run --cluster, a --dsn list): a
// row per target, step and endpoint, and a row per target and step of replication (a repeated
// run's target labelled "target #N"); none for runs on one server.
func ClusterTables(runs []*results.Run) []*Table {
	var steps []*results.Step
	for _, r := range runs {
		for i := range r.Steps {
			steps = append(steps, &r.Steps[i])
		}
	}
	return clusterTables(steps)
}

// clusterTables is ClusterTables of steps.
func clusterTables(steps []*results.Step) []*Table {
	eps := &Table{Title: "endpoints", Kind: Plain,
		Note: "statements the sessions sent to each server over the measured window; cpu and rss of the servers rumbench started",
		Columns: []Column{{Name: "target"}, {Name: "step"}, {Name: "endpoint"}, {Name: "role"},
			{Name: "stmts", Unit: "/s"}, {Name: "p50", Unit: "µs"}, {Name: "p99", Unit: "µs"}, {Name: "max", Unit: "µs"},
			{Name: "errors"}, {Name: "cpu", Unit: "%", Meaning: "the server's process tree, 100 = one CPU"}, {Name: "rss", Unit: "MB"}}}
	repl := &Table{Title: "replication", Kind: Plain,
		Note: "read every second: the standby furthest behind (WAL bytes not replayed, replay delay); Galera: flow control and certification",
		Columns: []Column{{Name: "target"}, {Name: "step"}, {Name: "replicas"},
			{Name: "lag_max", Unit: "KB"}, {Name: "lag_mean", Unit: "KB"}, {Name: "lag_max", Unit: "s"},
			{Name: "flow_paused", Unit: "%", Meaning: "Galera: the time replication was paused by flow control, mean over the nodes"},
			{Name: "cert_fail", Meaning: "Galera: certification failures (conflicts between nodes)"}, {Name: "recv_queue", Meaning: "Galera: the longest queue of write sets not applied"}}}
	for _, s := range steps {
		for _, e := range s.Endpoints {
			row := []Cell{TextCell(repLabel(s.Target, s.Rep)), TextCell(s.Step), TextCell(e.Name), TextCell(e.Role),
				NumCell(e.StmtsPerSec), NumCell(e.P50Us), NumCell(e.P99Us), NumCell(e.MaxUs), IntCell(e.Errors)}
			if e.RSSMB > 0 {
				row = append(row, NumCell(e.CPUPct), NumCell(e.RSSMB))
			} else {
				row = append(row, MissingCell(), MissingCell())
			}
			eps.Rows = append(eps.Rows, row)
		}
		if r := s.Replication; r != nil {
			row := []Cell{TextCell(repLabel(s.Target, s.Rep)), TextCell(s.Step), IntCell(int64(r.Replicas))}
			if r.Kind == "galera" {
				row = append(row, MissingCell(), MissingCell(), MissingCell(),
					NumCell(r.FlowPaused*100), IntCell(r.CertFailures), IntCell(r.RecvQueueMax))
			} else {
				row = append(row, NumCell(float64(r.LagBytesMax)/1024), NumCell(r.LagBytesMean/1024), NumCell(r.LagSecsMax),
					MissingCell(), MissingCell(), MissingCell())
			}
			repl.Rows = append(repl.Rows, row)
		}
	}
	var out []*Table
	for _, t := range []*Table{eps, repl} {
		if len(t.Rows) > 0 {
			out = append(out, t)
		}
	}
	return out
}

// replLagChart overlays a cluster's replication lag at each second (repl_lag_bytes of
// intervals.jsonl, KB): a line per target that ran on streaming standbys; none for other steps.
func replLagChart(runs []*results.Run, step string) map[string]any {
	var series []map[string]any
	for ri, r := range runs {
		for _, tg := range targetsOf(r) {
			if !streamingIn(r, step, tg) {
				continue
			}
			for _, rep := range repsOf(r, tg) {
				var data [][2]float64
				for _, iv := range r.Intervals {
					if iv.Step == step && iv.Target == tg && iv.Rep == rep {
						data = append(data, [2]float64{round3(iv.T), round3(float64(iv.ReplLagBytes) / 1024)})
					}
				}
				series = append(series, line(repLabel(seriesLabel(len(runs), ri, tg), rep), data))
			}
		}
	}
	return lineChart(step+": replication lag at each second (the standby furthest behind)", "KB", false, series)
}

// streamingIn says whether target tg of run r ran step on streaming standbys.
func streamingIn(r *results.Run, step, tg string) bool {
	for i := range r.Steps {
		if s := &r.Steps[i]; s.Step == step && s.Target == tg && s.Replication != nil && s.Replication.Kind == "streaming" {
			return true
		}
	}
	return false
}
