package mongo

import (
	"encoding/hex"
	"fmt"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/rumbench/rumbench/internal/table"
)

// Documents are built as raw BSON in reused buffers (bsoncore), never through reflection: the
// driver takes a bson.Raw as it is.

// docStart opens a document (or an embedded one: appended after an element header) and
// returns the offset of its length.
func docStart(dst []byte) (int32, []byte) { return bsoncore.AppendDocumentStart(dst) }

// docEnd closes the document opened at idx.
func docEnd(dst []byte, idx int32) []byte {
	dst, _ = bsoncore.AppendDocumentEnd(dst, idx) // errors only for an idx out of range
	return dst
}

// subStart opens an embedded document (or array: arrays are documents keyed "0", "1", ...)
// under key.
func subStart(dst []byte, key string, array bool) (int32, []byte) {
	if array {
		return bsoncore.AppendArrayElementStart(dst, key)
	}
	return bsoncore.AppendDocumentElementStart(dst, key)
}

// arrayKeys are the keys of array elements up to the largest IN list a workload issues.
var arrayKeys = func() []string {
	k := make([]string, 1024)
	for i := range k {
		k[i] = fmt.Sprint(i)
	}
	return k
}()

// arrayKey returns the key of array element i.
func arrayKey(i int) string {
	if i < len(arrayKeys) {
		return arrayKeys[i]
	}
	return fmt.Sprint(i)
}

// appendStringBytes appends a string element whose value is b, without converting b to a string.
func appendStringBytes(dst []byte, key string, b []byte) []byte {
	dst = bsoncore.AppendHeader(dst, bsoncore.TypeString, key)
	dst = bsoncore.AppendInt32(dst, int32(len(b)+1))
	dst = append(dst, b...)
	return append(dst, 0)
}

// appendHexID appends a string element whose value is the hexadecimal form of enc (an
// order-preserving key encoding) followed by suffix: hexadecimal digits keep enc's byte order,
// and a string MongoDB compares bytewise.
func appendHexID(dst []byte, key string, enc []byte, suffix string) []byte {
	dst = bsoncore.AppendHeader(dst, bsoncore.TypeString, key)
	dst = bsoncore.AppendInt32(dst, int32(2*len(enc)+len(suffix)+1))
	dst = hex.AppendEncode(dst, enc)
	dst = append(dst, suffix...)
	return append(dst, 0)
}

// appendValue appends v as the element key, typed by column c: Int64 and Timestamp as int64,
// Int32 as int32, a Text Bytes column as a string, other Bytes as binary; a nil B is null.
func appendValue(dst []byte, key string, c *table.Column, v table.Value) []byte {
	switch c.Type {
	case table.Int32:
		return bsoncore.AppendInt32Element(dst, key, int32(v.I))
	case table.Bytes:
		switch {
		case v.B == nil:
			return bsoncore.AppendNullElement(dst, key)
		case c.Text:
			return appendStringBytes(dst, key, v.B)
		}
		return bsoncore.AppendBinaryElement(dst, key, 0, v.B)
	}
	return bsoncore.AppendInt64Element(dst, key, v.I)
}

// decodeValue converts a BSON value into a cell of type t; Bytes are copied into out's arena.
func decodeValue(v bsoncore.Value, t table.Type, out *table.Rows) (table.Value, error) {
	switch v.Type {
	case bsoncore.TypeInt64, bsoncore.TypeInt32, bsoncore.TypeDouble:
		i, ok := v.AsInt64OK()
		if !ok || t == table.Bytes {
			break
		}
		return table.Value{I: i}, nil
	case bsoncore.TypeString:
		if t != table.Bytes || len(v.Data) < 5 {
			break
		}
		return table.Value{B: out.CopyBytes(v.Data[4 : len(v.Data)-1])}, nil
	case bsoncore.TypeBinary:
		_, b, ok := v.BinaryOK()
		if !ok || t != table.Bytes {
			break
		}
		return table.Value{B: out.CopyBytes(b)}, nil
	case bsoncore.TypeNull:
		return table.Value{}, nil
	}
	return table.Value{}, fmt.Errorf("mongo: a field of BSON type %s cannot be read as %s", v.Type, t)
}

// appendInt32 appends an int32 element.
func appendInt32(dst []byte, key string, v int32) []byte {
	return bsoncore.AppendInt32Element(dst, key, v)
}

// sortDoc is the one-field document {key: dir}.
func sortDoc(key string, dir int32) []byte {
	i, b := docStart(nil)
	return docEnd(appendInt32(b, key, dir), i)
}
