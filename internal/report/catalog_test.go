package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/rumbench/rumbench/internal/metric"
	"github.com/rumbench/rumbench/internal/results"
)

// TestEveryColumnInCatalog renders every kind of table rumbench prints (step, latency, group,
// sync accounting, comparison rows, benchmark units) over runs that have every figure (servers,
// sync accounting, retries, paced writers, version-1 runs) and checks that each column, row
// name and unit is a metric of the catalog, so `rumbench metrics NAME` explains it.
func TestEveryColumnInCatalog(t *testing.T) {
	sb := sysbenchRun("20261121T120000Z-sb", 1)
	for i := range sb.Steps {
		sb.Steps[i].Syscalls = &results.Syscalls{Source: "preload", Complete: true, Commits: 10}
		sb.Steps[i].Retries = 1
		sb.Steps[i].Latency = []results.Latency{{Kind: "event", Count: 1, Percentiles: map[string]float64{"p99.99": 3}}}
	}
	sb.Manifest.Headline = []string{"cpu_us/op", "write:fl/op", "write:sync/c"}
	ins := sampleRun()
	for i := range ins.Steps {
		ins.Steps[i].Server, ins.Steps[i].Syscalls = "managed", &results.Syscalls{Source: "preload", Commits: 10}
		ins.Steps[i].Kinds = append(ins.Steps[i].Kinds, results.Kind{Name: "delete", Role: results.RoleDelete, Ops: 1, Units: 5})
	}
	runs := []*results.Run{ins, sb, loadV1(t, v1Runs[0]), loadV1(t, v1Runs[1])}
	check := func(where, name string) {
		if _, ok := metric.Lookup(name); !ok {
			t.Errorf("%s: %q is not in the metric catalog", where, name)
		}
	}
	for _, r := range runs {
		doc := RunsDocument([]*results.Run{r}, Wide)
		for _, sec := range doc.Sections {
			for _, tb := range sec.Tables {
				for _, c := range tb.Columns {
					name := c.Name
					if tb.Title == SummaryTitle {
						// "STEP RATE↑" is a step's rate, named by the workload; a headline
						// figure is "NAME↓" or "SCOPE:NAME↓".
						if strings.Contains(name, " ") {
							continue
						}
						name = strings.TrimRight(name[strings.LastIndex(name, ":")+1:], "↑↓")
					}
					check(tb.Title+tb.Key, name)
				}
			}
		}
		c, err := Compare([]*results.Run{r}, "")
		if err != nil {
			t.Fatal(err)
		}
		for _, tb := range c.Tables(true) {
			if c.Grouped {
				check(tb.Title, tb.Title[strings.LastIndex(tb.Title, ": ")+2:])
				continue
			}
			for _, row := range tb.Rows {
				check(tb.Title, row[0].Text)
			}
		}
		var b bytes.Buffer
		if err := GoBench(&b, []*results.Run{r}); err != nil {
			t.Fatal(err)
		}
		for _, l := range strings.Split(b.String(), "\n") {
			if f := strings.Fields(l); strings.HasPrefix(l, "Benchmark") {
				for i := 5; i < len(f); i += 2 { // f[3] is the rate's name, the workload's
					check("gobench", f[i])
				}
			}
		}
	}
}

// TestMetricNamesUnique checks the one-name rule: no two metrics share a name or a header.
func TestMetricNamesUnique(t *testing.T) {
	seen := map[string]string{}
	for _, m := range metric.All() {
		for _, h := range []string{m.Name, m.Header("ms"), m.Header("us")} {
			if other, dup := seen[h]; dup && other != m.Name {
				t.Errorf("header %q of %s is also %s's", h, m.Name, other)
			}
			seen[h] = m.Name
		}
		if m.Meaning == "" || (m.Field != "-" && (m.Unit == "" || m.Formula == "")) {
			t.Errorf("%s: meaning, unit and formula are required", m.Name)
		}
	}
}
