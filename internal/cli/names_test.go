package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rumbench/rumbench/internal/engine"
)

// TestHostileNames tries SQL and MongoDB injection through every input that becomes a name in a
// statement (YCSB's table and fieldnameprefix, by -p and by a property file, and the mongo
// engine's database option) on every registered engine. Each is refused in one line with exit 2
// before anything runs: no data directory, no run directory.
func TestHostileNames(t *testing.T) {
	file := filepath.Join(t.TempDir(), "hostile.properties")
	if err := os.WriteFile(file, []byte("recordcount=100\ntable=usertable; DROP TABLE usertable\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	inputs := []struct {
		args []string
		want string
	}{
		{[]string{"-p", "table=t1 (x int); CREATE TABLE pwned (y int); CREATE TABLE usertable"}, `table: "t1 (x int); CREATE TABLE pwned (y int); CREATE TABLE usertab…(62 bytes)": character ' ' at 2 is not allowed`},
		{[]string{"-p", "table=usertable WHERE 1=1 --"}, "character ' ' at 9"},
		{[]string{"-p", "table=system.profile"}, "character '.' at 6"},
		{[]string{"-p", "table=order"}, "order: a reserved word"},
		{[]string{"-P", file}, `table: "usertable; DROP TABLE usertable": character ';' at 9`},
		{[]string{"-p", "fieldnameprefix=field0 int, pwned"}, "fieldnameprefix=field0 int, pwned: field name 0"},
		{[]string{"-p", "fieldnameprefix=$set"}, "character '$' at 0"},
		{[]string{"-p", "fieldnameprefix=a.b"}, "character '.' at 1"},
	}
	for _, name := range engine.Names() {
		t.Run(name, func(t *testing.T) {
			cases := inputs
			if name == "mongo" {
				cases = append(cases, struct {
					args []string
					want string
				}{[]string{"--engine-opt", "database=admin\x00"}, "engine mongo option database: not a database name"})
			}
			for _, c := range cases {
				out, data := t.TempDir(), filepath.Join(t.TempDir(), "data")
				args := append([]string{"run", "--workload", "ycsb", "--engine", name, "-p", "recordcount=100",
					"--run-secs", "1", "--out", out, "--data-dir", data, "--keep-data"}, c.args...)
				tr := run(t, nil, args...)
				if tr.code != 2 || !strings.Contains(tr.stderr, c.want) || strings.Count(strings.TrimSpace(tr.stderr), "\n") != 0 {
					t.Errorf("%v: exit %d, stderr %q; want exit 2 and one line with %q", c.args, tr.code, tr.stderr, c.want)
				}
				if _, err := os.Stat(data); !os.IsNotExist(err) {
					t.Errorf("%v: the data directory exists (%v): something ran", c.args, err)
				}
				if ents, _ := os.ReadDir(out); len(ents) != 0 {
					t.Errorf("%v: --out holds %d entries: something ran", c.args, len(ents))
				}
			}
		})
	}
}
