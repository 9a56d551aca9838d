package server

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// PostgreSQL instance: initdb as the postgres user, rumbench's settings and an include of the
// user's file appended to data/postgresql.conf, the postmaster run directly (no pg_ctl) with
// its stderr in Dir/server.log, readiness from postmaster.pid, setup with psql over TCP (libpq
// reads a comma in a socket directory as a list of hosts).

func (s *Server) pgInit(ctx context.Context) error {
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

// pgSetup creates the database rumbench and reads the server version.
func (s *Server) pgSetup(ctx context.Context) error {
	off := s.logSize()
	var out bytes.Buffer
	err := s.runTool(ctx, false, &out, s.bins.client, "-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1",
		"-h", "127.0.0.1", "-p", strconv.Itoa(s.port), "-U", "postgres", "-d", "postgres",
		"-c", "CREATE DATABASE rumbench", "-c", "SHOW server_version")
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return s.startError("setup", fmt.Sprintf("psql could not create the database (%v)", err),
			"see the server log", off, err)
	}
	v := strings.TrimSpace(out.String())
	if i := strings.LastIndexByte(v, '\n'); i >= 0 {
		v = v[i+1:]
	}
	s.version = "PostgreSQL " + v
	return nil
}
