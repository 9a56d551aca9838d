package pgscript

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/rumbench/rumbench/internal/input"
)

// Bounds of a script, each refused in one line that names it.
const (
	// MaxScriptBytes bounds a script file.
	MaxScriptBytes = 1 << 20
	// MaxLineBytes bounds a line of a script.
	MaxLineBytes = 64 << 10
	// MaxCommands bounds a script's commands (SQL and meta-commands).
	MaxCommands = 256
	// MaxIfDepth bounds the nesting of \if blocks.
	MaxIfDepth = 32
	// MaxParams bounds the variables one SQL command refers to (pgbench's MAX_ARGS - 1).
	MaxParams = 255
	// MaxSleepMicros bounds a \sleep: one hour.
	MaxSleepMicros = 3600 * 1_000_000
)

// Kind is what a command does.
type Kind uint8

const (
	// SQL sends a statement (Text, with '?' markers bound to Params).
	SQL Kind = iota
	// Begin is BEGIN or START TRANSACTION written alone (no variables).
	Begin
	// Commit is END or COMMIT written alone.
	Commit
	// Rollback is ROLLBACK or ABORT written alone.
	Rollback
	// Set evaluates Expr into variable Slot (\set).
	Set
	// Sleep waits Micros, or the value of variable SleepSlot times SleepUnit microseconds.
	Sleep
	// If jumps to Target when Expr is false (\if, \elif).
	If
	// Goto jumps to Target (the end of a branch that ran, before \elif or \else).
	Goto
	// Nop marks \else and \endif.
	Nop
)

// Statement says whether a command of kind k sends a statement to the server (SQL, Begin,
// Commit, Rollback); the others are meta-commands the client runs.
func (k Kind) Statement() bool { return k <= Rollback }

// Store says what an SQL command does with its result (\gset, \aset).
type Store uint8

const (
	// StoreNone keeps no result.
	StoreNone Store = iota
	// StoreOne (\gset) stores the one row the statement must return in variables named
	// Prefix+column.
	StoreOne
	// StoreAll (\aset) stores every row returned (the last row's values win); none is no error.
	StoreAll
)

// Command is one command of a script.
type Command struct {
	Kind Kind
	// Line is the script line the command starts on (1-based).
	Line int
	// Source is the command as written, trimmed (for messages and per-statement reports).
	Source string
	// Text is the SQL text with a '?' marker in place of each :variable (SQL).
	Text string
	// Params are the variable slots bound to the markers, in order; ParamNames their names.
	Params     []int
	ParamNames []string
	// Store and Prefix are the command's \gset or \aset.
	Store  Store
	Prefix string
	// Expr is \set's value or \if's and \elif's condition; Slot \set's variable.
	Expr *Expr
	Slot int
	// Micros is a constant \sleep; SleepSlot the variable of a \sleep :var (-1: constant), in
	// units of SleepUnit microseconds.
	Micros    int64
	SleepSlot int
	SleepUnit int64
	// Target is the index of the command If and Goto jump to.
	Target int
}

// Script is one parsed script file.
type Script struct {
	// Name labels the script (its file's base name or the built-in's name).
	Name string
	// Commands are the script's commands in order.
	Commands []Command
	// Checks are the script's declared checks ("-- rumbench check:" lines).
	Checks []Check
}

// Check is a query the script declares must give Want after a run: a comment line
// "-- rumbench check: QUERY -> WANT". QUERY must return one row of one column.
type Check struct {
	Line  int
	Query string
	Want  string
}

// CheckPrefix starts a check line.
const CheckPrefix = "-- rumbench check:"

// SQLCount returns the number of SQL statements the script's commands hold (transaction
// statements included).
func (s *Script) SQLCount() int {
	n := 0
	for _, c := range s.Commands {
		if c.Kind.Statement() {
			n++
		}
	}
	return n
}

// Variables reports the script's use of variables: read is called with the line and slot of
// each variable a command reads (a bound parameter, an expression's variable, \sleep's), set
// with the slot of each variable \set assigns. stores says whether a command stores a
// result (\gset, \aset), whose variables are known only when the query runs.
func (s *Script) Variables(read func(line, slot int), set func(slot int)) (stores bool) {
	for _, c := range s.Commands {
		for _, p := range c.Params {
			read(c.Line, p)
		}
		if c.Expr != nil {
			c.Expr.eachVar(func(slot int) { read(c.Line, slot) })
		}
		switch {
		case c.Kind == Sleep && c.SleepSlot >= 0:
			read(c.Line, c.SleepSlot)
		case c.Kind == Set:
			set(c.Slot)
		}
		stores = stores || c.Store != StoreNone
	}
	return stores
}

