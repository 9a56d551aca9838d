package postgres

// The figures workloads size this engine's cache and their disk estimates by, measured here
// (engine.Spec.PerUnitBytes; docs/engine-settings.md has the measurements and their commands).
var perUnitBytes = map[string]float64{"insert.row.cache": 600, "sysbench.row": 419.6, "ycsb.record": 1531.2,
	"tpcc.warehouse": 158.3e6, "linkbench.node": 1069, "linkbench.link": 338.5, "script.scale": 23.48e6, "kv.row": 108}
