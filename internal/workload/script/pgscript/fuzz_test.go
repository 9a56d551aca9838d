package pgscript

import "testing"

// FuzzParse checks that no script makes the parser or the evaluation of its expressions panic
// or loop: any input parses or is refused, and every parsed expression evaluates or errs.
func FuzzParse(f *testing.F) {
	for _, s := range []string{zipfScript, "\\set x 1 + 2 * :scale\n", "SELECT :a::int, ':b';", "\\if 1\n\\elif 2\n\\else\n\\endif\n",
		"\\set h hash(:client_id, 5) # ~3 << 2\n", "\\set c CASE WHEN NULL THEN 1 ELSE -9223372036854775808 END\n",
		"SELECT $$;$$, /* ; */ 1 \\gset p\n", "\\sleep :x ms\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		names := NewNames()
		s, err := Parse("fuzz.sql", src, names)
		if err != nil {
			return
		}
		vars := NewVars(names, 1, 0, 1)
		for _, c := range s.Commands {
			if c.Expr != nil {
				c.Expr.Eval(vars)
			}
			if (c.Kind == If || c.Kind == Goto) && (c.Target <= 0 || c.Target > len(s.Commands)) {
				t.Fatalf("command at line %d jumps to %d of %d", c.Line, c.Target, len(s.Commands))
			}
		}
	})
}
