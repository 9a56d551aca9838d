package server

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/jackc/pgx/v5"
)

// PostgreSQL replicas (Config.ReplicaOf): the data directory is a base backup of the running
// primary, taken by pg_basebackup over 127.0.0.1 with the WAL streamed beside it; the standby
// then streams the primary's WAL as application_name Config.Name. A failover promotes one
// (Promote) and points the others at it (Follow).

// pgBaseBackup fills the data directory with a base backup of the primary, as the service user,
// the superuser's password in a password file (never on a command line), and makes it a
// standby of the primary.
func (s *Server) pgBaseBackup(ctx context.Context) error {
	p := s.cfg.ReplicaOf
	tool := filepath.Join(filepath.Dir(s.bins.initdb), "pg_basebackup")
	if _, err := os.Stat(tool); err != nil {
		return fmt.Errorf("server: a replica needs pg_basebackup beside initdb: %w: %v", ErrBinaryNotFound, err)
	}
	pass := filepath.Join(s.dir, "pgpass")
	if err := os.WriteFile(pass, []byte(fmt.Sprintf("127.0.0.1:%d:*:postgres:%s\n", p.port, p.password)), 0o600); err != nil {
		return fmt.Errorf("server: %w", err)
	}
	defer os.Remove(pass)
	if err := s.chown(pass); err != nil {
		return err
	}
	off := s.logSize()
	err := s.runToolEnv(ctx, []string{"PGPASSFILE=" + pass}, tool, "-h", "127.0.0.1", "-p", fmt.Sprint(p.port),
		"-U", "postgres", "-D", s.dataDir, "-X", "stream", "-c", "fast", "--no-sync", "-w")
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return s.startError("pg_basebackup", "pg_basebackup failed", "its output is in the server log", off, err)
	}
	if err := s.writeFile(filepath.Join(s.dataDir, "standby.signal"), nil); err != nil {
		return err
	}
	return s.writeStandbyConf(p)
}

// writeStandbyConf appends to postgresql.auto.conf (read after postgresql.conf) the connection
// to primary p and hot standby; the file holds the password and lives in the 0700 data
// directory.
func (s *Server) writeStandbyConf(p *Server) error {
	f, err := os.OpenFile(filepath.Join(s.dataDir, "postgresql.auto.conf"), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return fmt.Errorf("server: %w", err)
	}
	_, err = fmt.Fprintf(f, "# Added by rumbench: a standby of the primary on port %d.\nprimary_conninfo = %s\nhot_standby = on\n",
		p.port, pgQuote(s.primaryConninfo(p)))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("server: %w", err)
	}
	return s.chown(filepath.Join(s.dataDir, "postgresql.auto.conf"))
}

// primaryConninfo is the replica's connection to primary p (its password is the cluster's).
func (s *Server) primaryConninfo(p *Server) string {
	return fmt.Sprintf("host=127.0.0.1 port=%d user=postgres password=%s application_name=%s", p.port, p.password, s.cfg.Name)
}

// runToolEnv runs a set-up program as the service user with env added to its environment.
func (s *Server) runToolEnv(ctx context.Context, env []string, path string, args ...string) error {
	s.toolExtra = env
	defer func() { s.toolExtra = nil }()
	return s.runTool(ctx, true, nil, path, args...)
}

// Standby says whether the instance is a PostgreSQL standby (made with Config.ReplicaOf and not
// promoted since).
func (s *Server) Standby() bool {
	s.stopMu.Lock()
	defer s.stopMu.Unlock()
	return s.cfg.ReplicaOf != nil && !s.promoted
}

// Promote makes a standby a primary (pg_promote, waiting up to a minute for the end of its
// recovery: it replays all the WAL it received first). Its data directory loses standby.signal.
func (s *Server) Promote(ctx context.Context) error {
	var ok bool
	err := s.pgExec(ctx, "postgres", func(c *pgx.Conn) error {
		return c.QueryRow(ctx, "SELECT pg_promote(true, 60)").Scan(&ok)
	})
	if err == nil && !ok {
		err = errors.New("pg_promote returned false: the promotion did not finish within 60 s")
	}
	if err != nil {
		return fmt.Errorf("server: promote %s: %w", s.cfg.Name, err)
	}
	s.logf("promoted to primary")
	s.stopMu.Lock()
	s.promoted = true
	s.stopMu.Unlock()
	return nil
}

// Follow points a standby at primary p (a new primary after a failover): primary_conninfo is
// changed and the configuration reloaded; the standby follows p's new timeline
// (recovery_target_timeline latest, the default).
func (s *Server) Follow(ctx context.Context, p *Server) error {
	err := s.pgExec(ctx, "postgres", func(c *pgx.Conn) error {
		if _, err := c.Exec(ctx, "ALTER SYSTEM SET primary_conninfo = "+pgLiteral(s.primaryConninfo(p))); err != nil {
			return err
		}
		_, err := c.Exec(ctx, "SELECT pg_reload_conf()")
		return err
	})
	if err != nil {
		return fmt.Errorf("server: %s follows the primary on port %d: %w", s.cfg.Name, p.port, err)
	}
	s.logf("follows the primary on port %d", p.port)
	return nil
}

// SetSynchronousStandbys sets a primary's synchronous_standby_names (ALTER SYSTEM, then a
// reload): "ANY 1 (*)" makes each commit wait until one standby has flushed it, "" waits for
// none. Set it once the standbys stream: the primary's own setup (CREATE DATABASE) would wait.
func (s *Server) SetSynchronousStandbys(ctx context.Context, names string) error {
	err := s.pgExec(ctx, "postgres", func(c *pgx.Conn) error {
		if _, err := c.Exec(ctx, "ALTER SYSTEM SET synchronous_standby_names = "+pgLiteral(names)); err != nil {
			return err
		}
		_, err := c.Exec(ctx, "SELECT pg_reload_conf()")
		return err
	})
	if err != nil {
		return fmt.Errorf("server: synchronous_standby_names on port %d: %w", s.port, err)
	}
	s.logf("synchronous_standby_names = '%s'", names)
	return nil
}

// pgLiteral quotes v as an SQL string literal (standard_conforming_strings on).
func pgLiteral(v string) string { return "'" + strings.ReplaceAll(v, "'", "''") + "'" }

// WALReceived returns the WAL position a standby has received and flushed, bytes from 0/0 (0
// before it received any).
func (s *Server) WALReceived(ctx context.Context) (int64, error) {
	var n *int64
	err := s.pgExec(ctx, "postgres", func(c *pgx.Conn) error {
		return c.QueryRow(ctx, "SELECT pg_wal_lsn_diff(pg_last_wal_receive_lsn(), '0/0')::bigint").Scan(&n)
	})
	if err != nil {
		return 0, fmt.Errorf("server: %s: %w", s.cfg.Name, err)
	}
	if n == nil {
		return 0, nil
	}
	return *n, nil
}

// Kill ends every process of the instance at once (SIGKILL) and leaves it down: a failed
// primary. Stop afterwards returns nil; Stats returns ErrNotRunning.
func (s *Server) Kill() error {
	s.stopMu.Lock()
	defer s.stopMu.Unlock()
	if s.stopped {
		return ErrStopped
	}
	s.logf("fault: killing %s (pid %d) with SIGKILL; it stays down", s.kind, s.pid)
	s.killAll(s.instanceProcs())
	if s.waitDone != nil {
		<-s.waitDone
	}
	err := s.reap()
	s.stopped, s.stopErr = true, nil
	return err
}

// Name returns Config.Name: the instance's name in its cluster ("" for a lone server).
func (s *Server) Name() string { return s.cfg.Name }
