package server

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// ErrBinaryNotFound matches (errors.Is) the error Start returns when the server's programs
// cannot be found.
var ErrBinaryNotFound = errors.New("server binaries not found")

// notFoundError is the user-facing message for ErrBinaryNotFound.
type notFoundError struct{ msg string }

func (e *notFoundError) Error() string        { return e.msg }
func (e *notFoundError) Is(target error) bool { return target == ErrBinaryNotFound }

// binaries holds the absolute paths of the programs an instance needs.
type binaries struct {
	server  string // postgres | mariadbd (mysqld in a MySQL or older MariaDB build)
	initdb  string // initdb | mariadb-install-db (mysql_install_db); "" when selfInit
	baseDir string // directory of the server binary
	// selfInit: the server creates its own data directory (MySQL 5.7 and later:
	// mysqld --initialize-insecure); there is no install script.
	selfInit bool
}

// searchRoots are the places discovery looks in; tests replace them.
type searchRoots struct {
	path     []string // PATH entries
	pgRoot   string   // /usr/lib/postgresql
	sbin     string   // /usr/sbin
	usrBin   string   // /usr/bin
	describe string   // how PATH is named in messages
}

func defaultRoots() searchRoots {
	return searchRoots{
		path:   filepath.SplitList(os.Getenv("PATH")),
		pgRoot: "/usr/lib/postgresql", sbin: "/usr/sbin", usrBin: "/usr/bin",
		describe: "PATH",
	}
}

// findBinaries locates the programs for kind in binDir, or by discovery when binDir is "".
func findBinaries(kind Kind, binDir string) (binaries, error) {
	return findBinariesIn(kind, binDir, defaultRoots())
}

func findBinariesIn(kind Kind, binDir string, r searchRoots) (binaries, error) {
	if kind == FerretDB {
		return findFerretDB(binDir, r)
	}
	names := []string{"postgres", "initdb"}
	if kind == MariaDB {
		names = []string{"mariadbd", "mariadb-install-db"}
	}
	if binDir != "" {
		abs, err := filepath.Abs(binDir)
		if err != nil {
			return binaries{}, err
		}
		dirs := []string{abs}
		if kind == Postgres {
			// A directory of symlinks (/usr/local/bin/postgres -> .../15/bin/postgres):
			// the programs it lacks are taken from where postgres really is.
			if real, err := filepath.EvalSymlinks(filepath.Join(abs, "postgres")); err == nil {
				dirs = append(dirs, filepath.Dir(real))
			}
		}
		if kind == MariaDB {
			up := filepath.Dir(abs)
			dirs = append(dirs, filepath.Join(up, "bin"), filepath.Join(up, "sbin"), filepath.Join(up, "scripts"))
		}
		if kind == MariaDB {
			return findMySQLBuild(abs, dirs)
		}
		var b binaries
		var missing []string
		for i, n := range names {
			p := lookIn(dirs, n)
			if p == "" {
				missing = append(missing, n)
			}
			*b.slot(i) = p
		}
		if len(missing) > 0 {
			return binaries{}, &notFoundError{fmt.Sprintf(
				"%s server binaries not found in %s (missing %s): install %s or pass the directory that holds %s with --server-bin",
				kind, abs, strings.Join(missing, ", "), packageName(kind), strings.Join(names, ", "))}
		}
		b.baseDir = filepath.Dir(b.server)
		return b, nil
	}
	if kind == Postgres {
		return findPostgres(r)
	}
	return findMariaDB(r)
}

// findMySQLBuild finds the programs of a MariaDB or MySQL build in dirs (the --server-bin
// directory, then bin/, sbin/ and scripts/ beside it): the server is mariadbd, or mysqld (MySQL,
// MariaDB before 10.5); the data directory is made by mariadb-install-db or mysql_install_db,
// or, in a MySQL build that has neither (8.0 and later), by mysqld --initialize-insecure.
func findMySQLBuild(abs string, dirs []string) (binaries, error) {
	b := binaries{server: lookIn(dirs, "mariadbd")}
	if b.server == "" {
		b.server = lookIn(dirs, "mysqld")
	}
	b.initdb = lookIn(dirs, "mariadb-install-db")
	if b.initdb == "" {
		b.initdb = lookIn(dirs, "mysql_install_db")
	}
	if b.server == "" {
		return binaries{}, &notFoundError{fmt.Sprintf(
			"mariadb server binaries not found in %s (missing mariadbd or mysqld): install mariadb-server or pass the directory of a MariaDB or MySQL build's bin/ with --server-bin", abs)}
	}
	b.baseDir = filepath.Dir(b.server)
	if b.initdb != "" {
		return b, nil
	}
	if out, err := programOutput(context.Background(), b.server, "--version"); err == nil && !bytes.Contains(out, []byte("MariaDB")) {
		b.selfInit = true // MySQL: mysqld --initialize-insecure
		return b, nil
	}
	return binaries{}, &notFoundError{fmt.Sprintf(
		"mysql server binaries not found in %s (missing mariadb-install-db): a MariaDB build keeps it in scripts/ or bin/; pass the directory of the build's bin/ with --server-bin", abs)}
}

