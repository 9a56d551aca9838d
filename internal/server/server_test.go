package server

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestMissingBinaries(t *testing.T) {
	for _, kind := range Kinds() {
		t.Run(string(kind), func(t *testing.T) {
			empty := t.TempDir()
			_, err := Start(context.Background(), Config{Kind: kind, BinDir: empty, Dir: filepath.Join(t.TempDir(), "inst")})
			if !errors.Is(err, ErrBinaryNotFound) {
				t.Fatalf("want ErrBinaryNotFound, got %v", err)
			}
			for _, w := range []string{string(kind) + " server binaries not found in " + empty, "--server-bin", "install"} {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not contain %q", err, w)
				}
			}
		})
	}
}

func TestDiscovery(t *testing.T) {
	exe := func(dir string, names ...string) {
		t.Helper()
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		for _, n := range names {
			if err := os.WriteFile(filepath.Join(dir, n), []byte("#!/bin/sh\n"), 0o755); err != nil {
				t.Fatal(err)
			}
		}
	}
	root := t.TempDir()
	pg := filepath.Join(root, "lib", "postgresql")
	exe(filepath.Join(pg, "9.6", "bin"), "postgres", "initdb")
	exe(filepath.Join(pg, "15", "bin"), "postgres", "initdb")
	exe(filepath.Join(pg, "16", "bin"), "postgres") // incomplete: skipped
	r := searchRoots{pgRoot: pg, sbin: filepath.Join(root, "sbin"), usrBin: filepath.Join(root, "bin"), describe: "PATH"}

	b, err := findBinariesIn(Postgres, "", r)
	if err != nil || b.server != filepath.Join(pg, "15", "bin", "postgres") || b.initdb != filepath.Join(pg, "15", "bin", "initdb") {
		t.Fatalf("postgres discovery: %+v, %v", b, err)
	}
	if got := pgVersions(pg); !reflect.DeepEqual(got, []string{"16", "15", "9.6"}) {
		t.Errorf("pgVersions = %v", got)
	}

	r.pgRoot = filepath.Join(root, "none")
	_, err = findBinariesIn(Postgres, "", r)
	want := "postgres server binaries not found in PATH or " + r.pgRoot + "/*/bin: install postgresql or pass the directory with --server-bin"
	if !errors.Is(err, ErrBinaryNotFound) || err.Error() != want {
		t.Errorf("got %v\nwant %s", err, want)
	}

	_, err = findBinariesIn(MariaDB, "", r)
	if !errors.Is(err, ErrBinaryNotFound) || !strings.HasPrefix(err.Error(), "mariadb server binaries not found in PATH or "+r.sbin) {
		t.Errorf("mariadb without mariadbd: %v", err)
	}
	exe(r.sbin, "mariadbd")
	_, err = findBinariesIn(MariaDB, "", r)
	if !errors.Is(err, ErrBinaryNotFound) || !strings.Contains(err.Error(), "mariadb program mariadb-install-db not found") {
		t.Errorf("mariadb without its install program: %v", err)
	}
	exe(r.usrBin, "mariadb-install-db") // no client program: rumbench sets the instance up itself
	b, err = findBinariesIn(MariaDB, "", r)
	if err != nil || b.server != filepath.Join(r.sbin, "mariadbd") || b.initdb != filepath.Join(r.usrBin, "mariadb-install-db") {
		t.Errorf("mariadb discovery: %+v, %v", b, err)
	}
	// A tarball layout given as BinDir: bin/ and scripts/ next to each other.
	tar := filepath.Join(root, "tarball")
	exe(filepath.Join(tar, "bin"), "mariadbd")
	exe(filepath.Join(tar, "scripts"), "mariadb-install-db")
	if b, err = findBinariesIn(MariaDB, filepath.Join(tar, "bin"), r); err != nil || b.initdb != filepath.Join(tar, "scripts", "mariadb-install-db") || b.selfInit {
		t.Errorf("tarball: %+v, %v", b, err)
	}

	// Programs that print what the real ones print to --version.
	version := func(dir, text string) {
		t.Helper()
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "mysqld"), []byte("#!/bin/sh\necho '"+text+"'\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	// A MySQL 8 tarball: mysqld and no install script; it initializes itself.
	my8 := filepath.Join(root, "mysql-8.0", "bin")
	version(my8, "/x/bin/mysqld  Ver 8.0.36 for Linux on x86_64 (MySQL Community Server - GPL)")
	if b, err = findBinariesIn(MariaDB, my8, r); err != nil || !b.selfInit || b.initdb != "" || b.server != filepath.Join(my8, "mysqld") {
		t.Errorf("MySQL 8 build: %+v, %v", b, err)
	}
	// An older MariaDB: mysqld and scripts/mysql_install_db.
	old := filepath.Join(root, "mariadb-10.3")
	version(filepath.Join(old, "bin"), "mysqld  Ver 10.3.39-MariaDB for Linux on x86_64 (MariaDB Server)")
	_, err = findBinariesIn(MariaDB, filepath.Join(old, "bin"), r)
	if !errors.Is(err, ErrBinaryNotFound) || !strings.Contains(err.Error(), "missing mariadb-install-db") {
		t.Errorf("MariaDB build without its install script: %v", err)
	}
	exe(filepath.Join(old, "scripts"), "mysql_install_db")
	if b, err = findBinariesIn(MariaDB, filepath.Join(old, "bin"), r); err != nil || b.selfInit || b.initdb != filepath.Join(old, "scripts", "mysql_install_db") {
		t.Errorf("older MariaDB build: %+v, %v", b, err)
	}
}

func TestMissingConfigFile(t *testing.T) {
	requireKind(t, Postgres)
	dir := instanceDir(t)
	_, err := Start(context.Background(), Config{Kind: Postgres, Dir: dir, ConfigFile: filepath.Join(dir, "nope.conf")})
	if err == nil || !strings.Contains(err.Error(), "cannot read the postgres config file") {
		t.Fatalf("got %v", err)
	}
	if _, serr := os.Stat(dir); !errors.Is(serr, os.ErrNotExist) {
		t.Errorf("Start created %s before failing on the config file", dir)
	}
}

func TestDirUnreachable(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("only root hands the instance to a service user")
	}
	requireKind(t, Postgres)
	closed := filepath.Join(t.TempDir(), "closed")
	if err := os.Mkdir(closed, 0o700); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(closed, "a", "inst")
	_, err := Start(context.Background(), Config{Kind: Postgres, Dir: dir})
	if err == nil || !strings.Contains(err.Error(), "the postgres OS user cannot reach "+dir+": "+closed+" is mode 0700") {
		t.Fatalf("got %v", err)
	}
	if _, serr := os.Stat(filepath.Dir(dir)); !errors.Is(serr, os.ErrNotExist) {
		t.Errorf("Start created directories before failing")
	}
}

