package ycsb

import (
	"bytes"
	"fmt"
	"sort"
	"strings"
	"unicode/utf16"

	"github.com/rumbench/rumbench/internal/gen"
	"github.com/rumbench/rumbench/internal/table"
	"github.com/rumbench/rumbench/internal/workload/ycsb/ycsbconf"
)

// KeyColumn is the key column's name in the table's DDL (YCSB's JDBC binding declares
// YCSB_KEY, which PostgreSQL folds to this and MySQL and SQLite compare without case).
const KeyColumn = "ycsb_key"

// refKey is the key column as the JDBC binding's statements write it.
const refKey = "YCSB_KEY"

// keyMaxLen is the declared length of the key column (YCSB's JDBC binding: VARCHAR(255)).
const keyMaxLen = 255

// newTable returns YCSB's usertable as the JDBC binding's documentation declares it: the key
// VARCHAR(255) PRIMARY KEY, then fieldcount TEXT fields (unbounded text columns).
func newTable(c *ycsbconf.Config) *table.Table {
	t := &table.Table{Name: c.Table, Columns: []table.Column{
		{Name: KeyColumn, Type: table.Bytes, NotNull: true, MaxLen: keyMaxLen, Text: true}}}
	for i := int64(0); i < c.FieldCount; i++ {
		t.Columns = append(t.Columns, table.Column{Name: fmt.Sprintf("%s%d", c.FieldNamePrefix, i), Type: table.Bytes,
			Text: true})
	}
	return t
}

// stmts are the statements of the workload in YCSB's JDBC binding's SQL text (JdbcDBClient with
// its default flavor, DefaultDBFlavor) and their logical form. The binding reads every column
// (SELECT *) whatever readallfields says, writes the fields of a record in the order its
// CoreWorkload's HashMap of values iterates them (fieldOrder), and scans with ORDER BY and LIMIT,
// or FETCH FIRST on PostgreSQL (its driver check for PostgreSQL).
type stmts struct {
	t                 *table.Table
	read, scan        *table.Stmt
	updateAll, insert *table.Stmt
	updateOne         []*table.Stmt
	// order are the field numbers (0-based) in the binding's order: the order of updateAll's
	// assignments and of insert's columns after the key.
	order []int
}

func newStmts(c *ycsbconf.Config) *stmts {
	t := newTable(c)
	s := &stmts{t: t}
	names := make([]string, c.FieldCount)
	for i := range names {
		names[i] = t.Columns[1+i].Name
	}
	s.order = fieldOrder(names)
	all := make([]int, len(t.Columns))
	for i := range all {
		all[i] = i
	}
	// read: SELECT * FROM usertable WHERE YCSB_KEY = ?
	s.read = &table.Stmt{Table: t, Kind: table.Select, Index: -1, Match: table.Eq, Cols: all,
		SQL: fmt.Sprintf("SELECT * FROM %s WHERE %s = ?", t.Name, refKey)}
	// scan: SELECT * FROM usertable WHERE YCSB_KEY >= ? ORDER BY YCSB_KEY LIMIT ?
	scan := fmt.Sprintf("SELECT * FROM %s WHERE %s >= ? ORDER BY %s", t.Name, refKey, refKey)
	s.scan = &table.Stmt{Table: t, Kind: table.Select, Index: -1, Match: table.From, Cols: all,
		SQL: scan + " LIMIT ?", Dialects: map[string]string{table.DialectPostgres: scan + " FETCH FIRST ? ROWS ONLY"}}
	s.updateAll = s.update(s.order)
	for f := range names {
		s.updateOne = append(s.updateOne, s.update([]int{f}))
	}
	// insert: INSERT INTO usertable (YCSB_KEY,field1,field0,...) VALUES(?,?,?,...)
	cols := []int{0}
	list := []string{refKey}
	for _, f := range s.order {
		cols = append(cols, 1+f)
		list = append(list, names[f])
	}
	s.insert = &table.Stmt{Table: t, Kind: table.InsertRow, Index: -1, InsertCols: cols,
		SQL: fmt.Sprintf("INSERT INTO %s (%s) VALUES(?%s)", t.Name, strings.Join(list, ","), strings.Repeat(",?", len(names)))}
	return s
}

