package mysql

import (
	"strconv"
	"strings"
	"time"

	"github.com/rumbench/rumbench/internal/engine/sqlfam"
)

// textQuery writes a statement's arguments into its text the way go-sql-driver/mysql's
// client-side interpolation (interpolateParams) writes them, into a buffer it reuses: the same
// text reaches the server (COM_QUERY), without the driver's []driver.Value (an allocation per
// integer above 255 and per timestamp) and without its copy of the result into a string.
//
// It handles the statements whose text has no quotes, backticks or comments (every '?' is then a
// placeholder, as the driver would find it) and arguments whose strings have no byte the driver
// escapes (NUL, \n, \r, \x1a, quotes, backslash), so that the text is the same whether or not the
// server's sql_mode has NO_BACKSLASH_ESCAPES; for the others ok is false and the caller lets the
// driver interpolate.
type textQuery struct {
	text  string              // the last text built
	parts []string            // its pieces between placeholders; nil when it cannot be handled
	known map[string][]string // the pieces of every text seen
	buf   []byte
}

// plainText says whether the driver's interpolation would take every '?' of text for a
// placeholder: no string, quoted name or comment in it.
func plainText(text string) bool {
	return !strings.ContainsAny(text, "'\"`#\\") && !strings.Contains(text, "--") && !strings.Contains(text, "/*")
}

// build returns text with args written into it, in the query's buffer (valid until the next
// build), and whether it could (see textQuery).
func (q *textQuery) build(text string, args []sqlfam.Arg) ([]byte, bool) {
	if text != q.text {
		parts, seen := q.known[text]
		if !seen {
			if plainText(text) {
				parts = strings.Split(text, "?")
			}
			if q.known == nil {
				q.known = map[string][]string{}
			}
			q.known[text] = parts
		}
		q.text, q.parts = text, parts
	}
	if q.parts == nil || len(q.parts) != len(args)+1 {
		return nil, false
	}
	b := append(q.buf[:0], q.parts[0]...)
	for i, a := range args {
		var ok bool
		if b, ok = appendArg(b, a); !ok {
			return nil, false
		}
		b = append(b, q.parts[i+1]...)
	}
	q.buf = b
	return b, true
}

// appendArg appends a as the driver's interpolation writes the value conn.values gives for it.
func appendArg(b []byte, a sqlfam.Arg) ([]byte, bool) {
	switch a.Kind {
	case sqlfam.ArgInt:
		return strconv.AppendInt(b, a.I, 10), true
	case sqlfam.ArgTime:
		b, ok := appendDateTime(append(b, '\''), a.I)
		if !ok {
			return nil, false
		}
		return append(b, '\''), true
	}
	if a.B == nil {
		return append(b, "NULL"...), true
	}
	for _, c := range a.B {
		switch c {
		case 0, '\n', '\r', '\x1a', '\'', '"', '\\':
			return nil, false
		}
	}
	if a.Kind == sqlfam.ArgBytes {
		b = append(b, "_binary"...)
	}
	b = append(b, '\'')
	b = append(b, a.B...)
	return append(b, '\''), true
}

// appendDateTime appends the timestamp secs (unix seconds, UTC) as the driver writes a
// time.Time argument: "YYYY-MM-DD HH:MM:SS", the date alone at midnight, "0000-00-00" for the
// zero time; ok is false outside years 1..9999.
func appendDateTime(b []byte, secs int64) ([]byte, bool) {
	t := time.Unix(secs, 0).UTC()
	if t.IsZero() {
		return append(b, "0000-00-00"...), true
	}
	y, mo, d := t.Date()
	h, mi, s := t.Clock()
	if y < 1 || y > 9999 {
		return nil, false
	}
	b = append4(b, y)
	b = append(b, '-')
	b = append2(b, int(mo))
	b = append(b, '-')
	b = append2(b, d)
	if h != 0 || mi != 0 || s != 0 {
		b = append(b, ' ')
		b = append2(b, h)
		b = append(b, ':')
		b = append2(b, mi)
		b = append(b, ':')
		b = append2(b, s)
	}
	return b, true
}

func append2(b []byte, v int) []byte { return append(b, byte('0'+v/10), byte('0'+v%10)) }

func append4(b []byte, v int) []byte { return append2(append2(b, v/100), v%100) }
