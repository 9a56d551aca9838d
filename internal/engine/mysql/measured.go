package mysql

// The figures workloads size this engine's cache and their disk estimates by, measured here
// (engine.Spec.PerUnitBytes; docs/engine-settings.md has the measurements and their commands).
// By table engine: InnoDB, MyRocks.
var perUnitBytes = map[string]map[string]float64{
	"innodb": {"insert.row.cache": 1000, "sysbench.row": 758.4, "ycsb.record": 2104.0, "tpcc.warehouse": 264.5e6,
		"linkbench.node": 3379, "linkbench.link": 223.4, "script.scale": 39.02e6, "kv.row": 152},
	"rocksdb": {"insert.row.cache": 50, "sysbench.row": 379.7, "ycsb.record": 1432.3, "tpcc.warehouse": 107.1e6,
		"linkbench.node": 656, "linkbench.link": 95.1, "script.scale": 9.78e6, "kv.row": 50.8},
}
