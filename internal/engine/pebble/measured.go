package pebble

// The figures workloads size this engine's cache and their disk estimates by, measured here
// (engine.Spec.PerUnitBytes; docs/engine-settings.md has the measurements and their commands).
var perUnitBytes = map[string]float64{"insert.row.cache": 50, "sysbench.row": 211.5, "ycsb.record": 1077.7,
	"tpcc.warehouse": 72.2e6, "linkbench.node": 529, "linkbench.link": 85.6, "kv.row": 17.6}
