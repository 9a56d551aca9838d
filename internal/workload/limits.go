package workload

// ColumnLimit is the most columns a table may have on a run's engines: the smallest of their
// limits, and the engine that sets it.
type ColumnLimit struct {
	// Max is the most columns, key columns included; 0 means no limit.
	Max int
	// Engine names the engine whose limit Max is.
	Engine string
}
