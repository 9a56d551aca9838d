package server

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/user"
	"path/filepath"
	"strconv"
	"syscall"
)

// ErrDirNotEmpty matches (errors.Is) the error Start returns when Config.Dir exists and is
// not an empty directory.
var ErrDirNotEmpty = errors.New("instance directory is not empty")

type dirError struct{ msg string }

func (e *dirError) Error() string        { return e.msg }
func (e *dirError) Is(target error) bool { return target == ErrDirNotEmpty }

// account is the OS user a server runs as when rumbench runs as root.
type account struct {
	name     string
	uid, gid uint32
}

// maxSocketPath is the longest unix socket path Linux accepts (sun_path minus the NUL).
const maxSocketPath = 107

// serviceAccount returns the service user for kind when the current process is root (the
// servers refuse to run as root), nil otherwise. FerretDB's helper runs as the current user.
func serviceAccount(kind Kind) (*account, error) {
	if os.Geteuid() != 0 || kind == FerretDB {
		return nil, nil
	}
	name := "postgres"
	if kind == MariaDB {
		name = "mysql"
	}
	u, err := user.Lookup(name)
	if err != nil {
		return nil, fmt.Errorf("server: %s must not run as root and the OS user %s does not exist: install %s (it creates the user) or run rumbench as a non-root user",
			kind, name, packageName(kind))
	}
	uid, err1 := strconv.ParseUint(u.Uid, 10, 32)
	gid, err2 := strconv.ParseUint(u.Gid, 10, 32)
	if err1 != nil || err2 != nil {
		return nil, fmt.Errorf("server: OS user %s has a non-numeric uid or gid (%s:%s)", name, u.Uid, u.Gid)
	}
	return &account{name: name, uid: uint32(uid), gid: uint32(gid)}, nil
}

// credential returns the process credential for the service account (nil: current user).
func (s *Server) credential() *syscall.Credential {
	if s.acct == nil {
		return nil
	}
	return &syscall.Credential{Uid: s.acct.uid, Gid: s.acct.gid, Groups: []uint32{}}
}

// chown gives path to the service account (no-op when not root).
func (s *Server) chown(path string) error {
	if s.acct == nil {
		return nil
	}
	if err := os.Lchown(path, int(s.acct.uid), int(s.acct.gid)); err != nil {
		return fmt.Errorf("server: %w", err)
	}
	return nil
}

// prepareDir creates or checks the instance directory, hands it to the service account and
// checks that the account can reach it and that the socket path fits.
func (s *Server) prepareDir() error {
	if sock := filepath.Join(s.dir, ".s.PGSQL.65535.lock"); len(sock) > maxSocketPath {
		return fmt.Errorf("server: instance directory %s is too long for a unix socket path (%d > %d bytes): use a shorter directory",
			s.dir, len(sock), maxSocketPath)
	}
	if err := s.checkReachable(); err != nil {
		return err
	}
	fi, err := os.Stat(s.dir)
	switch {
	case err == nil && !fi.IsDir():
		return &dirError{fmt.Sprintf("server: instance directory %s is a file: pass a new or empty directory", s.dir)}
	case err == nil:
		f, err := os.Open(s.dir)
		if err != nil {
			return fmt.Errorf("server: instance directory: %w", err)
		}
		_, rerr := f.Readdirnames(1)
		f.Close()
		if rerr != io.EOF {
			return &dirError{fmt.Sprintf("server: instance directory %s is not empty: pass a new or empty directory (an instance directory is never reused)", s.dir)}
		}
	case errors.Is(err, os.ErrNotExist):
		if err := os.MkdirAll(s.dir, 0o700); err != nil {
			return fmt.Errorf("server: cannot create the instance directory: %w", err)
		}
	default:
		return fmt.Errorf("server: instance directory: %w", err)
	}
	// Private: the unix socket, the configuration and the password file are the service
	// account's (and root's) alone.
	if err := os.Chmod(s.dir, 0o700); err != nil {
		return fmt.Errorf("server: %w", err)
	}
	if err := s.chown(s.dir); err != nil {
		return err
	}
	f, err := os.OpenFile(s.logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return fmt.Errorf("server: %w", err)
	}
	f.Close()
	if err := s.chown(s.logPath); err != nil {
		return err
	}
	return s.writePassword()
}

