// Command rumbench-ferretdb is the MongoDB-compatible server rumbench starts for its mongo engine
// when no --dsn is given: FerretDB v1 (a MongoDB wire-protocol front end that stores documents
// in SQLite or PostgreSQL), embedded through its ferretdb package.
//
// It lives in a Go module of its own so that FerretDB's dependencies never enter rumbench's
// module. rumbench's Makefile builds it into bin/ beside rumbench.
//
// Usage:
//
//	rumbench-ferretdb -listen 127.0.0.1:PORT -dir DATADIR -ready FILE [-handler sqlite|postgresql]
//	                  [-sqlite-params QUERY] [-postgresql-url URL] [-log-level warn]
//
// Once it accepts connections it writes FILE (atomically: a temporary file renamed) with three
// lines: its process id, the address it listens on and the FerretDB version. It runs until
// SIGTERM or SIGINT, then closes its listener and backend and exits 0. Errors go to stderr with a
// non-zero exit status.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"runtime/debug"
	"syscall"

	"github.com/FerretDB/FerretDB/ferretdb"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "rumbench-ferretdb:", err)
		os.Exit(1)
	}
}

func run() error {
	listen := flag.String("listen", "127.0.0.1:27017", "TCP address to listen on")
	dir := flag.String("dir", "", "data directory of the SQLite backend (one SQLite file per database)")
	handler := flag.String("handler", "sqlite", "storage backend: sqlite or postgresql")
	pgURL := flag.String("postgresql-url", "", "PostgreSQL URL of the postgresql backend")
	ready := flag.String("ready", "", "file written once the server accepts connections")
	level := flag.String("log-level", "warn", "log level: debug, info, warn or error")
	sqliteParams := flag.String("sqlite-params", "", "query parameters added to the SQLite URL, e.g. _txlock=immediate&_pragma=synchronous(normal)")
	flag.Parse()
	if flag.NArg() > 0 {
		return fmt.Errorf("unexpected arguments %q", flag.Args())
	}
	var lv slog.Level
	if err := lv.UnmarshalText([]byte(*level)); err != nil {
		return fmt.Errorf("-log-level %q: %v", *level, err)
	}
	cfg := &ferretdb.Config{
		Listener: ferretdb.ListenerConfig{TCP: *listen},
		Handler:  *handler,
		Logger:   slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: lv})),
	}
	switch *handler {
	case "sqlite":
		if *dir == "" {
			return errors.New("-dir is required with -handler sqlite")
		}
		abs, err := filepath.Abs(*dir)
		if err != nil {
			return err
		}
		if err := os.MkdirAll(abs, 0o700); err != nil {
			return err
		}
		cfg.SQLiteURL = "file:" + abs + "/"
		if *sqliteParams != "" {
			cfg.SQLiteURL += "?" + *sqliteParams
		}
	case "postgresql":
		if *pgURL == "" {
			return errors.New("-postgresql-url is required with -handler postgresql")
		}
		cfg.PostgreSQLURL = *pgURL
	default:
		return fmt.Errorf("-handler %q: want sqlite or postgresql", *handler)
	}
	f, err := ferretdb.New(cfg)
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	if *ready != "" {
		// New has bound the listener: the server accepts connections from here on.
		text := fmt.Sprintf("%d\n%s\n%s\n", os.Getpid(), f.MongoDBURI(), version())
		tmp := *ready + ".tmp"
		if err := os.WriteFile(tmp, []byte(text), 0o600); err != nil {
			return err
		}
		if err := os.Rename(tmp, *ready); err != nil {
			return err
		}
	}
	return f.Run(ctx)
}

// version returns the FerretDB module version linked in ("FerretDB v1.24.2").
func version() string {
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, d := range bi.Deps {
			if d.Path == "github.com/FerretDB/FerretDB" {
				return "FerretDB " + d.Version
			}
		}
	}
	return "FerretDB"
}
