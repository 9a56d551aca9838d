package ycsb

import (
	"context"
	"database/sql"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/rumbench/rumbench/internal/table"
	"github.com/rumbench/rumbench/internal/workload/worktest"
	"github.com/rumbench/rumbench/internal/workload/ycsb/ycsbgen"
)

// refFields is the JDBC binding's field order for fieldcount=10 (CoreWorkload's HashMap of
// field0..field9).
const refFields = "field1,field0,field7,field6,field9,field8,field3,field2,field5,field4"

// TestFieldOrder checks fieldOrder against java.util.HashMap's iteration order of YCSB's field
// names (from a JVM: new HashMap<>() put field0..fieldN-1, then keySet()).
func TestFieldOrder(t *testing.T) {
	for _, tc := range []struct {
		n    int
		want string
	}{
		{1, "field0"},
		{3, "field1,field0,field2"},
		{10, refFields},
		{20, "field19,field17,field18,field11,field12,field1,field0,field10,field15,field16,field13,field14,field7,field6,field9,field8,field3,field2,field5,field4"},
	} {
		names := make([]string, tc.n)
		for i := range names {
			names[i] = "field" + strconv.Itoa(i)
		}
		var got []string
		for _, i := range fieldOrder(names) {
			got = append(got, names[i])
		}
		if g := strings.Join(got, ","); g != tc.want {
			t.Errorf("%d fields: %s, want %s", tc.n, g, tc.want)
		}
	}
}

// refStatements are the statements YCSB's JDBC binding sends for each operation kind, in the
// order it sends them (autocommit: no BEGIN or COMMIT), on PostgreSQL (pgjdbc: FETCH FIRST) and
// on MySQL and MariaDB (LIMIT).
func refStatements(dialect string) map[string][]string {
	insert := "INSERT INTO usertable (YCSB_KEY," + refFields + ") VALUES(?,?,?,?,?,?,?,?,?,?,?)"
	read := "SELECT * FROM usertable WHERE YCSB_KEY = ?"
	scan := "SELECT * FROM usertable WHERE YCSB_KEY >= ? ORDER BY YCSB_KEY LIMIT ?"
	if dialect == "postgres" {
		scan = "SELECT * FROM usertable WHERE YCSB_KEY >= ? ORDER BY YCSB_KEY FETCH FIRST ? ROWS ONLY"
	}
	var all []string
	for _, f := range strings.Split(refFields, ",") {
		all = append(all, f+"=?")
	}
	return map[string][]string{
		"load":              {insert, insert, insert, insert},
		"read":              {read},
		"update":            {"UPDATE usertable SET field#=? WHERE YCSB_KEY = ?"},
		"update_all":        {"UPDATE usertable SET " + strings.Join(all, ", ") + " WHERE YCSB_KEY = ?"},
		"insert":            {insert},
		"scan":              {scan},
		"read_modify_write": {read, "UPDATE usertable SET field#=? WHERE YCSB_KEY = ?"},
	}
}

// refDDL is the usertable's DDL as rumbench writes it for the JDBC binding's documented
// "YCSB_KEY VARCHAR(255) PRIMARY KEY, FIELD0 TEXT, ...": PostgreSQL's text, and MySQL's
// longtext (TEXT holds at most 65,535 bytes; fieldlength may ask for more).
var refDDL = map[string]string{
	"postgres": "CREATE TABLE usertable (ycsb_key varchar(255) NOT NULL PRIMARY KEY" + strings.Repeat(", field# text", 10) + ")",
	"mysql":    "CREATE TABLE usertable (ycsb_key varchar(255) NOT NULL PRIMARY KEY" + strings.Repeat(", field# longtext", 10) + ") ENGINE=InnoDB",
}

func init() {
	for k, v := range refDDL {
		for i := range 10 {
			v = strings.Replace(v, "field#", "field"+strconv.Itoa(i), 1)
		}
		refDDL[k] = v
	}
}

// transaction matches the statements of an explicit transaction, which the binding never sends.
var transaction = regexp.MustCompile(`(?i)^(BEGIN|START TRANSACTION|COMMIT|ROLLBACK|SET autocommit)`)

// anyField makes the field of a one-field update a wildcard (the field is drawn at random).
var anyField = regexp.MustCompile(`SET field[0-9]+=\? WHERE`)

