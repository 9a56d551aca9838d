package table

// Value is one cell: I holds Int64, Int32 and Timestamp columns, B holds Bytes columns. A nil B in a
// Bytes column is SQL NULL.
type Value struct {
	I int64
	B []byte
}

// Rows is a reusable, row-major block of rows with a fixed number of columns. Cell (r, c) is
// Vals[r*Cols+c]. Bytes cells point into Arena (or into memory owned by the caller) and are valid
// until the next Reset. Rows is not safe for concurrent use.
type Rows struct {
	Cols  int
	N     int
	Vals  []Value
	Arena []byte
}

// NewRows returns an empty block for rows of cols columns with room for capRows rows.
func NewRows(cols, capRows int) *Rows {
	return &Rows{Cols: cols, Vals: make([]Value, 0, cols*capRows)}
}

// Reset empties the block, keeping its memory. cols sets the column count for the rows to come.
func (r *Rows) Reset(cols int) {
	r.Cols = cols
	r.N = 0
	r.Vals = r.Vals[:0]
	r.Arena = r.Arena[:0]
}

// Append adds one zeroed row and returns it as a slice of Cols values to fill in.
func (r *Rows) Append() []Value {
	row := r.AppendRaw()
	for i := range row {
		row[i] = Value{}
	}
	return row
}

// AppendRaw adds one row without clearing it and returns it: the caller must set every cell it
// relies on. Generators that fill every column of same-shaped rows use it to skip the clearing.
func (r *Rows) AppendRaw() []Value {
	n := len(r.Vals)
	if cap(r.Vals)-n < r.Cols {
		grown := make([]Value, n, 2*cap(r.Vals)+r.Cols)
		copy(grown, r.Vals)
		r.Vals = grown
	}
	r.Vals = r.Vals[:n+r.Cols]
	r.N++
	return r.Vals[n : n+r.Cols]
}

// Row returns row i as a slice of Cols values.
func (r *Rows) Row(i int) []Value { return r.Vals[i*r.Cols : (i+1)*r.Cols] }

// CopyBytes copies b into the block's arena and returns the copy. Earlier copies stay valid: when
// the arena must grow it is replaced, not moved. The copy of an empty slice is empty and non-nil
// (nil is NULL).
func (r *Rows) CopyBytes(b []byte) []byte {
	dst := r.Alloc(len(b))
	copy(dst, b)
	return dst
}

// Alloc returns n bytes of the block's arena, with undefined contents, for the caller to fill;
// like CopyBytes it never moves earlier allocations, and Alloc(0) is empty and non-nil.
func (r *Rows) Alloc(n int) []byte {
	if r.Arena == nil || cap(r.Arena)-len(r.Arena) < n {
		size := max(2*cap(r.Arena), 4096, n)
		r.Arena = make([]byte, 0, size)
	}
	off := len(r.Arena)
	r.Arena = r.Arena[:off+n]
	return r.Arena[off : off+n : off+n]
}
