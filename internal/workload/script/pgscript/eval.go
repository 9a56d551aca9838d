package pgscript

import (
	"errors"
	"fmt"
	"math"
)

// Vars are one client's variables (slots of a Names table) and its random generator.
type Vars struct {
	V    []Value
	Rand *Rand
}

// NewVars returns the variables of client clientID (counted from 0) of a run at scale, its
// random numbers from seed; default_seed and random_seed are seed, as pgbench sets them from
// its base seed.
func NewVars(names *Names, scale int64, clientID int, seed uint64) *Vars {
	v := &Vars{V: make([]Value, names.Len()), Rand: NewRand(seed ^ uint64(clientID+1)*0x9E3779B97F4A7C15)}
	v.V[SlotScale] = IntValue(scale)
	v.V[SlotClientID] = IntValue(int64(clientID))
	v.V[SlotDefaultSeed] = IntValue(int64(seed))
	v.V[SlotRandomSeed] = IntValue(int64(seed))
	return v
}

var (
	errBigint  = errors.New("bigint out of range")
	errDivZero = errors.New("division by zero")
)

// Eval evaluates e on vars.
func (e *Expr) Eval(vars *Vars) (Value, error) {
	switch e.op {
	case opConst:
		return e.val, nil
	case opVar:
		v := vars.V[e.slot]
		if v.T == Undef {
			return v, fmt.Errorf("undefined variable %q", e.name)
		}
		return v, nil
	case opAnd, opOr:
		return e.logical(vars)
	case opCase:
		for i := 0; i+1 < len(e.args); i += 2 {
			c, err := e.args[i].Eval(vars)
			if err != nil {
				return c, err
			}
			if c.T == Null {
				continue
			}
			ok, err := c.Truth()
			if err != nil {
				return c, err
			}
			if ok {
				return e.args[i+1].Eval(vars)
			}
		}
		return e.args[len(e.args)-1].Eval(vars)
	}
	var a [3]Value
	if len(e.args) <= len(a) {
		for i, x := range e.args {
			v, err := x.Eval(vars)
			if err != nil {
				return v, err
			}
			a[i] = v
		}
	}
	switch e.op {
	case opAdd, opSub, opMul, opDiv, opMod:
		return arith(e.op, a[0], a[1])
	case opLt, opLe, opEq, opNe:
		return compare(e.op, a[0], a[1])
	case opBitAnd, opBitOr, opBitXor, opShl, opShr:
		return bitwise(e.op, a[0], a[1])
	case opNot:
		if a[0].T == Null {
			return NullValue, nil
		}
		b, err := a[0].Truth()
		return BoolValue(!b), err
	case opIs:
		l, r := a[0], a[1]
		if r.T == Null {
			return BoolValue(l.T == Null), nil
		}
		return BoolValue(l.T == Bool && l.I == r.I), nil
	case fLeast, fGreatest:
		return e.extreme(vars)
	}
	return call(e.op, a[:len(e.args)], vars)
}

// logical evaluates AND and OR lazily, with SQL's three-valued logic.
func (e *Expr) logical(vars *Vars) (Value, error) {
	l, err := e.args[0].Eval(vars)
	if err != nil {
		return l, err
	}
	stop := e.op == opOr // OR stops at true, AND at false
	if l.T != Null {
		b, err := l.Truth()
		if err != nil {
			return l, err
		}
		if b == stop {
			return BoolValue(stop), nil
		}
	}
	r, err := e.args[1].Eval(vars)
	if err != nil {
		return r, err
	}
	if r.T == Null {
		return NullValue, nil
	}
	b, err := r.Truth()
	if err != nil {
		return r, err
	}
	if b == stop {
		return BoolValue(stop), nil
	}
	if l.T == Null {
		return NullValue, nil
	}
	return BoolValue(b), nil
}

