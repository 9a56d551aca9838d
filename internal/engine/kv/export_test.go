package kv

// SetSortRunBytes sets the in-memory run size of the index build and returns the undo.
func SetSortRunBytes(n int) func() {
	old := sortRunBytes
	sortRunBytes = n
	return func() { sortRunBytes = old }
}
