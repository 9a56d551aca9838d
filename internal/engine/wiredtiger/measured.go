package wiredtiger

// The figures workloads size this engine's cache and their disk estimates by, measured here
// (engine.Spec.PerUnitBytes; docs/engine-settings.md has the measurements and their commands).
var perUnitBytes = map[string]float64{"insert.row.cache": 1200, "sysbench.row": 182.8, "ycsb.record": 1157.0,
	"tpcc.warehouse": 70.8e6, "linkbench.node": 219, "linkbench.link": 82.6, "kv.row": 12.2}