func TestDirNotEmpty(t *testing.T) {
	for _, kind := range Kinds() {
		t.Run(string(kind), func(t *testing.T) {
			requireKind(t, kind)
			dir := instanceDir(t)
			if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, "precious"), []byte("x"), 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := Start(context.Background(), Config{Kind: kind, Dir: dir})
			if !errors.Is(err, ErrDirNotEmpty) || !strings.Contains(err.Error(), dir+" is not empty") {
				t.Fatalf("want ErrDirNotEmpty naming %s, got %v", dir, err)
			}
			if ents, _ := os.ReadDir(dir); len(ents) != 1 {
				t.Errorf("Start touched the non-empty directory: %v", ents)
			}
		})
	}
}

func TestConfigValidate(t *testing.T) {
	for _, c := range []struct {
		cfg  Config
		want string
	}{
		{Config{Dir: "x"}, "no server kind"},
		{Config{Kind: "oracle", Dir: "x"}, `unknown server kind "oracle"`},
		{Config{Kind: Postgres}, "no instance directory"},
		{Config{Kind: Postgres, Dir: "x", Settings: []Setting{{"a b", "1"}}}, `invalid postgres setting name "a b"`},
		{Config{Kind: MariaDB, Dir: "x", Settings: []Setting{{"a", "1\n[client]"}}}, "value must be one line"},
		{Config{Kind: Postgres, Dir: "x", Plugins: []string{"ha_rocksdb"}}, "MariaDB-only"},
		{Config{Kind: Postgres, Dir: "x", Env: []string{"LD_PRELOAD"}}, `environment entry "LD_PRELOAD" is not KEY=VALUE`},
	} {
		err := c.cfg.validate()
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: got %v, want %q", c.cfg, err, c.want)
		}
	}
}

