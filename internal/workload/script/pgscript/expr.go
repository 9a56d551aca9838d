package pgscript

import (
	"fmt"
	"strings"
)

// MaxExprDepth bounds the nesting of an expression (operators, parentheses, function calls).
const MaxExprDepth = 64

// op is what an expression node computes.
type op uint8

const (
	opConst op = iota
	opVar
	opAdd
	opSub
	opMul
	opDiv
	opMod
	opLt
	opLe
	opEq
	opNe
	opBitAnd
	opBitOr
	opBitXor
	opShl
	opShr
	opAnd
	opOr
	opNot
	opIs
	opCase
	fAbs
	fLeast
	fGreatest
	fDebug
	fPi
	fSqrt
	fLn
	fExp
	fInt
	fDouble
	fRandom
	fRandomGaussian
	fRandomExponential
	fRandomZipfian
	fPow
	fHashMurmur2
	fHashFNV1a
	fPermute
)

// function is one of pgbench's functions: its op and argument count (-1: one or more; for
// hashes and permute the least count, the seed being optional).
type function struct {
	op    op
	nargs int
	seed  bool // the last argument is an optional seed (default :default_seed)
}

var functions = map[string]function{
	"abs": {fAbs, 1, false}, "least": {fLeast, -1, false}, "greatest": {fGreatest, -1, false},
	"debug": {fDebug, 1, false}, "pi": {fPi, 0, false}, "sqrt": {fSqrt, 1, false},
	"ln": {fLn, 1, false}, "exp": {fExp, 1, false}, "int": {fInt, 1, false},
	"double": {fDouble, 1, false}, "random": {fRandom, 2, false},
	"random_gaussian": {fRandomGaussian, 3, false}, "random_exponential": {fRandomExponential, 3, false},
	"random_zipfian": {fRandomZipfian, 3, false}, "pow": {fPow, 2, false}, "power": {fPow, 2, false},
	"hash": {fHashMurmur2, 1, true}, "hash_murmur2": {fHashMurmur2, 1, true},
	"hash_fnv1a": {fHashFNV1a, 1, true}, "permute": {fPermute, 2, true},
}

// FunctionNames lists the functions the language knows, for error messages.
const FunctionNames = "abs, least, greatest, debug, pi, sqrt, ln, exp, int, double, random, random_gaussian, random_exponential, random_zipfian, pow, power, hash, hash_murmur2, hash_fnv1a, permute"

// Expr is a parsed expression.
type Expr struct {
	op   op
	val  Value // opConst
	slot int   // opVar
	name string
	args []*Expr
}

// Names maps variable names to slots in a client's Vars; scripts of one run share it, as the
// variables of a pgbench client are shared by its scripts.
type Names struct {
	slots map[string]int
	names []string
}

// NewNames returns a table that holds pgbench's automatic variables: scale, client_id,
// default_seed and random_seed, in slots SlotScale...SlotRandomSeed.
func NewNames() *Names {
	n := &Names{slots: map[string]int{}}
	for _, s := range []string{"scale", "client_id", "default_seed", "random_seed"} {
		n.Slot(s)
	}
	return n
}

// Slots of the automatic variables.
const (
	SlotScale = iota
	SlotClientID
	SlotDefaultSeed
	SlotRandomSeed
)

// MaxVariables bounds the distinct variable names of a run's scripts.
const MaxVariables = 1000

// Slot returns the slot of name, adding it when new (-1 when the table is full).
func (n *Names) Slot(name string) int {
	if s, ok := n.slots[name]; ok {
		return s
	}
	if len(n.names) >= MaxVariables {
		return -1
	}
	n.slots[name] = len(n.names)
	n.names = append(n.names, name)
	return len(n.names) - 1
}

// Len is the number of slots.
func (n *Names) Len() int { return len(n.names) }

// Name returns the name of slot s.
func (n *Names) Name(s int) string { return n.names[s] }

