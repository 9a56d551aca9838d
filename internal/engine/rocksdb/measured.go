package rocksdb

// The figures workloads size this engine's cache and their disk estimates by, measured here
// (engine.Spec.PerUnitBytes; docs/engine-settings.md has the measurements and their commands).
var perUnitBytes = map[string]float64{"insert.row.cache": 50, "sysbench.row": 231.8, "ycsb.record": 1092.1,
	"tpcc.warehouse": 75.8e6, "linkbench.node": 360, "linkbench.link": 87.2, "kv.row": 21.7}
