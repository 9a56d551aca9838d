package pgscript

import (
	"strings"
	"testing"
)

const zipfScript = `-- a user's script
-- rumbench check: SELECT count(*) FROM t WHERE v < 0 -> 0
\set id random_zipfian(1, 1000 * :scale, 1.07)
\set big :id > 500
\if :big
  SELECT v, k AS key FROM t
    WHERE id = :id \gset p_
\elif :id > 100
  UPDATE t SET v = v + 1 WHERE id = :id;
\else
  SELECT 1;
\endif
\sleep 10 ms
BEGIN;
SELECT 'a:b', x::int, ':id' FROM t WHERE id = :id AND k = :id; -- trailing comment
END;
`

func TestParseScript(t *testing.T) {
	names := NewNames()
	s, err := Parse("zipf.sql", zipfScript, names)
	if err != nil {
		t.Fatal(err)
	}
	var kinds []Kind
	for _, c := range s.Commands {
		kinds = append(kinds, c.Kind)
	}
	want := []Kind{Set, Set, If, SQL, Goto, If, SQL, Goto, Nop, SQL, Nop, Sleep, Begin, SQL, Commit}
	if len(kinds) != len(want) {
		t.Fatalf("kinds %v, want %v", kinds, want)
	}
	for i := range want {
		if kinds[i] != want[i] {
			t.Fatalf("kinds %v, want %v", kinds, want)
		}
	}
	c := s.Commands
	if c[2].Target != 5 || c[4].Target != 10 || c[5].Target != 8 || c[7].Target != 10 {
		t.Errorf("targets: if→%d goto→%d elif→%d goto→%d", c[2].Target, c[4].Target, c[5].Target, c[7].Target)
	}
	if c[3].Text != "SELECT v, k AS key FROM t\n    WHERE id = ?" || c[3].Store != StoreOne || c[3].Prefix != "p_" {
		t.Errorf("gset command: %q store %d prefix %q", c[3].Text, c[3].Store, c[3].Prefix)
	}
	if c[6].Text != "UPDATE t SET v = v + 1 WHERE id = ?" {
		t.Errorf("update: %q", c[6].Text)
	}
	if c[11].Micros != 10_000 {
		t.Errorf("sleep: %d µs", c[11].Micros)
	}
	if got := c[13].Text; got != "SELECT 'a:b', x::int, ':id' FROM t WHERE id = ? AND k = ?" || len(c[13].Params) != 2 {
		t.Errorf("select: %q params %v", got, c[13].ParamNames)
	}
	if len(s.Checks) != 1 || s.Checks[0].Query != "SELECT count(*) FROM t WHERE v < 0" || s.Checks[0].Want != "0" {
		t.Errorf("checks: %+v", s.Checks)
	}
	if s.SQLCount() != 6 {
		t.Errorf("SQLCount %d, want 6", s.SQLCount())
	}
}

// TestParseCommentOnly checks that a command of comments alone is no statement (SQLite cannot
// prepare one), while MySQL's /*! */ comment is one.
func TestParseCommentOnly(t *testing.T) {
	s, err := Parse("c.sql", "/* a */ /* b */;\nSELECT 1;\n/*!40000 SELECT 2 */;\n", NewNames())
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Commands) != 2 || s.Commands[0].Text != "SELECT 1" || s.Commands[1].Text != "/*!40000 SELECT 2 */" {
		t.Errorf("commands %+v, want SELECT 1 and the /*! */ one", s.Commands)
	}
	if _, err := Parse("c.sql", "/* only */;", NewNames()); err == nil || !strings.Contains(err.Error(), "holds no command") {
		t.Errorf("a script of comments: error %v, want holds no command", err)
	}
}

func TestParseScriptErrors(t *testing.T) {
	cases := []struct{ src, want string }{
		{`\shell ls`, `unsupported meta-command \shell`},
		{`\set x`, `\set takes a variable name`},
		{`\set 1x-y 2`, `\set takes a variable name`},
		{`\gset`, `must follow an SQL command`},
		{"\\if true\nSELECT 1;", `\if without \endif`},
		{`\endif`, `\endif without \if`},
		{"\\if 1\n\\else\n\\elif 2\n\\endif", `\elif after \else`},
		{`\sleep 5 days`, `valid are us, ms, s`},
		{`\sleep 99999999999`, `up to one hour`},
		{`SELECT 'open`, `unterminated quoted string`},
		{`SELECT 1 \; SELECT 2;`, `compound commands`},
		{`SELECT '{"a":1}'::jsonb ? 'a';`, `a '?' outside quotes`},
		{strings.Repeat("SELECT 1;\n", MaxCommands+1), "more than 256 commands"},
		{strings.Repeat("\\if 1\n", MaxIfDepth+1), "nested more than 32"},
		{"SELECT " + strings.Repeat(":a,", MaxParams+1) + "1;", "more than 255 variables"},
		{"-- rumbench check: SELECT 1", "QUERY -> EXPECTED"},
		{"SELECT '" + strings.Repeat("x", MaxLineBytes+1) + "';", "the line is"},
		{"\\set x random(1,\n", "unexpected end"},
		{"SELECT 1;\n\x00;", "bad.sql:2: a NUL byte"},
		{"-- rumbench check: /* no query */ -> 1", "both parts are needed"},
		// A check runs read-only, and is one query.
		{"-- rumbench check: DROP TABLE pgbench_branches -> 0", `bad.sql:1: a check is a query (SELECT, WITH, VALUES, TABLE, SHOW), run read-only: "DROP" is not one`},
		{"-- rumbench check: /* x */ (COPY (SELECT 1) TO PROGRAM 'true') -> 0", `"COPY" is not one`},
		{"-- rumbench check: SELECT 1; DROP TABLE t -> 1", "bad.sql:1: a check is one query: a ';' at byte 9 starts another statement"},
		{"-- rumbench check: SELECT ';' AS a, $x$;$x$; DELETE FROM t -> 1", "a ';' at byte 25 starts another statement"},
	}
	for _, c := range cases {
		_, err := Parse("bad.sql", c.src, NewNames())
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%.40q: error %v, want one containing %q", c.src, err, c.want)
		}
	}
}