// Lookup returns the slot of name and whether it exists.
func (n *Names) Lookup(name string) (int, bool) {
	s, ok := n.slots[name]
	return s, ok
}

// ParseExpr parses src, an expression of pgbench's language, resolving its variables in names.
func ParseExpr(src string, names *Names) (*Expr, error) {
	toks, err := lexExpr(src)
	if err != nil {
		return nil, err
	}
	p := &parser{toks: toks, names: names}
	e, err := p.expr(1)
	if err != nil {
		return nil, err
	}
	if t := p.peek(); t.k != tEOF {
		return nil, fmt.Errorf("at column %d: unexpected %s after the expression", t.pos+1, tokText(t))
	}
	return e, nil
}

type parser struct {
	toks  []token
	at    int
	depth int
	names *Names
}

func (p *parser) peek() token { return p.toks[p.at] }
func (p *parser) next() token {
	t := p.toks[p.at]
	if t.k != tEOF {
		p.at++
	}
	return t
}

func tokText(t token) string {
	switch t.k {
	case tEOF:
		return "end of expression"
	case tInt:
		return fmt.Sprint(t.i)
	case tDouble:
		return fmt.Sprint(t.f)
	case tVar:
		return ":" + t.s
	}
	return fmt.Sprintf("%q", t.s)
}

// Binary precedence levels, as in pgbench's exprparse.y (higher binds tighter).
const (
	precOr = 1 + iota
	precAnd
	precNot
	precIs
	precCmp
	precBit
	precAdd
	precMul
	precUnary
)

// binary returns the operator of t and its level, or 0.
func binary(t token) (op, int) {
	switch t.k {
	case tOr:
		return opOr, precOr
	case tAnd:
		return opAnd, precAnd
	case tOp:
		switch t.s {
		case "<", ">", "<=", ">=", "=", "<>":
			return opLt, precCmp // the exact op is chosen by the caller
		case "|":
			return opBitOr, precBit
		case "#":
			return opBitXor, precBit
		case "&":
			return opBitAnd, precBit
		case "<<":
			return opShl, precBit
		case ">>":
			return opShr, precBit
		case "+":
			return opAdd, precAdd
		case "-":
			return opSub, precAdd
		case "*":
			return opMul, precMul
		case "/":
			return opDiv, precMul
		case "%":
			return opMod, precMul
		}
	}
	return 0, 0
}

func mk(o op, args ...*Expr) *Expr { return &Expr{op: o, args: args} }

// expr parses an expression whose binary operators bind at least as tightly as min.
func (p *parser) expr(min int) (*Expr, error) {
	p.depth++
	defer func() { p.depth-- }()
	if p.depth > MaxExprDepth {
		return nil, fmt.Errorf("expression nested more than %d deep", MaxExprDepth)
	}
	left, err := p.unary()
	if err != nil {
		return nil, err
	}
	lastCmp := false
	for {
		t := p.peek()
		if (t.k == tIs || t.k == tIsNull || t.k == tNotNull) && min <= precIs {
			p.next()
			if left, err = p.isTest(t, left); err != nil {
				return nil, err
			}
			continue
		}
		o, prec := binary(t)
		if prec == 0 || prec < min {
			return left, nil
		}
		if prec == precCmp {
			if lastCmp {
				return nil, fmt.Errorf("at column %d: comparisons do not chain (write a < b AND b < c)", t.pos+1)
			}
			lastCmp = true
		}
		p.next()
		right, err := p.expr(prec + 1)
		if err != nil {
			return nil, err
		}
		if prec == precCmp {
			switch t.s {
			case "<":
				left = mk(opLt, left, right)
			case "<=":
				left = mk(opLe, left, right)
			case ">":
				left = mk(opLt, right, left)
			case ">=":
				left = mk(opLe, right, left)
			case "=":
				left = mk(opEq, left, right)
			default:
				left = mk(opNe, left, right)
			}
			continue
		}
		left = mk(o, left, right)
	}
}

