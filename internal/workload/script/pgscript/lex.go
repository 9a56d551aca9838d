package pgscript

import (
	"fmt"
	"strconv"
	"strings"
)

// tokKind is a token of the expression language (pgbench's exprscan.l).
type tokKind uint8

const (
	tEOF tokKind = iota
	tInt
	tMaxIntPlusOne // 9223372036854775808, valid only after a unary minus
	tDouble
	tVar
	tIdent // a function name
	tOp    // an operator or punctuation: text in s
	tAnd
	tOr
	tNot
	tIs
	tIsNull
	tNotNull
	tNull
	tTrue
	tFalse
	tCase
	tWhen
	tThen
	tElse
	tEnd
)

type token struct {
	k   tokKind
	s   string // operator text, variable or function name
	i   int64
	f   float64
	pos int
}

var keywords = map[string]tokKind{
	"and": tAnd, "or": tOr, "not": tNot, "is": tIs, "isnull": tIsNull, "notnull": tNotNull,
	"null": tNull, "true": tTrue, "false": tFalse, "case": tCase, "when": tWhen, "then": tThen,
	"else": tElse, "end": tEnd,
}

// twoCharOps are the operators of two characters; the one-character ones are in oneCharOps.
var twoCharOps = []string{"<=", ">=", "<>", "!=", "<<", ">>"}

const oneCharOps = "+-*/%&|#~<>=(),"

func identChar(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c >= 0x80
}

func digit(c byte) bool { return c >= '0' && c <= '9' }

// lexExpr splits an expression into tokens.
func lexExpr(src string) ([]token, error) {
	var out []token
	i := 0
	for i < len(src) {
		c := src[i]
		switch {
		case c == ' ' || c == '\t' || c == '\r' || c == '\n':
			i++
		case c == ':':
			j := i + 1
			for j < len(src) && identChar(src[j]) {
				j++
			}
			if j == i+1 {
				return nil, fmt.Errorf("at column %d: ':' must start a variable name (letters, digits, _)", i+1)
			}
			out = append(out, token{k: tVar, s: src[i+1 : j], pos: i})
			i = j
		case digit(c) || c == '.' && i+1 < len(src) && digit(src[i+1]):
			t, n, err := lexNumber(src[i:])
			if err != nil {
				return nil, fmt.Errorf("at column %d: %v", i+1, err)
			}
			t.pos = i
			out = append(out, t)
			i += n
		case identChar(c):
			j := i
			for j < len(src) && identChar(src[j]) {
				j++
			}
			w := src[i:j]
			if k, ok := keywords[strings.ToLower(w)]; ok {
				out = append(out, token{k: k, s: w, pos: i})
			} else {
				out = append(out, token{k: tIdent, s: strings.ToLower(w), pos: i})
			}
			i = j
		default:
			if i+1 < len(src) {
				two := src[i : i+2]
				found := false
				for _, o := range twoCharOps {
					if two == o {
						if o == "!=" {
							o = "<>"
						}
						out = append(out, token{k: tOp, s: o, pos: i})
						i += 2
						found = true
						break
					}
				}
				if found {
					continue
				}
			}
			if strings.IndexByte(oneCharOps, c) >= 0 {
				out = append(out, token{k: tOp, s: src[i : i+1], pos: i})
				i++
				continue
			}
			return nil, fmt.Errorf("at column %d: unexpected character %q", i+1, c)
		}
	}
	return append(out, token{k: tEOF, pos: len(src)}), nil
}

// lexNumber reads an integer or a double at the start of s and returns its length.
func lexNumber(s string) (token, int, error) {
	j := 0
	for j < len(s) && digit(s[j]) {
		j++
	}
	isDouble := false
	if j < len(s) && s[j] == '.' {
		isDouble = true
		j++
		for j < len(s) && digit(s[j]) {
			j++
		}
	}
	if j < len(s) && (s[j] == 'e' || s[j] == 'E') {
		k := j + 1
		if k < len(s) && (s[k] == '+' || s[k] == '-') {
			k++
		}
		if k < len(s) && digit(s[k]) {
			isDouble = true
			for k < len(s) && digit(s[k]) {
				k++
			}
			j = k
		}
	}
	text := s[:j]
	if isDouble {
		f, err := strconv.ParseFloat(text, 64)
		if err != nil {
			return token{}, 0, fmt.Errorf("double constant %s is out of range", text)
		}
		return token{k: tDouble, f: f}, j, nil
	}
	i, err := strconv.ParseInt(text, 10, 64)
	if err != nil {
		if text == "9223372036854775808" {
			return token{k: tMaxIntPlusOne}, j, nil
		}
		return token{}, 0, fmt.Errorf("bigint constant %s is out of range", text)
	}
	return token{k: tInt, i: i}, j, nil
}
