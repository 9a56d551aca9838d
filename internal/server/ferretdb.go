package server

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"
)

// FerretDB instance: the rumbench-ferretdb helper (FerretDB v1 embedded, built from
// tools/ferretdb in a Go module of its own) runs as the current user. Over SQLite (the
// server-level default) its files are in Dir/data. Over PostgreSQL (Config.Backend) Start first
// creates and starts a private PostgreSQL instance in Dir/postgresql (an instance of this
// package, as the postgres engine's), and the helper stores each collection in a table of its
// database rumbench, reached over TCP on 127.0.0.1 as postgres with the instance's random
// password, which the helper gets in its environment (PGPASSWORD), never on its command line.
// The helper needs no initialization program and no setup client: once it listens it writes
// Dir/ready with its pid, its address and its version, which is what readiness waits for.
// Settings become the helper's flags (-name=value: log-level, sqlite-params).

// FerretDBHelper is the file name of the FerretDB helper program.
const FerretDBHelper = "rumbench-ferretdb"

// FerretDBEnv is the environment variable that names the helper program's path; it wins over
// the search beside the rumbench binary and in PATH (tests and `make test` set it).
const FerretDBEnv = "RUMBENCH_FERRETDB"

// findFerretDB finds the helper: in binDir when given, else at $RUMBENCH_FERRETDB, beside the
// running executable, then in PATH.
func findFerretDB(binDir string, r searchRoots) (binaries, error) {
	var tried []string
	found := func(p string) (binaries, error) {
		return binaries{server: p, baseDir: filepath.Dir(p)}, nil
	}
	if binDir != "" {
		abs, err := filepath.Abs(binDir)
		if err != nil {
			return binaries{}, err
		}
		if p := lookIn([]string{abs}, FerretDBHelper); p != "" {
			return found(p)
		}
		return binaries{}, &notFoundError{fmt.Sprintf("ferretdb server binaries not found in %s (missing %s): install %s or pass the directory that holds %s with --server-bin",
			abs, FerretDBHelper, packageName(FerretDB), FerretDBHelper)}
	}
	if p := os.Getenv(FerretDBEnv); p != "" {
		if isExecutable(p) {
			abs, err := filepath.Abs(p)
			if err != nil {
				return binaries{}, err
			}
			return found(abs)
		}
		return binaries{}, &notFoundError{fmt.Sprintf("ferretdb helper: %s=%s is not an executable file", FerretDBEnv, p)}
	}
	if exe, err := os.Executable(); err == nil {
		dir := filepath.Dir(exe)
		tried = append(tried, dir)
		if p := lookIn([]string{dir}, FerretDBHelper); p != "" {
			return found(p)
		}
	}
	if p := lookIn(r.path, FerretDBHelper); p != "" {
		return found(p)
	}
	tried = append(tried, r.describe)
	return binaries{}, &notFoundError{fmt.Sprintf("ferretdb helper %s not found (looked beside rumbench in %s and in PATH): build it with `make ferretdb` (bin/%s), set %s to its path or pass its directory with --server-bin; or give --dsn mongodb://... for a server you run",
		FerretDBHelper, strings.Join(tried[:len(tried)-1], ", "), FerretDBHelper, FerretDBEnv)}
}

// isExecutable reports whether p is a regular file with an execute bit.
func isExecutable(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular() && fi.Mode().Perm()&0o111 != 0
}

// ferretInit creates the data directory and, over PostgreSQL, starts the backend instance.
func (s *Server) ferretInit(ctx context.Context) error {
	if err := os.MkdirAll(s.dataDir, 0o700); err != nil {
		return fmt.Errorf("server: %w", err)
	}
	// A ready file left by an earlier launch (a port conflict) must not be taken for this one.
	_ = os.Remove(s.readyPath())
	if s.cfg.Backend != BackendPostgreSQL {
		return nil
	}
	// PostgreSQL runs as its service user when rumbench is root: it must traverse Dir (which
	// stays unreadable to others: the password and the log are 0600).
	if err := os.Chmod(s.dir, 0o711); err != nil {
		return fmt.Errorf("server: %w", err)
	}
	s.step = "postgresql backend"
	// force_custom_plan: see ginTriggerSQL. The caller's settings come after (and win).
	settings := append([]Setting{{Name: "plan_cache_mode", Value: "force_custom_plan"}}, s.cfg.BackendSettings...)
	pg, err := Start(ctx, Config{Kind: Postgres, Dir: s.backendDir(), Settings: settings,
		Cgroup: s.cfg.Cgroup, StartTimeout: s.cfg.StartTimeout})
	if err != nil {
		return fmt.Errorf("ferretdb's postgresql backend: %w", err)
	}
	s.backend = pg
	off := pg.logSize()
	err = pg.pgExec(ctx, "rumbench", func(c *pgx.Conn) error {
		_, err := c.Exec(ctx, ginTriggerSQL)
		return err
	})
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return pg.startError("setup", fmt.Sprintf("could not create the index event trigger (%v)", err), "see the server log", off, err)
	}
	return nil
}