// isTest parses the rest of x IS [NOT] NULL|TRUE|FALSE, x ISNULL, x NOTNULL.
func (p *parser) isTest(t token, left *Expr) (*Expr, error) {
	switch t.k {
	case tIsNull:
		return mk(opIs, left, &Expr{op: opConst, val: NullValue}), nil
	case tNotNull:
		return mk(opNot, mk(opIs, left, &Expr{op: opConst, val: NullValue})), nil
	}
	neg := false
	if p.peek().k == tNot {
		p.next()
		neg = true
	}
	var v Value
	switch n := p.next(); n.k {
	case tNull:
		v = NullValue
	case tTrue:
		v = BoolValue(true)
	case tFalse:
		v = BoolValue(false)
	default:
		return nil, fmt.Errorf("at column %d: IS takes NULL, TRUE or FALSE, not %s", n.pos+1, tokText(n))
	}
	e := mk(opIs, left, &Expr{op: opConst, val: v})
	if neg {
		e = mk(opNot, e)
	}
	return e, nil
}

// unary parses a prefix operator and its operand, or a primary.
func (p *parser) unary() (*Expr, error) {
	t := p.peek()
	switch {
	case t.k == tNot:
		p.next()
		x, err := p.expr(precNot)
		if err != nil {
			return nil, err
		}
		return mk(opNot, x), nil
	case t.k == tOp && t.s == "-":
		p.next()
		if p.peek().k == tMaxIntPlusOne {
			p.next()
			return &Expr{op: opConst, val: IntValue(-9223372036854775808)}, nil
		}
		x, err := p.expr(precUnary)
		if err != nil {
			return nil, err
		}
		return mk(opSub, &Expr{op: opConst, val: IntValue(0)}, x), nil
	case t.k == tOp && t.s == "+":
		p.next()
		return p.expr(precUnary)
	case t.k == tOp && t.s == "~":
		p.next()
		x, err := p.expr(precBit + 1)
		if err != nil {
			return nil, err
		}
		return mk(opBitXor, &Expr{op: opConst, val: IntValue(-1)}, x), nil
	}
	return p.primary()
}

func (p *parser) primary() (*Expr, error) {
	t := p.next()
	switch t.k {
	case tInt:
		return &Expr{op: opConst, val: IntValue(t.i)}, nil
	case tDouble:
		return &Expr{op: opConst, val: DoubleValue(t.f)}, nil
	case tNull:
		return &Expr{op: opConst, val: NullValue}, nil
	case tTrue:
		return &Expr{op: opConst, val: BoolValue(true)}, nil
	case tFalse:
		return &Expr{op: opConst, val: BoolValue(false)}, nil
	case tMaxIntPlusOne:
		return nil, fmt.Errorf("at column %d: bigint constant 9223372036854775808 is out of range", t.pos+1)
	case tVar:
		s := p.names.Slot(t.s)
		if s < 0 {
			return nil, fmt.Errorf("more than %d variables", MaxVariables)
		}
		return &Expr{op: opVar, slot: s, name: t.s}, nil
	case tCase:
		return p.caseExpr()
	case tIdent:
		return p.call(t)
	case tOp:
		if t.s == "(" {
			e, err := p.expr(1)
			if err != nil {
				return nil, err
			}
			if c := p.next(); c.k != tOp || c.s != ")" {
				return nil, fmt.Errorf("at column %d: ')' expected, got %s", c.pos+1, tokText(c))
			}
			return e, nil
		}
	}
	return nil, fmt.Errorf("at column %d: unexpected %s", t.pos+1, tokText(t))
}

