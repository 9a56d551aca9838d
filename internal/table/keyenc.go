package table

import (
	"encoding/binary"
	"errors"
)

// Order-preserving key encoding for the KV family: bytes.Compare on two encodings orders them as
// the encoded values order, field by field.
//
// Int64 and Timestamp: 8 bytes big-endian with the sign bit flipped; Int32: 4 such bytes. Bytes: every 0x00 byte is
// escaped as 0x00 0xFF and the field ends with 0x00 0x01, so a prefix sorts before any extension
// and embedded zeros keep their order.

// AppendInt appends the order-preserving encoding of v to dst.
func AppendInt(dst []byte, v int64) []byte {
	return binary.BigEndian.AppendUint64(dst, uint64(v)^(1<<63))
}

// DecodeInt decodes an integer encoded by AppendInt from the front of b and returns the rest.
func DecodeInt(b []byte) (int64, []byte, error) {
	if len(b) < 8 {
		return 0, nil, errShortKey
	}
	return int64(binary.BigEndian.Uint64(b) ^ (1 << 63)), b[8:], nil
}

// AppendBytes appends the order-preserving encoding of s to dst.
func AppendBytes(dst, s []byte) []byte {
	for _, c := range s {
		if c == 0 {
			dst = append(dst, 0, 0xFF)
		} else {
			dst = append(dst, c)
		}
	}
	return append(dst, 0, 1)
}

// DecodeBytes decodes a byte string encoded by AppendBytes from the front of b, appending it to
// dst, and returns the rest of b.
func DecodeBytes(dst, b []byte) ([]byte, []byte, error) {
	for i := 0; i < len(b); i++ {
		if b[i] != 0 {
			dst = append(dst, b[i])
			continue
		}
		if i+1 >= len(b) {
			return nil, nil, errShortKey
		}
		switch b[i+1] {
		case 0xFF:
			dst = append(dst, 0)
			i++
		case 1:
			return dst, b[i+2:], nil
		default:
			return nil, nil, errors.New("table: bad escape in encoded bytes")
		}
	}
	return nil, nil, errShortKey
}

// AppendInt32 appends the order-preserving 4-byte encoding of v, which must fit in 32 bits.
func AppendInt32(dst []byte, v int64) []byte {
	return binary.BigEndian.AppendUint32(dst, uint32(int32(v))^(1<<31))
}

// DecodeInt32 decodes an integer encoded by AppendInt32 from the front of b and returns the rest.
func DecodeInt32(b []byte) (int64, []byte, error) {
	if len(b) < 4 {
		return 0, nil, errShortKey
	}
	return int64(int32(binary.BigEndian.Uint32(b) ^ (1 << 31))), b[4:], nil
}

// AppendValue appends the encoding of v as a value of type t.
func AppendValue(dst []byte, t Type, v Value) []byte {
	switch t {
	case Bytes:
		return AppendBytes(dst, v.B)
	case Int32:
		return AppendInt32(dst, v.I)
	}
	return AppendInt(dst, v.I)
}

// DecodeValue decodes a value of integer type t (Int64, Int32, Timestamp) from the front of b.
func DecodeValue(t Type, b []byte) (int64, []byte, error) {
	if t == Int32 {
		return DecodeInt32(b)
	}
	return DecodeInt(b)
}

var errShortKey = errors.New("table: encoded key is truncated")

// PrefixEnd returns the smallest key greater than every key with the given prefix, appended to
// dst, or nil when there is none (prefix is all 0xFF).
func PrefixEnd(dst, prefix []byte) []byte {
	dst = append(dst, prefix...)
	for i := len(dst) - 1; i >= len(dst)-len(prefix); i-- {
		if dst[i] != 0xFF {
			dst[i]++
			return dst[:i+1]
		}
	}
	return nil
}