// Parse reads a script in pgbench's format. names receives its variables. An error names the
// line and says what is valid.
func Parse(name, src string, names *Names) (*Script, error) {
	if len(src) > MaxScriptBytes {
		return nil, fmt.Errorf("script %s is %d bytes: at most %d", name, len(src), MaxScriptBytes)
	}
	if i := strings.IndexByte(src, 0); i >= 0 {
		return nil, fmt.Errorf("%s:%d: a NUL byte: a script is text", name, 1+strings.Count(src[:i], "\n"))
	}
	line := 1
	for _, l := range strings.Split(src, "\n") {
		if len(l) > MaxLineBytes {
			return nil, fmt.Errorf("%s:%d: the line is %d bytes: at most %d", name, line, len(l), MaxLineBytes)
		}
		line++
	}
	p := &scriptParser{name: name, src: src, line: 1, names: names, s: &Script{Name: name}}
	if err := p.parse(); err != nil {
		return nil, err
	}
	if len(p.ifs) > 0 {
		return nil, fmt.Errorf("%s:%d: \\if without \\endif", name, p.s.Commands[p.ifs[len(p.ifs)-1].at].Line)
	}
	if p.s.SQLCount() == 0 && len(p.s.Commands) == 0 {
		return nil, fmt.Errorf("script %s holds no command", name)
	}
	return p.s, nil
}

type ifBlock struct {
	at    int   // the command index of the \if
	last  int   // the If (\if or \elif) whose Target is the next branch, -1 after \else
	gotos []int // the Gotos to patch with the \endif
}

type scriptParser struct {
	name  string
	src   string
	i     int
	line  int
	names *Names
	s     *Script
	ifs   []ifBlock
}

func (p *scriptParser) errf(line int, format string, args ...any) error {
	return fmt.Errorf("%s:%d: %s", p.name, line, fmt.Sprintf(format, args...))
}

func (p *scriptParser) add(c Command) error {
	if len(p.s.Commands) >= MaxCommands {
		return p.errf(c.Line, "more than %d commands in one script", MaxCommands)
	}
	p.s.Commands = append(p.s.Commands, c)
	return nil
}

func (p *scriptParser) parse() error {
	for {
		// Skip blanks and comments between commands; read check lines.
		for p.i < len(p.src) {
			c := p.src[p.i]
			if c == '\n' {
				p.line++
				p.i++
			} else if c == ' ' || c == '\t' || c == '\r' {
				p.i++
			} else if strings.HasPrefix(p.src[p.i:], "--") {
				end := p.lineEnd()
				if err := p.checkLine(p.src[p.i:end]); err != nil {
					return err
				}
				p.i = end
			} else {
				break
			}
		}
		if p.i >= len(p.src) {
			return nil
		}
		if p.src[p.i] == '\\' {
			if err := p.meta(); err != nil {
				return err
			}
			continue
		}
		if err := p.sql(); err != nil {
			return err
		}
	}
}

func (p *scriptParser) lineEnd() int {
	if j := strings.IndexByte(p.src[p.i:], '\n'); j >= 0 {
		return p.i + j
	}
	return len(p.src)
}

func (p *scriptParser) checkLine(comment string) error {
	rest, ok := strings.CutPrefix(comment, CheckPrefix)
	if !ok {
		return nil
	}
	k := strings.LastIndex(rest, "->")
	if k < 0 {
		return p.errf(p.line, "a check is %q", CheckPrefix+" QUERY -> EXPECTED")
	}
	q, want := strings.TrimSpace(rest[:k]), strings.TrimSpace(rest[k+2:])
	q = strings.TrimSuffix(strings.TrimSpace(q), ";")
	if onlyComments(q) || want == "" {
		return p.errf(p.line, "a check is %q: both parts are needed", CheckPrefix+" QUERY -> EXPECTED")
	}
	if err := checkQuery(q); err != nil {
		return p.errf(p.line, "%v", err)
	}
	p.s.Checks = append(p.s.Checks, Check{Line: p.line, Query: q, Want: want})
	return nil
}

// checkVerbs are the first words of the statements a check may be: queries.
var checkVerbs = []string{"SELECT", "WITH", "VALUES", "TABLE", "SHOW"}