func TestParsers(t *testing.T) {
	// comm with spaces and parentheses, as a PostgreSQL backend can show.
	stat := "4242 (postgres: a (b) c) S 4200 4200 4200 0 -1 4194560 100 0 0 0 7 3 5 2 20 0 1 0 100 1000 50 18446744073709551615\n"
	e, err := parseStatHead([]byte(stat))
	if err != nil || e.state != 'S' || e.ppid != 4200 || e.pgrp != 4200 {
		t.Errorf("parseStatHead = %+v, %v", e, err)
	}
	if got := parsePss([]byte("Rss:  2048 kB\nPss:  1024 kB\nPss_Anon: 10 kB\n")); got != 1024*1024 {
		t.Errorf("parsePss = %d", got)
	}
	if got := lastLines([]byte("a\nb\nc\n"), 2); got != "b\nc" {
		t.Errorf("lastLines = %q", got)
	}
	if got := lastLines([]byte("a\nb"), 5); got != "a\nb" {
		t.Errorf("lastLines = %q", got)
	}
	if got := pgQuote(`it's C:\x`); got != `'it''s C:\\x'` {
		t.Errorf("pgQuote = %s", got)
	}
	if got := shellLine("/bin/x", []string{"-e", "SELECT 'a'\n FROM t;", "-p"}); got != `/bin/x -e 'SELECT '\''a'\'' FROM t;' -p` {
		t.Errorf("shellLine = %s", got)
	}
	if got := myQuote(`a "b" \c`); got != `"a \"b\" \\c"` {
		t.Errorf("myQuote = %s", got)
	}
	if got := myQuote("64M"); got != "64M" {
		t.Errorf("myQuote = %s", got)
	}
	if got := string(withGroupHeader([]byte("# c\nmax_connections=5\n"))); !strings.HasPrefix(got, "[mysqld]\n") {
		t.Errorf("withGroupHeader did not add a header: %q", got)
	}
	if got := string(withGroupHeader([]byte("# c\n[mysqld]\nmax_connections=5\n"))); strings.HasPrefix(got, "[mysqld]") {
		t.Errorf("withGroupHeader added a second header: %q", got)
	}
	log := `2026-11-21 23:20:14.231 UTC [10605] LOG:  invalid value for parameter "shared_buffers": "lots"
2026-11-21 23:20:14.231 UTC [10605] FATAL:  configuration file "/x/user.conf" contains errors
2026-11-21 23:20:35 0 [Warning] Could not increase number of max_open_files to more than 1024 (request: 32184)
2026-11-21 23:20:36 0 [ERROR] /usr/sbin/mariadbd: unknown variable 'foo_bar=1'
2026-11-21 23:20:36 0 [ERROR] Aborting
`
	want := []string{
		`LOG:  invalid value for parameter "shared_buffers": "lots"`,
		`FATAL:  configuration file "/x/user.conf" contains errors`,
		`[ERROR] /usr/sbin/mariadbd: unknown variable 'foo_bar=1'`,
	}
	if got := causeLines(log, 5); !reflect.DeepEqual(got, want) {
		t.Errorf("causeLines =\n%q\nwant\n%q", got, want)
	}
}
