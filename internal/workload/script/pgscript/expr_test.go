package pgscript

import (
	"math"
	"strings"
	"testing"
)

func eval(t *testing.T, src string, vars map[string]Value) (Value, error) {
	t.Helper()
	names := NewNames()
	e, err := ParseExpr(src, names)
	if err != nil {
		return Value{}, err
	}
	v := NewVars(names, 1, 0, 42)
	for k, x := range vars {
		v.V[names.Slot(k)] = x
	}
	if len(v.V) < names.Len() {
		v.V = append(v.V, make([]Value, names.Len()-len(v.V))...)
	}
	return e.Eval(v)
}

// TestExprValues checks values, the examples of pgbench's documentation among them.
func TestExprValues(t *testing.T) {
	cases := []struct {
		src  string
		want string
	}{
		{"1 + 2 * 3", "7"},
		{"(1 + 2) * 3", "9"},
		{"7 / 2", "3"},
		{"-7 / 2", "-3"},
		{"7 % 3", "1"},
		{"-7 % 3", "-1"},
		{"5 % -1", "0"},
		{"7.0 / 2", "3.5"},
		{"1 + 2.5", "3.5"},
		{"2 - 3 - 4", "-5"},
		{"1 << 4 | 1", "17"},
		{"5 & 3 # 1", "0"},
		{"~0", "-1"},
		{"-9223372036854775808", "-9223372036854775808"},
		{"1 < 2", "true"},
		{"2 >= 3", "false"},
		{"1 = 1.0", "true"},
		{"1 != 2", "true"},
		{"1 <> 1", "false"},
		{"NOT 1 = 2", "true"},
		{"true AND false OR true", "true"},
		{"NULL IS NULL", "true"},
		{"1 ISNULL", "false"},
		{"1 NOTNULL", "true"},
		{"true IS NOT FALSE", "true"},
		{"NULL AND false", "false"},
		{"NULL OR true", "true"},
		{"CASE WHEN 1 > 2 THEN 10 WHEN 2 > 1 THEN 20 ELSE 30 END", "20"},
		{"CASE WHEN false THEN 1 END IS NULL", "true"},
		{"abs(-17)", "17"},
		{"abs(-17.5)", "17.5"},
		{"least(5, 4, 3, 2)", "2"},
		{"greatest(5, 4, 3, 2)", "5"},
		{"least(5, 4, 3, 2.0)", "2"},
		{"greatest(1, 2.5)", "2.5"},
		{"int(5.4 + 3.8)", "9"},
		{"double(5432)", "5432"},
		{"sqrt(2.0)", "1.4142135623731"},
		{"pi()", "3.14159265358979"},
		{"pow(2.0, 10)", "1024"},
		{"power(2.0, 10)", "1024"},
		{"exp(1.0)", "2.71828182845905"},
		{"ln(2.718281828459045)", "1"},
		{"debug(1+1)", "2"},
		{"5 * :scale", "5"},
		{":client_id", "0"},
		{"hash_fnv1a(10, 5432)", "-7793829335365542153"},
		{"hash_murmur2(10, 5432)", "-5817877081768721676"},
		{"hash(10, 5432)", "-5817877081768721676"},
		{"random(5, 5)", "5"},
		{"random_zipfian(7, 7, 1.5)", "7"},
		{"1e3 + .5", "1000.5"},
	}
	for _, c := range cases {
		v, err := eval(t, c.src, nil)
		if err != nil {
			t.Errorf("%s: %v", c.src, err)
			continue
		}
		if got := v.String(); got != c.want {
			t.Errorf("%s = %s, want %s", c.src, got, c.want)
		}
	}
}