// update: UPDATE usertable SET field3=? WHERE YCSB_KEY = ? (fields: 0-based field numbers in the
// order of the assignments).
func (s *stmts) update(fields []int) *table.Stmt {
	set := make([]table.Assign, len(fields))
	sets := make([]string, len(fields))
	for i, f := range fields {
		set[i] = table.Assign{Col: 1 + f}
		sets[i] = s.t.Columns[1+f].Name + "=?"
	}
	return &table.Stmt{Table: s.t, Kind: table.Update, Index: -1, Match: table.Eq, Set: set,
		SQL: fmt.Sprintf("UPDATE %s SET %s WHERE %s = ?", s.t.Name, strings.Join(sets, ", "), refKey)}
}

// fieldOrder returns the positions of names in the order a java.util.HashMap holding them as
// keys, put in the order given, iterates them: by bucket (the key's String.hashCode, its high
// half XORed into its low, masked to the table's size, a power of two from 16 that keeps the
// entries at most 3/4 of it), and within a bucket in the order of the puts. The JDBC binding
// builds its INSERT column list and an UPDATE of every field in that order.
func fieldOrder(names []string) []int {
	size := 16
	for len(names)*4 > size*3 {
		size *= 2
	}
	bucket := func(s string) int {
		var h int32
		for _, u := range utf16.Encode([]rune(s)) { // Java hashes a string's UTF-16 units
			h = 31*h + int32(u)
		}
		u := uint32(h)
		return int((u ^ u>>16) & uint32(size-1))
	}
	order := make([]int, len(names))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return bucket(names[order[a]]) < bucket(names[order[b]]) })
	return order
}

// Field values. YCSB fills a field with random printable bytes; here every byte is one of 64
// printable characters (' ' to '_', 6 random bits each, as YCSB's RandomByteIterator draws 5 or 6
// bits a byte), so values compress as YCSB's do. A value is also self-verifying: it is a pure
// function of its key, its field, its length and, when it is longer than stampLen, a nonce that
// its first stampLen characters carry. A check recomputes the value from what it reads: a torn,
// truncated or foreign value does not match (the length is part of the seed).

// stampLen is the characters at the start of a field that carry its nonce (48 bits).
const stampLen = 8

// nonceMask keeps the 48 bits a stamp carries.
const nonceMask = 1<<48 - 1

// keyHash is the FNV-1a hash of a key name: the seed of its field values.
func keyHash(key []byte) uint64 {
	h := uint64(14695981039346656037)
	for _, c := range key {
		h ^= uint64(c)
		h *= 1099511628211
	}
	return h
}

// appendField appends the value of field f (0-based) of the record whose key hashes to kh, n bytes
// long, written with nonce, to dst.
func appendField(dst []byte, kh uint64, f int, nonce uint64, n int) []byte {
	seed := kh ^ uint64(f+1)*0x9E3779B97F4A7C15 ^ uint64(n)<<48
	i := 0
	if n > stampLen {
		nonce &= nonceMask
		for ; i < stampLen; i++ {
			dst = append(dst, ' '+byte(nonce>>(6*i)&63))
		}
		seed ^= nonce
	}
	r := gen.NewRand(gen.Mix(seed))
	for i < n {
		x := r.Uint64()
		for j := 0; j < 10 && i < n; j, i = j+1, i+1 {
			dst = append(dst, ' '+byte(x&63))
			x >>= 6
		}
	}
	return dst
}

// fieldOK says whether v is a value appendField wrote for field f of the record whose key hashes
// to kh. tmp is scratch space; the extended tmp is returned for reuse.
func fieldOK(tmp, v []byte, kh uint64, f int) (bool, []byte) {
	var nonce uint64
	if len(v) > stampLen {
		for i := 0; i < stampLen; i++ {
			c := v[i] - ' '
			if c >= 64 {
				return false, tmp
			}
			nonce |= uint64(c) << (6 * i)
		}
	}
	tmp = appendField(tmp[:0], kh, f, nonce, len(v))
	return bytes.Equal(tmp, v), tmp
}
