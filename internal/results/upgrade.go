package results

import (
	"encoding/json"
	"slices"
	"strings"
)

// Schema version 1 (rumbench before per-kind records) knew two workloads and a fixed set of
// operation kinds, with one field per kind. Records of that version are read into the current
// model here, so report, compare and the store show old runs as they show new ones.

// v1Step holds the fields of a version-1 step record that version 2 replaced.
type v1Step struct {
	Step
	Events           int64   `json:"events"`
	EventsPerSec     float64 `json:"events_per_sec"`
	Statements       int64   `json:"statements"`
	RowsInserted     int64   `json:"rows_inserted"`
	RowsDeleted      int64   `json:"rows_deleted"`
	Queries          int64   `json:"queries"`
	InsertStatements int64   `json:"insert_statements"`
	DeleteStatements int64   `json:"delete_statements"`
	RowsPerQuery     float64 `json:"rows_per_query"`
	MaxInsertUs      float64 `json:"max_insert_us"`
	MaxDeleteUs      float64 `json:"max_delete_us"`
	MaxQueryUs       float64 `json:"max_query_us"`
}

// v1Interval holds the fields of a version-1 interval record that version 2 replaced.
type v1Interval struct {
	Interval
	MaxInsertUs  float64 `json:"max_insert_us"`
	MaxDeleteUs  float64 `json:"max_delete_us"`
	MaxQueryUs   float64 `json:"max_query_us"`
	RowsInserted int64   `json:"rows_inserted"`
	RowsDeleted  int64   `json:"rows_deleted"`
	Queries      int64   `json:"queries"`
}

// v1Groups are the sysbench test groups, the only step groups of version 1.
var v1Groups = []Group{
	{"point", "point queries"},
	{"range", "range queries without aggregation"},
	{"range_agg", "range queries with aggregation"},
	{"write", "writes"},
}

// DecodeStep decodes one step record written with result schema version schema. Latency, when
// not nil, replaces the record's latency (a store keeps it apart) before an old record is
// upgraded.
func DecodeStep(data []byte, schema int, latency []Latency) (Step, error) {
	if schema >= 2 {
		var s Step
		err := json.Unmarshal(data, &s)
		if latency != nil {
			s.Latency = latency
		}
		return s, err
	}
	var old v1Step
	if err := json.Unmarshal(data, &old); err != nil {
		return Step{}, err
	}
	if latency != nil {
		old.Latency = latency
	}
	return old.upgrade(), nil
}

// DecodeSteps decodes a steps.json array written with result schema version schema.
func DecodeSteps(data []byte, schema int) ([]Step, error) {
	var raw []json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		return nil, err
	}
	out := make([]Step, 0, len(raw))
	for _, r := range raw {
		s, err := DecodeStep(r, schema, nil)
		if err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, nil
}

// DecodeInterval decodes one interval record written with result schema version schema.
func DecodeInterval(data []byte, schema int) (Interval, error) {
	if schema >= 2 {
		var iv Interval
		err := json.Unmarshal(data, &iv)
		return iv, err
	}
	var old v1Interval
	if err := json.Unmarshal(data, &old); err != nil {
		return Interval{}, err
	}
	iv := old.Interval
	add := func(name, role string, ops, units int64, maxUs float64) {
		if ops > 0 || units > 0 || maxUs > 0 {
			iv.Kinds = append(iv.Kinds, Kind{Name: name, Role: role, Unit: "rows", Ops: ops, Units: units, MaxUs: maxUs})
		}
	}
	add("insert", RoleWrite, 0, old.RowsInserted, old.MaxInsertUs)
	add("delete", RoleDelete, 0, old.RowsDeleted, old.MaxDeleteUs)
	add("query", RoleRead, old.Queries, 0, old.MaxQueryUs)
	return iv, nil
}

