package ycsb

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/rumbench/rumbench/internal/gen"
	"github.com/rumbench/rumbench/internal/table"
	"github.com/rumbench/rumbench/internal/workload/ycsb/ycsbconf"
)

// KeyColumn is the key column's name, as YCSB's JDBC binding names it (YCSB_KEY).
const KeyColumn = "ycsb_key"

// keyMaxLen is the declared length of the key column (YCSB's JDBC binding: VARCHAR(255)).
const keyMaxLen = 255

// newTable returns YCSB's usertable: the string key, then fieldcount text fields. A field is a
// VARCHAR of fieldlength when a whole record fits a MySQL row that way (4 bytes a character),
// else an unbounded text column.
func newTable(c *ycsbconf.Config) *table.Table {
	t := &table.Table{Name: c.Table, Columns: []table.Column{
		{Name: KeyColumn, Type: table.Bytes, NotNull: true, MaxLen: keyMaxLen, Text: true}}}
	maxLen := c.FieldLength
	if c.FieldCount*int64(c.FieldLength)*4 > 60_000 {
		maxLen = 0
	}
	for i := int64(0); i < c.FieldCount; i++ {
		t.Columns = append(t.Columns, table.Column{Name: fmt.Sprintf("%s%d", c.FieldNamePrefix, i), Type: table.Bytes,
			MaxLen: maxLen, Text: true})
	}
	return t
}

// stmts are the statements of the run step, in their SQL reference form (as YCSB's JDBC binding
// issues them, columns named) and their logical form: a read, a scan and an update of every
// field, and of each single field (readallfields=false, writeallfields=false).
type stmts struct {
	t                           *table.Table
	readAll, scanAll, updateAll *table.Stmt
	readOne, scanOne, updateOne []*table.Stmt
}

func newStmts(c *ycsbconf.Config) *stmts {
	t := newTable(c)
	s := &stmts{t: t}
	all := make([]int, c.FieldCount)
	for i := range all {
		all[i] = 1 + i
	}
	s.readAll, s.scanAll, s.updateAll = s.read(all), s.scan(all), s.update(all)
	for _, f := range all {
		s.readOne = append(s.readOne, s.read([]int{f}))
		s.scanOne = append(s.scanOne, s.scan([]int{f}))
		s.updateOne = append(s.updateOne, s.update([]int{f}))
	}
	return s
}

func (s *stmts) names(cols []int) string {
	names := make([]string, len(cols))
	for i, c := range cols {
		names[i] = s.t.Columns[c].Name
	}
	return strings.Join(names, ", ")
}

// read: SELECT fields FROM usertable WHERE ycsb_key = ?
func (s *stmts) read(fields []int) *table.Stmt {
	return &table.Stmt{Table: s.t, Kind: table.Select, Index: -1, Match: table.Eq, Cols: fields,
		SQL: fmt.Sprintf("SELECT %s FROM %s WHERE %s = ?", s.names(fields), s.t.Name, KeyColumn)}
}

// scan: SELECT ycsb_key, fields FROM usertable WHERE ycsb_key >= ? ORDER BY ycsb_key LIMIT ?
func (s *stmts) scan(fields []int) *table.Stmt {
	cols := append([]int{0}, fields...)
	return &table.Stmt{Table: s.t, Kind: table.Select, Index: -1, Match: table.From, Cols: cols,
		SQL: fmt.Sprintf("SELECT %s FROM %s WHERE %s >= ? ORDER BY %s LIMIT ?", s.names(cols), s.t.Name, KeyColumn, KeyColumn)}
}

// update: UPDATE usertable SET field = ?, ... WHERE ycsb_key = ?
func (s *stmts) update(fields []int) *table.Stmt {
	set := make([]table.Assign, len(fields))
	sets := make([]string, len(fields))
	for i, f := range fields {
		set[i] = table.Assign{Col: f}
		sets[i] = s.t.Columns[f].Name + " = ?"
	}
	return &table.Stmt{Table: s.t, Kind: table.Update, Index: -1, Match: table.Eq, Set: set,
		SQL: fmt.Sprintf("UPDATE %s SET %s WHERE %s = ?", s.t.Name, strings.Join(sets, ", "), KeyColumn)}
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