// ginTriggerSQL makes every index FerretDB creates in the PostgreSQL backend serve the lookups
// FerretDB sends. FerretDB stores a document as the jsonb column _jsonb, indexes a field f as the
// B-tree expression (_jsonb -> 'f') (the _id index among them), but filters an equality on f as
// containment, _jsonb -> 'f' @> value, which a B-tree cannot serve: PostgreSQL scanned the table
// for every find by _id. After each such B-tree index the trigger adds a GIN index
// (jsonb_path_ops, which serves @>) on the index's first expression, named rumbench_gin_<oid of
// the B-tree index>, in the same transaction. The planner matches it when it plans with the
// values (FerretDB passes the field name as a parameter too), which plan_cache_mode =
// force_custom_plan guarantees for FerretDB's cached prepared statements.
const ginTriggerSQL = `
CREATE FUNCTION rumbench_gin_companion() RETURNS event_trigger LANGUAGE plpgsql AS $fn$
DECLARE
	r record;
	expr text;
BEGIN
	FOR r IN SELECT c.objid FROM pg_event_trigger_ddl_commands() c
		JOIN pg_class i ON i.oid = c.objid JOIN pg_am a ON a.oid = i.relam
		WHERE c.command_tag = 'CREATE INDEX' AND a.amname = 'btree'
	LOOP
		expr := pg_get_indexdef(r.objid, 1, false);
		IF expr LIKE '((_jsonb -> %' THEN
			EXECUTE format('CREATE INDEX %I ON %s USING gin (%s jsonb_path_ops)', 'rumbench_gin_' || r.objid,
				(SELECT indrelid::regclass FROM pg_index WHERE indexrelid = r.objid), expr);
		END IF;
	END LOOP;
END
$fn$;
CREATE EVENT TRIGGER rumbench_gin_companion ON ddl_command_end WHEN TAG IN ('CREATE INDEX')
	EXECUTE FUNCTION rumbench_gin_companion();
`

// backendDir is Dir/postgresql, the PostgreSQL backend's instance directory.
func (s *Server) backendDir() string { return filepath.Join(s.dir, "postgresql") }

// Backend returns FerretDB's PostgreSQL backend instance, nil over SQLite and for the other
// kinds. It is the FerretDB server's to stop.
func (s *Server) Backend() *Server { return s.backend }

// readyPath is Dir/ready, the file the helper writes once it listens.
func (s *Server) readyPath() string { return filepath.Join(s.dir, "ready") }

// ferretArgs is the helper's command line: the address and data directory first, the backend,
// then rumbench's settings as flags.
func (s *Server) ferretArgs() []string {
	_ = os.Remove(s.readyPath())
	args := []string{"-listen", "127.0.0.1:" + strconv.Itoa(s.port), "-dir", s.dataDir, "-ready", s.readyPath()}
	if s.backend != nil {
		// No password here (the command line is logged and visible to ps): pgx takes it from
		// PGPASSWORD (ferretEnv).
		args = append(args, "-handler=postgresql",
			fmt.Sprintf("-postgresql-url=postgres://postgres@127.0.0.1:%d/rumbench?sslmode=disable", s.backend.port))
	}
	for _, st := range s.cfg.Settings {
		switch st.Name {
		case "listen", "dir", "ready", "handler", "postgresql-url":
			continue // the instance's own: not to be moved
		}
		args = append(args, "-"+st.Name+"="+st.Value)
	}
	return args
}

// ferretEnv is the helper's environment beyond the caller's: the PostgreSQL backend's password.
func (s *Server) ferretEnv() []string {
	if s.backend == nil {
		return nil
	}
	return []string{"PGPASSWORD=" + s.backend.password}
}

// ferretReady reports whether Dir/ready names our helper process, and takes the version from it.
func (s *Server) ferretReady() bool {
	b, err := os.ReadFile(s.readyPath())
	if err != nil {
		return false
	}
	lines := strings.Split(string(b), "\n")
	if len(lines) < 3 || strings.TrimSpace(lines[0]) != strconv.Itoa(s.pid) {
		return false
	}
	s.version = strings.TrimSpace(lines[2]) + " over SQLite"
	if s.backend != nil {
		s.version = strings.TrimSpace(lines[2]) + " over " + s.backend.version
	}
	return true
}

// stopBackend stops the PostgreSQL backend (after the helper: Stop, or kill for a failed start)
// and appends its log to the server log, so that the one log a run keeps holds both.
func (s *Server) stopBackend(ctx context.Context, kill bool) error {
	pg := s.backend
	if pg == nil {
		return nil
	}
	var err error
	if kill {
		err = pg.kill(quitWait)
		pg.stopMu.Lock()
		pg.stopped, pg.stopErr = true, err
		pg.stopMu.Unlock()
	} else {
		err = pg.Stop(ctx)
	}
	if b, rerr := os.ReadFile(pg.logPath); rerr == nil {
		if f, oerr := s.openLog(); oerr == nil {
			logLine(f, "the PostgreSQL backend's log ("+pg.logPath+") follows")
			_, _ = f.Write(b)
			f.Close()
		}
	}
	if err != nil {
		return fmt.Errorf("ferretdb's postgresql backend: %w", err)
	}
	return nil
}