// writePassword makes the instance's random password (the benchmark user's: postgres on
// PostgreSQL, rumbench on MariaDB) and keeps it in Dir/password, mode 0600, for a person who
// wants to connect to a kept instance.
func (s *Server) writePassword() error {
	s.password = s.cfg.Password
	if s.password == "" {
		b := make([]byte, 18)
		if _, err := rand.Read(b); err != nil {
			return fmt.Errorf("server: password: %w", err)
		}
		s.password = hex.EncodeToString(b)
	}
	if err := os.WriteFile(s.passwordPath(), []byte(s.password+"\n"), 0o600); err != nil {
		return fmt.Errorf("server: %w", err)
	}
	return nil
}

// passwordPath is Dir/password.
func (s *Server) passwordPath() string { return filepath.Join(s.dir, "password") }

// checkReachable verifies that the service account may traverse every existing ancestor of
// Dir (missing ones are created 0755) and of the server's programs.
func (s *Server) checkReachable() error {
	if s.acct == nil {
		return nil
	}
	if d, err := unreachable(s.acct, s.dir); err != nil {
		return err
	} else if d != nil {
		return fmt.Errorf("server: the %s OS user cannot reach %s: %s; put the instance under a directory others can traverse, or chmod o+x %s",
			s.acct.name, s.dir, d.describe(), d.path)
	}
	if d, err := unreachable(s.acct, s.bins.server); err != nil {
		return err
	} else if d != nil {
		return fmt.Errorf("server: the %s OS user cannot reach the server program %s: %s; put the build under a directory others can traverse (rumbench servers fetch keeps releases in /var/cache/rumbench when run as root), or chmod o+x %s",
			s.acct.name, s.bins.server, d.describe(), d.path)
	}
	return nil
}

// closedDir is an ancestor directory an account cannot traverse.
type closedDir struct {
	path string
	perm os.FileMode
	uid  uint32
}

func (d *closedDir) describe() string {
	return fmt.Sprintf("%s is mode %04o owned by uid %d", d.path, d.perm, d.uid)
}

// unreachable returns the first existing ancestor of path that a may not traverse, nil when it
// may traverse them all.
func unreachable(a *account, path string) (*closedDir, error) {
	for d := filepath.Dir(path); ; d = filepath.Dir(d) {
		fi, err := os.Stat(d)
		switch {
		case errors.Is(err, os.ErrNotExist):
		case err != nil:
			return nil, fmt.Errorf("server: %w", err)
		default:
			st, ok := fi.Sys().(*syscall.Stat_t)
			if ok && !canSearch(fi.Mode().Perm(), st.Uid, st.Gid, a) {
				return &closedDir{path: d, perm: fi.Mode().Perm(), uid: st.Uid}, nil
			}
		}
		if d == filepath.Dir(d) {
			return nil, nil
		}
	}
}

func canSearch(perm os.FileMode, uid, gid uint32, a *account) bool {
	switch {
	case uid == a.uid:
		return perm&0o100 != 0
	case gid == a.gid:
		return perm&0o010 != 0
	default:
		return perm&0o001 != 0
	}
}

// freePort returns a TCP port on 127.0.0.1 that was free a moment ago.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("server: cannot find a free port on 127.0.0.1: %w", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// openLog opens the server log for appending (the children's stdout and stderr).
func (s *Server) openLog() (*os.File, error) {
	f, err := os.OpenFile(s.logPath, os.O_CREATE|os.O_RDWR|os.O_APPEND, 0o600)
	if err != nil {
		return nil, fmt.Errorf("server: %w", err)
	}
	return f, nil
}

// logf appends one line written by rumbench to the server log.
func (s *Server) logf(format string, args ...any) {
	f, err := s.openLog()
	if err != nil {
		return
	}
	logLine(f, fmt.Sprintf(format, args...))
	f.Close()
}

// logLine appends "rumbench: text" as a line of its own to the log open in f (after a
// newline if a killed program left a partial line).
func logLine(f *os.File, text string) {
	line := "rumbench: " + text + "\n"
	if fi, err := f.Stat(); err == nil && fi.Size() > 0 {
		last := make([]byte, 1)
		if _, err := f.ReadAt(last, fi.Size()-1); err != nil || last[0] != '\n' {
			line = "\n" + line
		}
	}
	_, _ = f.WriteString(line)
}

// logSize returns the current size of the log, so that an attempt's own lines can be found.
func (s *Server) logSize() int64 {
	fi, err := os.Stat(s.logPath)
	if err != nil {
		return 0
	}
	return fi.Size()
}
