package server

import (
	"context"
	"database/sql"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	_ "github.com/go-sql-driver/mysql"
)

func TestMariaDBLifecycle(t *testing.T) {
	requireKind(t, MariaDB)
	t.Parallel()
	// No group header: the fragment must be read as [mysqld].
	conf := writeConf(t, "my.cnf", "# the user's file\nmax_connections = 77\n")
	pick, busy := busyPortFirst(t)
	s := startServer(t, Config{
		Kind: MariaDB, Dir: instanceDir(t), ConfigFile: conf, Plugins: []string{"ha_rocksdb"},
		Settings: []Setting{{"innodb_buffer_pool_size", "64M"}, {"max_connections", "50"},
			{"init_connect", `SET @a = 'x; "y"' # z`}},
		pickPort: pick,
	})
	checkRetried(t, s, busy)
	if !strings.Contains(s.Version(), "MariaDB") || s.Kind() != MariaDB {
		t.Errorf("Version %q, Kind %q", s.Version(), s.Kind())
	}
	db, err := sql.Open("mysql", s.DSN())
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx := context.Background()
	for name, want := range map[string]string{
		"innodb_buffer_pool_size": "67108864", // a Setting
		"max_connections":         "77",       // a Setting the user's file overrides
		"bind_address":            "127.0.0.1",
		"init_connect":            `SET @a = 'x; "y"' # z`, // quoted in my.cnf
		"datadir":                 filepath.Join(s.Dir(), "data") + "/",
	} {
		var n, got string
		if err := db.QueryRowContext(ctx, "SHOW GLOBAL VARIABLES LIKE '"+name+"'").Scan(&n, &got); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if got != want {
			t.Errorf("%s = %q, want %q", name, got, want)
		}
	}
	for _, q := range []string{
		"CREATE TABLE t (id int primary key, v varchar(40)) ENGINE=ROCKSDB",
		"INSERT INTO t SELECT seq, md5(seq) FROM seq_1_to_50000",
		"CREATE TABLE i (id int primary key) ENGINE=InnoDB",
	} {
		if _, err := db.ExecContext(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	var engine string
	if err := db.QueryRowContext(ctx, "SELECT ENGINE FROM information_schema.TABLES WHERE TABLE_SCHEMA='rumbench' AND TABLE_NAME='t'").Scan(&engine); err != nil || engine != "ROCKSDB" {
		t.Fatalf("engine of t = %q, %v", engine, err)
	}
	var n int
	if err := db.QueryRowContext(ctx, "SELECT count(DISTINCT v) FROM t").Scan(&n); err != nil || n != 50000 {
		t.Fatalf("count = %d, %v", n, err)
	}
	st, err := s.Stats(true)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%+v", st)
	if st.Pids != 1 || st.CPUTicks == 0 || st.RSSBytes <= 0 || st.PSSBytes <= 0 || st.PSSBytes > st.RSSBytes {
		t.Errorf("Stats = %+v: want one process, CPU > 0, 0 < PSS <= RSS", st)
	}
	db.Close()
	stopAndCheck(t, s)
	if _, err := os.Stat(filepath.Join(s.Dir(), "mysqld.sock")); err == nil {
		t.Errorf("socket left after a clean shutdown")
	}
}

func TestMariaDBBadConfig(t *testing.T) {
	requireKind(t, MariaDB)
	t.Parallel()
	for _, tc := range []struct {
		name, conf string
		plugins    []string
		want       []string // the first line must contain one of these
	}{
		{"bad value", "[mysqld]\ninnodb_buffer_pool_size=lots\n", nil, []string{"innodb_buffer_pool_size", "innodb-buffer-pool-size"}},
		{"unknown variable", "[mysqld]\nno_such_variable=1\n", nil, []string{"unknown variable 'no_such_variable=1'"}},
		{"missing plugin", "", []string{"ha_no_such_plugin"}, []string{"plugin ha_no_such_plugin is not active"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			cfg := Config{Kind: MariaDB, Dir: instanceDir(t), Plugins: tc.plugins}
			if tc.conf != "" {
				cfg.ConfigFile = writeConf(t, "bad.cnf", tc.conf)
			}
			err := startFailure(t, cfg)
			var se *StartError
			if !errors.As(err, &se) || se.LogTail == "" {
				t.Fatalf("want a *StartError with a log tail, got %#v", err)
			}
			first := strings.SplitN(err.Error(), "\n", 2)[0]
			for _, w := range tc.want {
				if strings.Contains(first, w) {
					return
				}
			}
			t.Errorf("first line of the error names none of %q:\n%s", tc.want, first)
		})
	}
}

// TestMyCnfPaths: a path that a my.cnf would read otherwise (a comment, an escape, a new line
// holding another setting) is refused before the file is written.
func TestMyCnfPaths(t *testing.T) {
	for _, p := range []string{"/tmp/a#b", "/tmp/a\\b", "/tmp/a\ninit-file=/x", `/tmp/"a"`} {
		s := &Server{dataDir: p, dir: t.TempDir()}
		if err := s.writeMyCnf(); err == nil || !strings.Contains(err.Error(), "which a MariaDB option file cannot hold") {
			t.Errorf("%q: %v", p, err)
		}
	}
	if err := cnfPath("/tmp/a b,c-d_e.f"); err != nil {
		t.Errorf("a plain path: %v", err)
	}
}