func (b *binaries) slot(i int) *string {
	return [2]*string{&b.server, &b.initdb}[i]
}

func packageName(kind Kind) string {
	switch kind {
	case Postgres:
		return "postgresql"
	case FerretDB:
		return "the rumbench-ferretdb helper (make build)"
	}
	return "mariadb-server"
}

// findPostgres prefers /usr/lib/postgresql/<highest>/bin, then the real directory of a
// `postgres` in PATH (symlinks resolved, so that initdb is found next to it).
func findPostgres(r searchRoots) (binaries, error) {
	var dirs []string
	for _, v := range pgVersions(r.pgRoot) {
		dirs = append(dirs, filepath.Join(r.pgRoot, v, "bin"))
	}
	if p := lookIn(r.path, "postgres"); p != "" {
		if real, err := filepath.EvalSymlinks(p); err == nil {
			dirs = append(dirs, filepath.Dir(real))
		}
		dirs = append(dirs, filepath.Dir(p))
	}
	for _, d := range dirs {
		b := binaries{server: lookIn([]string{d}, "postgres"), initdb: lookIn([]string{d}, "initdb"), baseDir: d}
		if b.server != "" && b.initdb != "" {
			return b, nil
		}
	}
	return binaries{}, &notFoundError{fmt.Sprintf(
		"postgres server binaries not found in %s or %s/*/bin: install postgresql or pass the directory with --server-bin",
		r.describe, r.pgRoot)}
}

// findMariaDB finds mariadbd in PATH or /usr/sbin, and mariadb-install-db next to it, in PATH
// or in /usr/bin.
func findMariaDB(r searchRoots) (binaries, error) {
	server := lookIn(append(append([]string{}, r.path...), r.sbin), "mariadbd")
	if server == "" {
		return binaries{}, &notFoundError{fmt.Sprintf(
			"mariadb server binaries not found in %s or %s: install mariadb-server or pass the directory with --server-bin",
			r.describe, r.sbin)}
	}
	dirs := append(append([]string{filepath.Dir(server)}, r.path...), r.usrBin)
	b := binaries{server: server, baseDir: filepath.Dir(server), initdb: lookIn(dirs, "mariadb-install-db")}
	if b.initdb == "" {
		return binaries{}, &notFoundError{fmt.Sprintf(
			"mariadb program mariadb-install-db not found next to %s, in %s or %s: install mariadb-server or pass the directory with --server-bin",
			server, r.describe, r.usrBin)}
	}
	return b, nil
}

// lookIn returns the first executable regular file named name in dirs, or "".
func lookIn(dirs []string, name string) string {
	for _, d := range dirs {
		if d == "" {
			continue
		}
		p := filepath.Join(d, name)
		fi, err := os.Stat(p)
		if err != nil || !fi.Mode().IsRegular() || fi.Mode().Perm()&0o111 == 0 {
			continue
		}
		if abs, err := filepath.Abs(p); err == nil {
			return abs
		}
	}
	return ""
}

// pgVersions lists the version directories under root, highest first ("16", "15", "9.6").
func pgVersions(root string) []string {
	ents, err := os.ReadDir(root)
	if err != nil {
		return nil
	}
	var vs []string
	for _, e := range ents {
		if _, ok := versionKey(e.Name()); ok {
			vs = append(vs, e.Name())
		}
	}
	sort.Slice(vs, func(i, j int) bool {
		a, _ := versionKey(vs[i])
		b, _ := versionKey(vs[j])
		for k := 0; k < len(a) && k < len(b); k++ {
			if a[k] != b[k] {
				return a[k] > b[k]
			}
		}
		return len(a) > len(b)
	})
	return vs
}

func versionKey(name string) ([]int, bool) {
	var key []int
	for _, part := range strings.Split(name, ".") {
		n, err := strconv.Atoi(part)
		if err != nil {
			return nil, false
		}
		key = append(key, n)
	}
	return key, true
}

// CheckBinaries says whether the programs of a kind of server are found, in binDir when it is
// not empty, else where Start would discover them: nil, or the error Start would return
// (errors.Is ErrBinaryNotFound), which names what is missing and how to install it.
func CheckBinaries(kind Kind, binDir string) error {
	_, err := findBinaries(kind, binDir)
	return err
}
