package kv

import (
	"encoding/binary"
	"errors"

	"github.com/rumbench/rumbench/internal/table"
)

// codec builds keys and row values in buffers it reuses; a returned slice is valid until the next
// call that returns the same kind of slice.
//
// Row value: the non-key columns in order; integers and timestamps as zig-zag varints, Bytes as a
// uvarint of length+1 (0 = NULL) followed by the bytes.
type codec struct {
	pk, idx, val []byte
	// key holds the last string primary key decodePK decoded.
	key []byte
}

// pkKey returns the key of row pk of t: the table id and the key in its column type's encoding.
func (c *codec) pkKey(t *table.Table, id uint32, pk table.Value) []byte {
	c.pk = appendPK(binary.BigEndian.AppendUint32(c.pk[:0], id), t, pk)
	return c.pk
}

// intKey returns the key of row pk of a table with an integer primary key.
func (c *codec) intKey(t *table.Table, id uint32, pk int64) []byte {
	return c.pkKey(t, id, table.Value{I: pk})
}

// appendPK appends primary key pk of t in its column type's encoding.
func appendPK(dst []byte, t *table.Table, pk table.Value) []byte {
	return table.AppendValue(dst, t.Columns[0].Type, pk)
}

// decodePK decodes the primary key of t from the front of key into *dst and returns the rest of
// key. A string key is copied into the codec's buffer: *dst is valid until the next decodePK.
func (c *codec) decodePK(t *table.Table, key []byte, dst *table.Value) ([]byte, error) {
	if t.Columns[0].Type != table.Bytes {
		var err error
		dst.I, key, err = table.DecodeValue(t.Columns[0].Type, key)
		return key, err
	}
	if c.key == nil {
		c.key = make([]byte, 0, 64)
	}
	var err error
	if c.key, key, err = table.DecodeBytes(c.key[:0], key); err != nil {
		return nil, err
	}
	*dst = table.Value{B: c.key}
	return key, nil
}

func (c *codec) indexKey(t *table.Table, id uint32, index int, row []table.Value) []byte {
	k := binary.BigEndian.AppendUint32(c.idx[:0], id)
	for _, col := range t.Indexes[index].Columns {
		k = table.AppendValue(k, t.Columns[col].Type, row[col])
	}
	c.idx = appendPK(k, t, row[0])
	return c.idx
}

func (c *codec) encodeRow(t *table.Table, row []table.Value) []byte {
	v := c.val[:0]
	for i := 1; i < len(t.Columns); i++ {
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
// alias value (a string key the codec's buffer).
func (c *codec) decodeRow(t *table.Table, key, value []byte, row []table.Value) error {
	if _, err := c.decodePK(t, key, &row[0]); err != nil {
		return err
	}
	return c.decodeValue(t, value, row)
}

// decodeValue decodes the non-key columns of row from value. Bytes cells alias value.
func (c *codec) decodeValue(t *table.Table, value []byte, row []table.Value) error {
	for i := 1; i < len(t.Columns); i++ {
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