// TestExprErrors checks that bad expressions and bad values are refused with what is valid.
func TestExprErrors(t *testing.T) {
	cases := []struct{ src, want string }{
		{"1 +", "unexpected end of expression"},
		{"foo(1)", "unknown function"},
		{"random(1)", "random takes 2 arguments"},
		{"least()", "at least one argument"},
		{"1 < 2 < 3", "do not chain"},
		{"9223372036854775807 + 1", "bigint out of range"},
		{"1 / 0", "division by zero"},
		{"1 % 0", "division by zero"},
		{"random(5, 1)", "empty range"},
		{"random_gaussian(1, 10, 1.5)", "gaussian parameter must be at least 2"},
		{"random_exponential(1, 10, 0)", "exponential parameter must be greater than zero"},
		{"random_zipfian(1, 10, 1.0)", "zipfian parameter must be in range [1.001, 1000]"},
		{":nosuch + 1", `undefined variable "nosuch"`},
		{"NULL AND 1 = 1 OR", "unexpected end"},
		{"1 ? 2", "unexpected character"},
		{"9223372036854775808", "out of range"},
		{"1 << 64", "shift"},
		{"permute(1, 0)", "permute size"},
		{strings.Repeat("(", 100) + "1" + strings.Repeat(")", 100), "nested more than"},
	}
	for _, c := range cases {
		_, err := eval(t, c.src, nil)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one containing %q", c.src, err, c.want)
		}
	}
}

// TestRandomRanges checks that the random functions stay in their range and that Zipfian draws
// have Zipf's frequencies. (The hash values of TestExprValues are those pgbench's own regression
// test expects for hash_fnv1a(10, 5432) and hash_murmur2(10, 5432).)
func TestRandomRanges(t *testing.T) {
	r := NewRand(7)
	for i := 0; i < 20000; i++ {
		if x := Uniform(r, -3, 3); x < -3 || x > 3 {
			t.Fatalf("uniform %d", x)
		}
		if x := Zipfian(r, 1, 100, 1.2); x < 1 || x > 100 {
			t.Fatalf("zipfian %d", x)
		}
		if x := Exponential(r, 10, 20, 3); x < 10 || x > 20 {
			t.Fatalf("exponential %d", x)
		}
		if x := Gaussian(r, 10, 20, 2.5); x < 10 || x > 20 {
			t.Fatalf("gaussian %d", x)
		}
	}
	// Zipfian with s=2 over a large n: P(1) = 1/zeta(2) ≈ 0.608.
	n1 := 0
	for i := 0; i < 100000; i++ {
		if Zipfian(r, 1, 1_000_000, 2) == 1 {
			n1++
		}
	}
	if p := float64(n1) / 100000; math.Abs(p-6/(math.Pi*math.Pi)) > 0.01 {
		t.Errorf("zipfian(s=2) drew 1 with frequency %.3f, want %.3f", p, 6/(math.Pi*math.Pi))
	}
}

// TestPermute checks that permute maps [0, size) onto itself one to one.
func TestPermute(t *testing.T) {
	for _, size := range []int64{2, 3, 10, 1000} {
		seen := map[int64]bool{}
		for v := int64(0); v < size; v++ {
			x := Permute(v, size, 5432)
			if x < 0 || x >= size || seen[x] {
				t.Fatalf("size %d: permute(%d) = %d (seen %v)", size, v, x, seen[x])
			}
			seen[x] = true
		}
	}
}

// TestParseValue checks how \gset results become values.
func TestParseValue(t *testing.T) {
	cases := map[string]Value{"12": IntValue(12), " -3 ": IntValue(-3), "1.5": DoubleValue(1.5), "NULL": NullValue,
		"true": BoolValue(true), "off": BoolValue(false), "t": BoolValue(true)}
	for in, want := range cases {
		var v Value
		ParseValue([]byte(in), &v)
		if v.T != want.T || v.I != want.I || v.F != want.F {
			t.Errorf("%q: %+v, want %+v", in, v, want)
		}
	}
	var v Value
	ParseValue([]byte("abc"), &v)
	if v.T != Str || string(v.S) != "abc" {
		t.Errorf("abc: %+v", v)
	}
}
