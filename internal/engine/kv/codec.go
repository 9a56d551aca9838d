package kv

import (
	"encoding/binary"
	"errors"

	"github.com/rumbench/rumbench/internal/table"
)

// codec builds keys and row values in buffers it reuses; a returned slice is valid until the next
// call that returns the same kind of slice.
//
// Row value: the non-key columns (those after the key columns) in order; integers and timestamps as zig-zag varints, Bytes as a
// uvarint of length+1 (0 = NULL) followed by the bytes.
type codec struct {
	pk, idx, val []byte
	// strs holds the string columns the last decodeKey or decodeIndex decoded.
	strs []byte
}

// pkKey returns the key of the row whose primary key columns hold key (t.Keys() values): the
// table id and each column in its type's encoding.
func (c *codec) pkKey(t *table.Table, id uint32, key []table.Value) []byte {
	c.pk = appendKey(binary.BigEndian.AppendUint32(c.pk[:0], id), t, key)
	return c.pk
}

// intKey returns the key of row pk of a table with a single integer primary key.
func (c *codec) intKey(t *table.Table, id uint32, pk int64) []byte {
	return c.pkKey(t, id, []table.Value{{I: pk}})
}

// appendKey appends the primary key columns key of t in their types' encodings.
func appendKey(dst []byte, t *table.Table, key []table.Value) []byte {
	for i, v := range key {
		dst = table.AppendValue(dst, t.Columns[i].Type, v)
	}
	return dst
}

// decodeCol decodes a value of column col of t from the front of b into *dst and returns the
// rest of b. A string is appended to c.strs and *dst aliases it.
func (c *codec) decodeCol(t *table.Table, col int, b []byte, dst *table.Value) ([]byte, error) {
	typ := t.Columns[col].Type
	if typ != table.Bytes {
		var err error
		dst.I, b, err = table.DecodeValue(typ, b)
		return b, err
	}
	if c.strs == nil {
		c.strs = make([]byte, 0, 256)
	}
	off := len(c.strs)
	var err error
	if c.strs, b, err = table.DecodeBytes(c.strs, b); err != nil {
		return nil, err
	}
	*dst = table.Value{B: c.strs[off:len(c.strs):len(c.strs)]}
	return b, nil
}

// decodeKey decodes the primary key columns of t from the front of key into row[:t.Keys()] and
// returns the rest of key. Strings are valid until the next decodeKey or decodeIndex.
func (c *codec) decodeKey(t *table.Table, key []byte, row []table.Value) ([]byte, error) {
	c.strs = c.strs[:0]
	return c.decodeKeyCols(t, key, row)
}

func (c *codec) decodeKeyCols(t *table.Table, key []byte, row []table.Value) ([]byte, error) {
	var err error
	for i := range t.Keys() {
		if key, err = c.decodeCol(t, i, key, &row[i]); err != nil {
			return nil, err
		}
	}
	return key, nil
}

// decodeIndex decodes an index entry's key (without its 4-byte id): the columns of index ix into
// their places in row, then the primary key columns.
func (c *codec) decodeIndex(t *table.Table, ix *table.Index, key []byte, row []table.Value) error {
	c.strs = c.strs[:0]
	var err error
	for _, col := range ix.Columns {
		if key, err = c.decodeCol(t, col, key, &row[col]); err != nil {
			return err
		}
	}
	_, err = c.decodeKeyCols(t, key, row)
	return err
}

func (c *codec) indexKey(t *table.Table, id uint32, index int, row []table.Value) []byte {
	k := binary.BigEndian.AppendUint32(c.idx[:0], id)
	for _, col := range t.Indexes[index].Columns {
		k = table.AppendValue(k, t.Columns[col].Type, row[col])
	}
	c.idx = appendKey(k, t, row[:t.Keys()])
	return c.idx
}

func (c *codec) encodeRow(t *table.Table, row []table.Value) []byte {
	v := c.val[:0]
	for i := t.Keys(); i < len(t.Columns); i++ {
		if t.Columns[i].Type == table.Bytes {
			if row[i].B == nil {
				v = binary.AppendUvarint(v, 0)
				continue
			}
			v = binary.AppendUvarint(v, uint64(len(row[i].B))+1)
			v = append(v, row[i].B...)
			continue
		}
		v = binary.AppendVarint(v, row[i].I)
	}
	c.val = v
	return v
}

var errCorrupt = errors.New("kv: corrupt row value")

// decodeRow decodes a row from its key (without the 4-byte id) and value into row. Bytes cells
// alias value (string key columns the codec's buffer).
func (c *codec) decodeRow(t *table.Table, key, value []byte, row []table.Value) error {
	if _, err := c.decodeKey(t, key, row); err != nil {
		return err
	}
	return c.decodeValue(t, value, row)
}

// decodeValue decodes the non-key columns of row from value. Bytes cells alias value.
func (c *codec) decodeValue(t *table.Table, value []byte, row []table.Value) error {
	for i := t.Keys(); i < len(t.Columns); i++ {
		if t.Columns[i].Type == table.Bytes {
			n, w := binary.Uvarint(value)
			if w <= 0 || uint64(len(value)-w) < n-min(n, 1) {
				return errCorrupt
			}
			value = value[w:]
			if n == 0 {
				row[i] = table.Value{}
				continue
			}
			row[i] = table.Value{B: value[: n-1 : n-1]}
			value = value[n-1:]
			continue
		}
		v, w := binary.Varint(value)
		if w <= 0 {
			return errCorrupt
		}
		row[i] = table.Value{I: v}
		value = value[w:]
	}
	return nil
}
