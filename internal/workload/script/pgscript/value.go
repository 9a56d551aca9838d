// Package pgscript reads pgbench's custom script files and evaluates pgbench's expression
// language: SQL commands with :name variables, and the meta-commands \set, \sleep, \if, \elif,
// \else, \endif, \gset and \aset. A script is parsed once into Commands; a client runs them on its
// own Vars with no allocation per expression (strings from \gset aside).
package pgscript

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Type is the type of a Value, as pgbench's expression language has them.
type Type uint8

const (
	// Undef is a variable never set.
	Undef Type = iota
	// Null is SQL's NULL.
	Null
	// Bool is true or false (I is 1 or 0).
	Bool
	// Int is a 64-bit integer (I).
	Int
	// Double is a float64 (F).
	Double
	// Str is a string that is no number, boolean or NULL (S), set by \gset.
	Str
)

// Value is one value of the expression language.
type Value struct {
	T Type
	I int64
	F float64
	S []byte
}

// IntValue returns the integer i.
func IntValue(i int64) Value { return Value{T: Int, I: i} }

// DoubleValue returns the double f.
func DoubleValue(f float64) Value { return Value{T: Double, F: f} }

// BoolValue returns the boolean b.
func BoolValue(b bool) Value {
	if b {
		return Value{T: Bool, I: 1}
	}
	return Value{T: Bool}
}

// NullValue is NULL.
var NullValue = Value{T: Null}

// ParseValue reads a value given as text (a result column of \gset, a -D definition) as pgbench
// does: "null" is NULL, true/false/yes/no/on/off (any case, as pgbench accepts their prefixes
// "t", "f", "y", "n") are booleans, then an integer, then a double; else the text is a string.
// A string is copied into new memory.
func ParseValue(text []byte, dst *Value) {
	s := strings.TrimSpace(string(text))
	if strings.EqualFold(s, "null") {
		*dst = Value{T: Null}
		return
	}
	if b, ok := parseBool(s); ok {
		*dst = BoolValue(b)
		return
	}
	if i, err := strconv.ParseInt(s, 10, 64); err == nil {
		*dst = Value{T: Int, I: i}
		return
	}
	if f, err := strconv.ParseFloat(s, 64); err == nil && s != "" && !strings.ContainsAny(s, "xXpP_") {
		*dst = Value{T: Double, F: f}
		return
	}
	*dst = Value{T: Str, S: append([]byte(nil), text...)} // new memory: values are copied by \set
}

// parseBool reads pgbench's boolean words: a non-empty prefix of true/false/yes/no (at least two
// letters for "on"/"off"), any case.
func parseBool(s string) (bool, bool) {
	l := strings.ToLower(s)
	switch {
	case l == "":
		return false, false
	case strings.HasPrefix("true", l), strings.HasPrefix("yes", l):
		return true, true
	case strings.HasPrefix("false", l), strings.HasPrefix("no", l):
		return false, true
	case len(l) >= 2 && strings.HasPrefix("on", l):
		return true, true
	case len(l) >= 2 && strings.HasPrefix("off", l):
		return false, true
	}
	return false, false
}

// Truth is the value as a condition (\if, AND, OR, NOT, CASE WHEN): booleans as they are, a
// number is true when not zero; NULL and strings are an error, as in pgbench.
func (v Value) Truth() (bool, error) {
	switch v.T {
	case Bool, Int:
		return v.I != 0, nil
	case Double:
		return v.F != 0, nil
	case Null:
		return false, fmt.Errorf("cannot coerce NULL to boolean")
	}
	return false, fmt.Errorf("cannot coerce %s to boolean", v)
}

// AsInt is the value as an integer: a double is truncated toward zero and must fit int64.
func (v Value) AsInt() (int64, error) {
	switch v.T {
	case Int:
		return v.I, nil
	case Double:
		if math.IsNaN(v.F) || v.F < -9.223372036854775808e18 || v.F >= 9.223372036854775808e18 {
			return 0, fmt.Errorf("double to int overflow for %g", v.F)
		}
		return int64(v.F), nil
	}
	return 0, fmt.Errorf("cannot coerce %s to int", v)
}

// AsDouble is the value as a double.
func (v Value) AsDouble() (float64, error) {
	switch v.T {
	case Int:
		return float64(v.I), nil
	case Double:
		return v.F, nil
	}
	return 0, fmt.Errorf("cannot coerce %s to double", v)
}

// String renders the value as pgbench binds it to a statement's parameter.
func (v Value) String() string { return string(v.AppendText(nil)) }

// AppendText appends the value's text as pgbench sends it: integers in decimal, doubles with
// %.15g, booleans as true/false, strings as they are; NULL and an unset variable as "".
func (v Value) AppendText(b []byte) []byte {
	switch v.T {
	case Int:
		return strconv.AppendInt(b, v.I, 10)
	case Double:
		return strconv.AppendFloat(b, v.F, 'g', 15, 64)
	case Bool:
		if v.I != 0 {
			return append(b, "true"...)
		}
		return append(b, "false"...)
	case Str:
		return append(b, v.S...)
	}
	return b
}