// checkQuery says why q cannot be a check's query: a check is one statement, a query (it starts
// with one of checkVerbs), which the run then sends in a read-only transaction. pgbench ignores
// the comment a check is written in, so a check is refused here rather than run when it could
// change anything.
func checkQuery(q string) error {
	t := q
	for {
		t = strings.TrimLeft(t, " \t\r\n(")
		if !strings.HasPrefix(t, "/*") {
			break
		}
		j := strings.Index(t[2:], "*/")
		if j < 0 {
			return errors.New("unterminated /* comment")
		}
		t = t[2+j+2:]
	}
	end := strings.IndexFunc(t, func(r rune) bool { return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') })
	if end < 0 {
		end = len(t)
	}
	if verb := strings.ToUpper(t[:end]); !slices.Contains(checkVerbs, verb) {
		return fmt.Errorf("a check is a query (%s), run read-only: %q is not one", strings.Join(checkVerbs, ", "), trimWord(t[:end], t))
	}
	for i := 0; i < len(q); i++ {
		switch c := q[i]; {
		case c == '\'' || c == '"':
			j := strings.IndexByte(q[i+1:], c)
			if j < 0 {
				return errors.New("unterminated quoted string")
			}
			i += 1 + j
		case c == '$' && dollarTag(q[i:]) != "":
			tag := dollarTag(q[i:])
			j := strings.Index(q[i+len(tag):], tag)
			if j < 0 {
				return fmt.Errorf("unterminated dollar-quoted string %s", tag)
			}
			i += len(tag) + j + len(tag) - 1
		case c == '/' && strings.HasPrefix(q[i:], "/*"):
			j := strings.Index(q[i+2:], "*/")
			if j < 0 {
				return errors.New("unterminated /* comment")
			}
			i += 2 + j + 1
		case c == ';':
			return fmt.Errorf("a check is one query: a ';' at byte %d starts another statement", i+1)
		}
	}
	return nil
}

// trimWord is what a message shows of a statement that is not a query: its first word, or its
// first characters when it has none.
func trimWord(word, text string) string {
	if word != "" {
		return word
	}
	return input.Short(text)
}

// sql reads one SQL command up to an unquoted ';', a backslash (a meta-command such as \gset
// follows on the line) or the end of the script.
func (p *scriptParser) sql() error {
	start, startLine := p.i, p.line
	var text strings.Builder
	var params []int
	var pnames []string
	src := p.src
	for p.i < len(src) {
		c := src[p.i]
		switch {
		case c == '\n':
			p.line++
			text.WriteByte(c)
			p.i++
		case c == '\'' || c == '"':
			j := p.i + 1
			for j < len(src) && src[j] != c {
				if src[j] == '\n' {
					p.line++
				}
				j++
			}
			if j >= len(src) {
				return p.errf(startLine, "unterminated quoted string")
			}
			text.WriteString(src[p.i : j+1])
			p.i = j + 1
		case c == '$' && dollarTag(src[p.i:]) != "":
			tag := dollarTag(src[p.i:])
			j := strings.Index(src[p.i+len(tag):], tag)
			if j < 0 {
				return p.errf(startLine, "unterminated dollar-quoted string %s", tag)
			}
			end := p.i + len(tag) + j + len(tag)
			p.line += strings.Count(src[p.i:end], "\n")
			text.WriteString(src[p.i:end])
			p.i = end
		case c == '-' && strings.HasPrefix(src[p.i:], "--"):
			p.i = p.lineEnd()
		case c == '/' && strings.HasPrefix(src[p.i:], "/*"):
			j := strings.Index(src[p.i+2:], "*/")
			if j < 0 {
				return p.errf(startLine, "unterminated /* comment")
			}
			end := p.i + 2 + j + 2
			p.line += strings.Count(src[p.i:end], "\n")
			text.WriteString(src[p.i:end])
			p.i = end
		case c == '?':
			return p.errf(p.line, "a '?' outside quotes: rumbench binds :variables as '?' parameters, so a '?' operator cannot be written in a script (use a function such as jsonb_exists instead)")
		case c == ':':
			j := p.i
			for j < len(src) && src[j] == ':' {
				j++
			}
			if j > p.i+1 { // '::' casts
				text.WriteString(src[p.i:j])
				p.i = j
				continue
			}
			k := j
			for k < len(src) && identChar(src[k]) {
				k++
			}
			if k == j {
				text.WriteByte(c)
				p.i++
				continue
			}
			if len(params) >= MaxParams {
				return p.errf(startLine, "more than %d variables in one SQL command", MaxParams)
			}
			slot := p.names.Slot(src[j:k])
			if slot < 0 {
				return p.errf(p.line, "more than %d variables", MaxVariables)
			}
			params = append(params, slot)
			pnames = append(pnames, src[j:k])
			text.WriteByte('?')
			p.i = k
		case c == ';':
			p.i++
			return p.addSQL(startLine, src[start:p.i], text.String(), params, pnames)
		case c == '\\':
			if strings.HasPrefix(src[p.i:], `\;`) {
				return p.errf(p.line, `compound commands (\;) are not supported: end each statement with ';'`)
			}
			return p.addSQL(startLine, src[start:p.i], text.String(), params, pnames)
		default:
			text.WriteByte(c)
			p.i++
		}
	}
	return p.addSQL(startLine, src[start:], text.String(), params, pnames)
}

// dollarTag returns the dollar-quote tag at the start of s ($$ or $name$), or "".
func dollarTag(s string) string {
	j := 1
	for j < len(s) && (s[j] == '_' || s[j] >= 'a' && s[j] <= 'z' || s[j] >= 'A' && s[j] <= 'Z' || j > 1 && digit(s[j])) {
		j++
	}
	if j < len(s) && s[j] == '$' {
		return s[:j+1]
	}
	return ""
}

func (p *scriptParser) addSQL(line int, source, text string, params []int, pnames []string) error {
	text = strings.TrimSpace(text)
	if onlyComments(text) {
		return nil // no statement: nothing to send (SQLite cannot prepare one)
	}
	c := Command{Kind: SQL, Line: line, Source: strings.TrimSpace(source), Text: text, Params: params, ParamNames: pnames}
	if len(params) == 0 {
		c.Kind = txKind(text)
	}
	return p.add(c)
}

// onlyComments says whether text holds nothing but blanks and /* */ comments, no statement
// (MySQL's /*! */ comments are statements).
func onlyComments(text string) bool {
	for {
		text = strings.TrimLeft(text, " \t\r\n")
		if text == "" {
			return true
		}
		if !strings.HasPrefix(text, "/*") || strings.HasPrefix(text, "/*!") {
			return false
		}
		j := strings.Index(text[2:], "*/")
		if j < 0 {
			return false
		}
		text = text[2+j+2:]
	}
}

// txKind recognizes a transaction statement written alone.
func txKind(text string) Kind {
	w := strings.ToUpper(strings.Join(strings.Fields(text), " "))
	switch w {
	case "BEGIN", "BEGIN TRANSACTION", "BEGIN WORK", "START TRANSACTION":
		return Begin
	case "END", "END TRANSACTION", "END WORK", "COMMIT", "COMMIT TRANSACTION", "COMMIT WORK":
		return Commit
	case "ROLLBACK", "ROLLBACK TRANSACTION", "ROLLBACK WORK", "ABORT":
		return Rollback
	}
	return SQL
}

// MetaCommands lists the meta-commands the language supports, for error messages.
const MetaCommands = `\set, \sleep, \if, \elif, \else, \endif, \gset, \aset`

// meta reads one meta-command: a backslash, a word, its arguments up to the end of the line.
func (p *scriptParser) meta() error {
	end := p.lineEnd()
	line := strings.TrimSpace(p.src[p.i:end])
	p.i = end
	ln := p.line
	word, rest, _ := strings.Cut(line[1:], " ")
	if j := strings.IndexAny(word, "\t"); j >= 0 {
		word, rest = word[:j], word[j:]+" "+rest
	}
	rest = strings.TrimSpace(rest)
	switch strings.ToLower(word) {
	case "set":
		name, expr, _ := strings.Cut(rest, " ")
		if j := strings.IndexByte(name, '\t'); j >= 0 {
			name, expr = name[:j], name[j:]+" "+expr
		}
		if !validName(name) || strings.TrimSpace(expr) == "" {
			return p.errf(ln, `\set takes a variable name (letters, digits, _) and an expression: \set NAME EXPR`)
		}
		e, err := ParseExpr(expr, p.names)
		if err != nil {
			return p.errf(ln, `\set %s: %v`, name, err)
		}
		slot := p.names.Slot(name)
		if slot < 0 {
			return p.errf(ln, "more than %d variables", MaxVariables)
		}
		return p.add(Command{Kind: Set, Line: ln, Source: line, Expr: e, Slot: slot})
	case "sleep":
		return p.sleep(ln, line, strings.Fields(rest))
	case "if", "elif":
		if rest == "" {
			return p.errf(ln, `\%s takes an expression`, word)
		}
		e, err := ParseExpr(rest, p.names)
		if err != nil {
			return p.errf(ln, `\%s: %v`, word, err)
		}
		if word == "if" {
			if len(p.ifs) >= MaxIfDepth {
				return p.errf(ln, `\if blocks nested more than %d deep`, MaxIfDepth)
			}
			p.ifs = append(p.ifs, ifBlock{at: len(p.s.Commands), last: len(p.s.Commands)})
			return p.add(Command{Kind: If, Line: ln, Source: line, Expr: e})
		}
		b, err := p.branch(ln, `\elif`)
		if err != nil {
			return err
		}
		b.last = len(p.s.Commands)
		return p.add(Command{Kind: If, Line: ln, Source: line, Expr: e})
	case "else":
		b, err := p.branch(ln, `\else`)
		if err != nil {
			return err
		}
		b.last = -1
		return p.add(Command{Kind: Nop, Line: ln, Source: line})
	case "endif":
		if len(p.ifs) == 0 {
			return p.errf(ln, `\endif without \if`)
		}
		b := p.ifs[len(p.ifs)-1]
		p.ifs = p.ifs[:len(p.ifs)-1]
		at := len(p.s.Commands)
		if b.last >= 0 {
			p.s.Commands[b.last].Target = at
		}
		for _, g := range b.gotos {
			p.s.Commands[g].Target = at
		}
		return p.add(Command{Kind: Nop, Line: ln, Source: line})
	case "gset", "aset":
		n := len(p.s.Commands)
		if n == 0 || p.s.Commands[n-1].Kind != SQL || p.s.Commands[n-1].Store != StoreNone {
			return p.errf(ln, `\%s must follow an SQL command`, word)
		}
		f := strings.Fields(rest)
		if len(f) > 1 || len(f) == 1 && !validName(f[0]) {
			return p.errf(ln, `\%s takes at most one prefix of letters, digits and _`, word)
		}
		c := &p.s.Commands[n-1]
		c.Store = StoreOne
		if word == "aset" {
			c.Store = StoreAll
		}
		if len(f) == 1 {
			c.Prefix = f[0]
		}
		return nil
	}
	return p.errf(ln, `unsupported meta-command \%s (supported: %s)`, word, MetaCommands)
}

// branch closes the current branch of the innermost \if before an \elif or \else: a Goto to
// the \endif ends the branch that ran, and the previous condition's false jump lands after it.
func (p *scriptParser) branch(ln int, what string) (*ifBlock, error) {
	if len(p.ifs) == 0 {
		return nil, p.errf(ln, `%s without \if`, what)
	}
	b := &p.ifs[len(p.ifs)-1]
	if b.last < 0 {
		return nil, p.errf(ln, `%s after \else`, what)
	}
	b.gotos = append(b.gotos, len(p.s.Commands))
	if err := p.add(Command{Kind: Goto, Line: ln, Source: what}); err != nil {
		return nil, err
	}
	p.s.Commands[b.last].Target = len(p.s.Commands)
	return b, nil
}

func (p *scriptParser) sleep(ln int, line string, args []string) error {
	if len(args) < 1 || len(args) > 2 {
		return p.errf(ln, `\sleep takes a number or a :variable and an optional unit (us, ms, s)`)
	}
	unit := int64(1_000_000)
	if len(args) == 2 {
		switch strings.ToLower(args[1]) {
		case "us":
			unit = 1
		case "ms":
			unit = 1000
		case "s":
		default:
			return p.errf(ln, `\sleep unit %q: valid are us, ms, s`, args[1])
		}
	}
	c := Command{Kind: Sleep, Line: ln, Source: line, SleepSlot: -1, SleepUnit: unit}
	if v, ok := strings.CutPrefix(args[0], ":"); ok {
		if !validName(v) {
			return p.errf(ln, `\sleep: %q is no variable name`, args[0])
		}
		c.SleepSlot = p.names.Slot(v)
	} else {
		n, err := strconv.ParseInt(args[0], 10, 64)
		if err != nil || n < 0 || n > MaxSleepMicros/unit {
			return p.errf(ln, `\sleep %s: want an integer from 0 up to one hour`, args[0])
		}
		c.Micros = n * unit
	}
	return p.add(c)
}

// ValidName says whether s can name a variable: 1 to 64 ASCII letters, digits and '_'.
func ValidName(s string) bool { return validName(s) }

func validName(s string) bool {
	if s == "" || len(s) > 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !identChar(s[i]) || s[i] >= 0x80 {
			return false
		}
	}
	return true
}