// UpgradeManifest fills what a version-1 manifest lacks (the sysbench groups).
func UpgradeManifest(m *Manifest) {
	if m.SchemaVersion < 2 && m.Workload == "sysbench" && len(m.Groups) == 0 {
		m.Groups = slices.Clone(v1Groups)
	}
}

// upgrade turns a version-1 step record into the current model: per-kind records from the
// per-kind fields and latency records, the presentation the two workloads of version 1 had.
func (o *v1Step) upgrade() Step {
	s := o.Step
	count := map[string]int64{}
	for _, l := range s.Latency {
		if !strings.HasSuffix(l.Kind, "_intended") {
			count[l.Kind] = l.Count
		}
	}
	maxOf := func(kind string, fallback float64) float64 {
		for _, l := range s.Latency {
			if l.Kind == kind {
				return l.MaxUs
			}
		}
		return fallback
	}
	add := func(k Kind) {
		if k.Ops > 0 || k.Units > 0 {
			s.Kinds = append(s.Kinds, k)
		}
	}
	add(Kind{Name: "insert", Role: RoleWrite, Unit: "rows", Ops: o.InsertStatements, Units: o.RowsInserted, MaxUs: maxOf("insert", o.MaxInsertUs)})
	add(Kind{Name: "delete", Role: RoleDelete, Unit: "rows", Ops: o.DeleteStatements, Units: o.RowsDeleted, MaxUs: maxOf("delete", o.MaxDeleteUs)})
	for _, q := range []string{"range_query", "point_query"} {
		n := count[q]
		add(Kind{Name: q, Role: RoleRead, Unit: "rows", Ops: n, Units: int64(o.RowsPerQuery*float64(n) + 0.5), MaxUs: maxOf(q, o.MaxQueryUs)})
	}
	if n := count["create_index"]; n > 0 {
		add(Kind{Name: "create_index", Role: RoleWrite, Unit: "rows", Ops: n, Units: s.Ops, MaxUs: maxOf("create_index", 0)})
	}
	add(Kind{Name: "event", Role: RoleOther, Unit: "statements", Ops: o.Events, Units: o.Statements, MaxUs: maxOf("event", o.MaxQueryUs)})

	// Version 1 did not measure the observer apart: its client CPU is the process's.
	s.ProcessCPUUsPerOp = s.ClientCPUUsPerOp
	s.QPS = 0
	if o.Queries > 0 && s.Secs > 0 {
		s.QPS = float64(o.Queries) / s.Secs
	}
	if s.RateP50 > 0 {
		s.RateIntervals = 1 // version 1 did not record the count; a non-zero rate came from one at least
	}
	switch {
	case s.Group != "":
		s.RateName, s.RateUnit, s.PerOp = "qps", "statements/s", "statement"
		s.Note = "qps = statements/s incl. BEGIN/COMMIT, scan: Krps; per-op figures per statement"
		if s.Step == "scan" {
			s.RateName, s.RateUnit = "Krps", "thousand rows/s"
		}
		s.CallsPerSec = o.EventsPerSec
	case slices.Contains(s.RateKinds, "create_index"):
		s.RateName, s.RateUnit, s.PerOp = "rate", "rows/s", "indexed row"
		s.Note = "rate = indexed rows/s (inserts + index build), per-op figures per indexed row"
		s.CallsPerSec = perSec(count["create_index"], s.Secs)
	case len(s.RateKinds) > 0 && strings.HasSuffix(s.RateKinds[0], "query"):
		s.RateName, s.RateUnit, s.PerOp = "qps", "queries/s", "query"
		s.Note = "per-op figures per query, wKB/i per background insert"
		s.CallsPerSec = s.QPS
	default:
		s.RateName, s.RateUnit, s.PerOp = "ips", "rows/s", "inserted row"
		s.Note = "per-op figures per inserted row"
		s.CallsPerSec = perSec(o.InsertStatements, s.Secs)
	}
	return s
}

func perSec(n int64, secs float64) float64 {
	if secs <= 0 {
		return 0
	}
	return float64(n) / secs
}