func (e *Expr) extreme(vars *Vars) (Value, error) {
	var best Value
	best.T = Null
	dbl := false
	for _, x := range e.args {
		v, err := x.Eval(vars)
		if err != nil {
			return v, err
		}
		switch v.T {
		case Null:
			continue
		case Double:
			dbl = true
		case Int:
		default:
			return v, fmt.Errorf("%s: cannot take a %s argument", e.name, v)
		}
		if best.T == Null {
			best = v
			continue
		}
		bd, _ := best.AsDouble()
		vd, _ := v.AsDouble()
		var better bool
		if best.T == Int && v.T == Int {
			better = (e.op == fLeast && v.I < best.I) || (e.op == fGreatest && v.I > best.I)
		} else {
			better = (e.op == fLeast && vd < bd) || (e.op == fGreatest && vd > bd)
		}
		if better {
			best = v
		}
	}
	if dbl && best.T == Int {
		best = DoubleValue(float64(best.I))
	}
	return best, nil
}

func arith(o op, l, r Value) (Value, error) {
	if l.T == Null || r.T == Null {
		return NullValue, nil
	}
	if o != opMod && (l.T == Double || r.T == Double) {
		x, err := l.AsDouble()
		if err != nil {
			return l, err
		}
		y, err := r.AsDouble()
		if err != nil {
			return r, err
		}
		switch o {
		case opAdd:
			return DoubleValue(x + y), nil
		case opSub:
			return DoubleValue(x - y), nil
		case opMul:
			return DoubleValue(x * y), nil
		}
		return DoubleValue(x / y), nil
	}
	x, err := l.AsInt()
	if err != nil {
		return l, err
	}
	y, err := r.AsInt()
	if err != nil {
		return r, err
	}
	switch o {
	case opAdd:
		s := x + y
		if (s > x) != (y > 0) {
			return l, errBigint
		}
		return IntValue(s), nil
	case opSub:
		s := x - y
		if (s < x) != (y > 0) {
			return l, errBigint
		}
		return IntValue(s), nil
	case opMul:
		if x != 0 && y != 0 {
			p := x * y
			if p/y != x || (x == -1 && y == math.MinInt64) || (y == -1 && x == math.MinInt64) {
				return l, errBigint
			}
			return IntValue(p), nil
		}
		return IntValue(0), nil
	case opDiv:
		if y == 0 {
			return l, errDivZero
		}
		if y == -1 {
			if x == math.MinInt64 {
				return l, errBigint
			}
			return IntValue(-x), nil
		}
		return IntValue(x / y), nil
	}
	if y == 0 {
		return l, errDivZero
	}
	if y == -1 {
		return IntValue(0), nil
	}
	return IntValue(x % y), nil
}

func compare(o op, l, r Value) (Value, error) {
	if l.T == Null || r.T == Null {
		return NullValue, nil
	}
	var c int
	if l.T == Double || r.T == Double {
		x, err := l.AsDouble()
		if err != nil {
			return l, err
		}
		y, err := r.AsDouble()
		if err != nil {
			return r, err
		}
		c = cmp3(x < y, x == y)
	} else {
		x, err := l.AsInt()
		if err != nil {
			return l, err
		}
		y, err := r.AsInt()
		if err != nil {
			return r, err
		}
		c = cmp3(x < y, x == y)
	}
	switch o {
	case opLt:
		return BoolValue(c < 0), nil
	case opLe:
		return BoolValue(c <= 0), nil
	case opEq:
		return BoolValue(c == 0), nil
	}
	return BoolValue(c != 0), nil
}

func cmp3(less, eq bool) int {
	switch {
	case less:
		return -1
	case eq:
		return 0
	}
	return 1
}

func bitwise(o op, l, r Value) (Value, error) {
	if l.T == Null || r.T == Null {
		return NullValue, nil
	}
	x, err := l.AsInt()
	if err != nil {
		return l, err
	}
	y, err := r.AsInt()
	if err != nil {
		return r, err
	}
	switch o {
	case opBitAnd:
		return IntValue(x & y), nil
	case opBitOr:
		return IntValue(x | y), nil
	case opBitXor:
		return IntValue(x ^ y), nil
	}
	if y < 0 || y > 63 {
		return r, fmt.Errorf("shift by %d: the count must be in [0, 63]", y)
	}
	if o == opShl {
		return IntValue(x << uint(y)), nil
	}
	return IntValue(x >> uint(y)), nil
}