// TestReferenceSQL runs the load and each operation kind on a private PostgreSQL and MariaDB that
// log every statement they receive and compares each kind's statements with the JDBC binding's
// (exact text, values as ?). CoreWorkload has no delete operation, so neither client sends one.
func TestReferenceSQL(t *testing.T) {
	for _, name := range []string{"postgres", "mysql"} {
		t.Run(name, func(t *testing.T) {
			var eng table.Engine
			var dir string
			if name == "postgres" {
				eng, dir = worktest.LoggingPostgres(t)
			} else {
				eng, dir = worktest.Engine(t, name, false, nil)
			}
			db := eng.(interface{ DB() *sql.DB }).DB()
			ctx := context.Background()
			exec := func(q string) {
				t.Helper()
				if _, err := db.ExecContext(ctx, q); err != nil {
					t.Fatal(err)
				}
			}
			if name == "mysql" {
				exec("TRUNCATE mysql.general_log")
				exec("SET GLOBAL log_output = 'TABLE', GLOBAL general_log = 1")
			}
			// YCSB's load: one record per transaction (the quick profile batches 100).
			w := build(t, "--workload-letter", "a", "-p", "recordcount=4", "--steps", "load", "--load-batch", "1")
			exec(worktest.Mark("load"))
			run := worktest.Steps(t, eng, dir, w, nil).(*Run)
			c, err := run.stepClient(ctx, 0, 1)
			if err != nil {
				t.Fatal(err)
			}
			if err := c.runGenerators([]ycsbgen.Choice{{Op: opRead, Weight: 1}}); err != nil {
				t.Fatal(err)
			}
			for _, k := range []struct {
				name string
				op   int
			}{{"read", opRead}, {"update", opUpdate}, {"update_all", opUpdate}, {"insert", opInsert},
				{"scan", opScan}, {"read_modify_write", opRMW}} {
				w.Cfg.Core.WriteAllFields = k.name == "update_all"
				exec(worktest.Mark(k.name))
				if _, err := c.do(ctx, k.op); err != nil {
					t.Fatalf("%s: %v", k.name, err)
				}
			}
			exec(worktest.Mark(""))
			var got map[string][]string
			if name == "postgres" {
				run.Close()
				if err := eng.Close(); err != nil {
					t.Fatal(err)
				}
				got = worktest.LoggedStatements(t, dir)
			} else {
				exec("SET GLOBAL general_log = 0")
				got = mariadbLogged(t, db)
			}
			for kind, want := range refStatements(name) {
				g := got[kind]
				for i := range g {
					g[i] = anyField.ReplaceAllString(g[i], "SET field#=? WHERE")
				}
				if kind == "load" { // the DDL, then the inserts (then the settle's statements)
					var ins []string
					for _, s := range g {
						switch {
						case strings.HasPrefix(s, "CREATE TABLE"):
							if s != refDDL[name] {
								t.Errorf("DDL\n%s\nwant\n%s", s, refDDL[name])
							}
						case strings.HasPrefix(s, "INSERT"):
							ins = append(ins, s)
						case strings.Contains(s, "usertable") || transaction.MatchString(s):
							t.Errorf("load: %s", s)
						}
						// Else rumbench's settle and counters after the load (PostgreSQL).
					}
					g = ins
				}
				if strings.Join(g, "\n") != strings.Join(want, "\n") {
					t.Errorf("%s: statements\n%s\nwant\n%s", kind, strings.Join(g, "\n"), strings.Join(want, "\n"))
				}
			}
		})
	}
}

var (
	myMarker = regexp.MustCompile(`^SELECT 'rumbench-test:(.*)'$`)
	// A string literal as MariaDB writes an argument into a logged Execute, and a number.
	myString = regexp.MustCompile(`'(?:[^'\\]|\\.|'')*'`)
	myNumber = regexp.MustCompile(`\b[0-9]+\b`)
)

// housekeeping says whether a statement MariaDB logged is one of rumbench's on its other
// connections: the server counters it samples, the settle after the load, the size query.
func housekeeping(text string) bool {
	for _, p := range []string{"SHOW ", "SET GLOBAL ", "SELECT @@"} {
		if strings.HasPrefix(text, p) {
			return true
		}
	}
	return strings.Contains(text, "information_schema")
}

// mariadbLogged reads the statements MariaDB's general log (log_output = TABLE) holds, grouped
// by the worktest.Mark that precedes them, the values of executed statements shown as ?. Only
// statements run (Query, Execute) count, not their Prepare; rumbench's counter, settle and size
// queries on other connections are left out.
func mariadbLogged(t *testing.T, db *sql.DB) map[string][]string {
	t.Helper()
	rows, err := db.Query("SELECT command_type, CONVERT(argument USING utf8mb4) FROM mysql.general_log")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	got := map[string][]string{}
	cur := ""
	for rows.Next() {
		var kind, text string
		if err := rows.Scan(&kind, &text); err != nil {
			t.Fatal(err)
		}
		if kind != "Query" && kind != "Execute" {
			continue
		}
		if mk := myMarker.FindStringSubmatch(text); mk != nil {
			cur = mk[1]
			continue
		}
		if cur == "" || housekeeping(text) {
			continue
		}
		if kind == "Execute" {
			text = myNumber.ReplaceAllString(myString.ReplaceAllString(text, "?"), "?")
		}
		got[cur] = append(got[cur], text)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return got
}
