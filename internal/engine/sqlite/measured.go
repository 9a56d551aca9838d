package sqlite

// The figures workloads size this engine's cache and their disk estimates by, measured here
// (engine.Spec.PerUnitBytes; docs/engine-settings.md has the measurements and their commands).
var perUnitBytes = map[string]float64{"insert.row.cache": 80}