// call evaluates a function on its evaluated arguments: NULL when one is NULL (but debug's).
func call(o op, a []Value, vars *Vars) (Value, error) {
	for _, v := range a {
		if v.T == Null && o != fDebug {
			return NullValue, nil
		}
	}
	switch o {
	case fDebug:
		return a[0], nil
	case fPi:
		return DoubleValue(math.Pi), nil
	case fAbs:
		return abs(a[0])
	case fInt, fDouble, fSqrt, fLn, fExp, fPow:
		return numeric(o, a)
	case fHashMurmur2, fHashFNV1a:
		return hash(o, a)
	case fPermute:
		return permute(a)
	}
	return random(o, a, vars)
}

// abs is abs(v), refusing the integer whose absolute value is no bigint.
func abs(v Value) (Value, error) {
	if v.T == Double {
		return DoubleValue(math.Abs(v.F)), nil
	}
	x, err := v.AsInt()
	if err != nil {
		return v, err
	}
	if x == math.MinInt64 {
		return v, errBigint
	}
	if x < 0 {
		x = -x
	}
	return IntValue(x), nil
}

// numeric evaluates int, double, sqrt, ln, exp and pow.
func numeric(o op, a []Value) (Value, error) {
	if o == fInt {
		x, err := a[0].AsInt()
		return IntValue(x), err
	}
	x, err := a[0].AsDouble()
	if err != nil {
		if o == fDouble {
			return DoubleValue(x), err
		}
		return a[0], err
	}
	switch o {
	case fDouble:
		return DoubleValue(x), nil
	case fSqrt:
		return DoubleValue(math.Sqrt(x)), nil
	case fLn:
		return DoubleValue(math.Log(x)), nil
	case fExp:
		return DoubleValue(math.Exp(x)), nil
	}
	y, err := a[1].AsDouble()
	return DoubleValue(math.Pow(x, y)), err
}

// hash evaluates hash_murmur2 and hash_fnv1a of a value and a seed.
func hash(o op, a []Value) (Value, error) {
	v, err := a[0].AsInt()
	if err != nil {
		return a[0], err
	}
	seed, err := a[1].AsInt()
	if err != nil {
		return a[1], err
	}
	if o == fHashFNV1a {
		return IntValue(HashFNV1a(v, uint64(seed))), nil
	}
	return IntValue(HashMurmur2(v, uint64(seed))), nil
}

// permute evaluates permute(i, size, seed).
func permute(a []Value) (Value, error) {
	var x [3]int64
	for i := range x {
		var err error
		if x[i], err = a[i].AsInt(); err != nil {
			return a[i], err
		}
	}
	if x[1] <= 0 {
		return a[1], fmt.Errorf("permute size parameter must be greater than zero (not %d)", x[1])
	}
	return IntValue(Permute(x[0], x[1], x[2])), nil
}

// random evaluates the random functions: random(lo, hi), and random_gaussian,
// random_exponential and random_zipfian with their parameter.
func random(o op, a []Value, vars *Vars) (Value, error) {
	lo, err := a[0].AsInt()
	if err != nil {
		return a[0], err
	}
	hi, err := a[1].AsInt()
	if err != nil {
		return a[1], err
	}
	if err := checkRange(lo, hi); err != nil {
		return a[0], err
	}
	if o == fRandom {
		return IntValue(Uniform(vars.Rand, lo, hi)), nil
	}
	p, err := a[2].AsDouble()
	if err != nil {
		return a[2], err
	}
	switch o {
	case fRandomGaussian:
		if !(p >= MinGaussian) {
			return a[2], fmt.Errorf("gaussian parameter must be at least %g (not %g)", MinGaussian, p)
		}
		return IntValue(Gaussian(vars.Rand, lo, hi, p)), nil
	case fRandomExponential:
		if !(p > 0) {
			return a[2], fmt.Errorf("exponential parameter must be greater than zero (not %g)", p)
		}
		return IntValue(Exponential(vars.Rand, lo, hi, p)), nil
	}
	if !(p >= MinZipfian && p <= MaxZipfian) {
		return a[2], fmt.Errorf("zipfian parameter must be in range [%g, %g] (not %g)", MinZipfian, MaxZipfian, p)
	}
	return IntValue(Zipfian(vars.Rand, lo, hi, p)), nil
}