func (p *parser) call(t token) (*Expr, error) {
	f, ok := functions[t.s]
	if !ok {
		return nil, fmt.Errorf("at column %d: unknown function %q (valid: %s)", t.pos+1, t.s, FunctionNames)
	}
	if c := p.next(); c.k != tOp || c.s != "(" {
		return nil, fmt.Errorf("at column %d: '(' expected after %s", c.pos+1, t.s)
	}
	var args []*Expr
	if c := p.peek(); c.k == tOp && c.s == ")" {
		p.next()
	} else {
		for {
			a, err := p.expr(1)
			if err != nil {
				return nil, err
			}
			args = append(args, a)
			c := p.next()
			if c.k == tOp && c.s == ")" {
				break
			}
			if c.k != tOp || c.s != "," {
				return nil, fmt.Errorf("at column %d: ',' or ')' expected in the arguments of %s, got %s", c.pos+1, t.s, tokText(c))
			}
		}
	}
	switch {
	case f.nargs < 0 && len(args) == 0:
		return nil, fmt.Errorf("%s takes at least one argument", t.s)
	case f.seed && (len(args) < f.nargs || len(args) > f.nargs+1):
		return nil, fmt.Errorf("%s takes %d or %d arguments, got %d", t.s, f.nargs, f.nargs+1, len(args))
	case !f.seed && f.nargs >= 0 && len(args) != f.nargs:
		return nil, fmt.Errorf("%s takes %d arguments, got %d", t.s, f.nargs, len(args))
	}
	if f.seed && len(args) == f.nargs {
		args = append(args, &Expr{op: opVar, slot: SlotDefaultSeed, name: "default_seed"})
	}
	return &Expr{op: f.op, args: args, name: t.s}, nil
}

// caseExpr parses CASE WHEN c THEN v ... [ELSE e] END into args c1, v1, ..., else.
func (p *parser) caseExpr() (*Expr, error) {
	e := &Expr{op: opCase}
	for p.peek().k == tWhen {
		p.next()
		c, err := p.expr(1)
		if err != nil {
			return nil, err
		}
		if t := p.next(); t.k != tThen {
			return nil, fmt.Errorf("at column %d: THEN expected, got %s", t.pos+1, tokText(t))
		}
		v, err := p.expr(1)
		if err != nil {
			return nil, err
		}
		e.args = append(e.args, c, v)
	}
	if len(e.args) == 0 {
		t := p.peek()
		return nil, fmt.Errorf("at column %d: WHEN expected after CASE", t.pos+1)
	}
	var els *Expr
	if p.peek().k == tElse {
		p.next()
		var err error
		if els, err = p.expr(1); err != nil {
			return nil, err
		}
	} else {
		els = &Expr{op: opConst, val: NullValue}
	}
	if t := p.next(); t.k != tEnd {
		return nil, fmt.Errorf("at column %d: END expected to close CASE, got %s", t.pos+1, tokText(t))
	}
	e.args = append(e.args, els)
	return e, nil
}

// eachVar calls fn with the slot of each variable e reads.
func (e *Expr) eachVar(fn func(slot int)) {
	if e.op == opVar {
		fn(e.slot)
	}
	for _, a := range e.args {
		a.eachVar(fn)
	}
}

// String renders e for messages (functions by name, operators by op number).
func (e *Expr) String() string {
	var b strings.Builder
	e.render(&b)
	return b.String()
}

func (e *Expr) render(b *strings.Builder) {
	switch e.op {
	case opConst:
		if e.val.T == Null {
			b.WriteString("NULL")
		} else {
			b.WriteString(e.val.String())
		}
		return
	case opVar:
		b.WriteString(":" + e.name)
		return
	}
	fmt.Fprintf(b, "%s(", opName(e))
	for i, a := range e.args {
		if i > 0 {
			b.WriteString(", ")
		}
		a.render(b)
	}
	b.WriteString(")")
}

var opNames = map[op]string{opAdd: "+", opSub: "-", opMul: "*", opDiv: "/", opMod: "%", opLt: "<", opLe: "<=",
	opEq: "=", opNe: "<>", opBitAnd: "&", opBitOr: "|", opBitXor: "#", opShl: "<<", opShr: ">>", opAnd: "AND",
	opOr: "OR", opNot: "NOT", opIs: "IS", opCase: "CASE"}

func opName(e *Expr) string {
	if n, ok := opNames[e.op]; ok {
		return n
	}
	return e.name
}
