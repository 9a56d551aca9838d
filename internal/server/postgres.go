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

// PostgreSQL instance: initdb as the postgres user, rumbench's settings and an include of the
// user's file appended to data/postgresql.conf, the postmaster run directly (no pg_ctl) with
// its stderr in Dir/server.log, readiness from postmaster.pid, setup over TCP on rumbench's own connection (pgx; the
// socket directory may hold a comma, which client libraries read as a list of hosts).

func (s *Server) pgInit(ctx context.Context) error {
	if s.cfg.ReplicaOf != nil {
		return s.pgBaseBackup(ctx)
	}
	off := s.logSize()
	// Every connection, over the socket and over TCP, needs the superuser's random password:
	// a local user cannot connect as postgres (who may run shell commands on the server).
	pwfile := filepath.Join(s.dir, "initdb.pw")
	if err := os.WriteFile(pwfile, []byte(s.password+"\n"), 0o600); err != nil {
		return fmt.Errorf("server: %w", err)
	}
	defer os.Remove(pwfile)
	if err := s.chown(pwfile); err != nil {
		return err
	}
	err := s.runTool(ctx, true, nil, s.bins.initdb, "-D", s.dataDir, "-U", "postgres",
		"--auth-local=scram-sha-256", "--auth-host=scram-sha-256", "--pwfile="+pwfile,
		"-E", "UTF8", "--no-locale", "--no-sync")
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return s.startError("initdb", "initdb failed", "its output is in the server log", off, err)
	}
	var b strings.Builder
	b.WriteString("\n# Added by rumbench: its settings, then the user's file (a later line wins).\n")
	for _, st := range s.cfg.Settings {
		fmt.Fprintf(&b, "%s = %s\n", st.Name, pgQuote(st.Value))
	}
	if s.cfg.ConfigFile != "" {
		if err := s.writeFile(s.userConfigPath(), s.userConf); err != nil {
			return err
		}
		// include resolves a relative name against the including file's directory; the
		// copy's absolute path keeps it independent of that.
		fmt.Fprintf(&b, "include %s\n", pgQuote(s.userConfigPath()))
	}
	f, err := os.OpenFile(s.configPath(), os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		return fmt.Errorf("server: %w", err)
	}
	_, err = f.WriteString(b.String())
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("server: %w", err)
	}
	return nil
}

// pgQuote quotes a postgresql.conf value: single quotes doubled, backslashes escaped.
func pgQuote(v string) string {
	v = strings.ReplaceAll(v, `\`, `\\`)
	return "'" + strings.ReplaceAll(v, "'", "''") + "'"
}

// pgArgs is the postmaster's command line. Options given here win over postgresql.conf,
// so the user's file cannot move the server off 127.0.0.1 or its log out of server.log.
func (s *Server) pgArgs() []string {
	return []string{
		"-D", s.dataDir, "-p", strconv.Itoa(s.port), "-k", pgSocketDirs(s.dir),
		"-c", "listen_addresses=127.0.0.1",
		"-c", "logging_collector=off", "-c", "log_destination=stderr",
	}
}

// pgSocketDirs is dir as unix_socket_directories takes it: that setting is a comma-separated
// list, so the directory is double-quoted (a comma in it stays in the name) and a double quote
// in it doubled.
func pgSocketDirs(dir string) string { return `"` + strings.ReplaceAll(dir, `"`, `""`) + `"` }

// pgReady reports whether postmaster.pid names our postmaster with status "ready" (line 8),
// which the postmaster writes once it accepts connections (what pg_ctl -w waits for).
func (s *Server) pgReady() bool {
	b, err := os.ReadFile(filepath.Join(s.dataDir, "postmaster.pid"))
	if err != nil {
		return false
	}
	lines := strings.Split(string(b), "\n")
	return len(lines) >= 8 && strings.TrimSpace(lines[0]) == strconv.Itoa(s.pid) &&
		strings.TrimSpace(lines[7]) == "ready"
}

// pgSetup creates the database rumbench and reads the server version, over rumbench's own
// connection (no psql: a portable build need not ship it).
func (s *Server) pgSetup(ctx context.Context) error {
	off := s.logSize()
	var v string
	err := s.pgExec(ctx, "postgres", func(c *pgx.Conn) error {
		if s.cfg.ReplicaOf != nil {
			// A standby is read-only; its copy of the primary has the database.
		} else if _, err := c.Exec(ctx, "CREATE DATABASE rumbench"); err != nil {
			return err
		}
		return c.QueryRow(ctx, "SHOW server_version").Scan(&v)
	})
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return s.startError("setup", fmt.Sprintf("could not create the database (%v)", err), "see the server log", off, err)
	}
	s.version = "PostgreSQL " + strings.TrimSpace(v)
	return nil
}

// pgExec connects to database db of the instance as postgres over TCP, runs f and closes the
// connection.
func (s *Server) pgExec(ctx context.Context, db string, f func(c *pgx.Conn) error) error {
	cfg, err := pgx.ParseConfig(fmt.Sprintf("host=127.0.0.1 port=%d user=postgres dbname=%s sslmode=disable", s.port, db))
	if err != nil {
		return err
	}
	cfg.Password = s.password
	c, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return err
	}
	defer c.Close(context.WithoutCancel(ctx))
	return f(c)
}
