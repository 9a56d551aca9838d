package server

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"regexp"
	"strings"
	"syscall"
	"time"

	"github.com/rumbench/rumbench/internal/input"
)

// versionTimeout bounds a server program's --version and --describe-config.
const versionTimeout = 10 * time.Second

// BinaryVersion returns the version of kind's server program in binDir (the discovered one when
// binDir is ""), as the program reports it: "16.4" from "postgres (PostgreSQL) 16.4 (Debian
// ...)", "10.11.6" from "mariadbd  Ver 10.11.6-MariaDB-0+deb12u1 ...". It runs the program with
// --version, nothing else.
func BinaryVersion(ctx context.Context, kind Kind, binDir string) (string, error) {
	b, err := findBinaries(kind, binDir)
	if err != nil {
		return "", err
	}
	out, err := programOutput(ctx, b.server, "--version")
	if err != nil {
		return "", err
	}
	v := parseVersion(kind, out)
	if v == "" {
		return "", fmt.Errorf("%s --version printed no version: %q", b.server, input.Short(strings.TrimSpace(string(out))))
	}
	return v, nil
}

// versionPatterns find the version in a server program's --version output.
var versionPatterns = map[Kind]*regexp.Regexp{
	Postgres: regexp.MustCompile(`\(PostgreSQL\) ([0-9][0-9A-Za-z.]*)`),
	MariaDB:  regexp.MustCompile(`Ver ([0-9]+\.[0-9]+\.[0-9]+)`),
}

// parseVersion returns the version in out, "" when there is none.
func parseVersion(kind Kind, out []byte) string {
	re := versionPatterns[kind]
	if re == nil {
		return ""
	}
	m := re.FindSubmatch(out)
	if m == nil {
		return ""
	}
	return string(m[1])
}

// maxProgramOutput bounds what a server program's --version or --describe-config may print
// (PostgreSQL 17's --describe-config is about 100 KB).
const maxProgramOutput = 4 << 20

// programWaitDelay is how long programOutput waits, once the program has exited or been killed,
// for its output to close: a child it left behind may hold it open for ever.
const programWaitDelay = time.Second

// ErrNoAnswer is a server program that did not answer --version or --describe-config within
// versionTimeout (it was killed).
var ErrNoAnswer = fmt.Errorf("no answer within %v (stopped)", versionTimeout)

// programOutput runs path with args (no input, the caller's environment) in a process group of
// its own and returns its standard output. It is bounded: the program and anything it started
// are killed when ctx ends (the caller's interrupt: the error is ctx's, errors.Is finds
// context.Canceled) or after versionTimeout (ErrNoAnswer); its output is read until it exits and
// at most programWaitDelay after, however long a child it left holds it open; more than
// maxProgramOutput bytes is an error. Any other error carries its standard error's first line.
func programOutput(ctx context.Context, path string, args ...string) ([]byte, error) {
	tctx, cancel := context.WithTimeout(ctx, versionTimeout)
	defer cancel()
	stdout, stderr := &boundedBuffer{max: maxProgramOutput}, &boundedBuffer{max: 64 << 10}
	cmd := exec.CommandContext(tctx, path, args...)
	cmd.Stdout, cmd.Stderr = stdout, stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = programWaitDelay
	err := cmd.Run()
	if cmd.Process != nil {
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) // what it left running, in its group
	}
	what := path + " " + strings.Join(args, " ")
	switch {
	case ctx.Err() != nil:
		return nil, fmt.Errorf("%s: %w", what, ctx.Err())
	case tctx.Err() != nil:
		return nil, fmt.Errorf("%s: %w", what, ErrNoAnswer)
	case stdout.over:
		return nil, fmt.Errorf("%s: printed more than %d bytes", what, maxProgramOutput)
	case err != nil && !errors.Is(err, exec.ErrWaitDelay):
		// ErrWaitDelay: it exited, and a child it left held its output open.
		line, _, _ := strings.Cut(strings.TrimSpace(stderr.String()), "\n")
		return nil, fmt.Errorf("%s: %v: %s", what, err, line)
	}
	return stdout.Bytes(), nil
}

// boundedBuffer keeps the first max bytes written to it, and whether more came.
type boundedBuffer struct {
	bytes.Buffer
	max  int
	over bool
}

func (b *boundedBuffer) Write(p []byte) (int, error) {
	if room := b.max - b.Len(); len(p) > room {
		b.over = true
		b.Buffer.Write(p[:max(room, 0)])
		return len(p), nil
	}
	return b.Buffer.Write(p)
}

// knownSettings returns the parameters this release of the server knows, nil when it cannot
// tell: PostgreSQL lists them (postgres --describe-config); MariaDB's plugins add theirs only
// once loaded, so its settings are not filtered.
func (s *Server) knownSettings(ctx context.Context) map[string]bool {
	if s.kind != Postgres {
		return nil
	}
	out, err := programOutput(ctx, s.bins.server, "--describe-config")
	if err != nil {
		return nil
	}
	known := map[string]bool{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		if name, _, ok := strings.Cut(sc.Text(), "\t"); ok && name != "" {
			known[name] = true
		}
	}
	if len(known) == 0 {
		return nil
	}
	return known
}

// dropUnknownSettings leaves out of Config.Settings (rumbench's own) those this release does not
// know, and records them (LeftOut): an older release then starts without them instead of
// refusing to start. The user's file is not filtered: its unknown settings fail the start with
// the server's own message.
func (s *Server) dropUnknownSettings(ctx context.Context) {
	known := s.knownSettings(ctx)
	if known == nil {
		return
	}
	kept := s.cfg.Settings[:0:0]
	for _, st := range s.cfg.Settings {
		if known[st.Name] {
			kept = append(kept, st)
		} else {
			s.leftOut = append(s.leftOut, st.Name)
		}
	}
	s.cfg.Settings = kept
}

// LeftOut returns the names of rumbench's settings (Config.Settings) the server's release does
// not know, which the instance was started without.
func (s *Server) LeftOut() []string { return s.leftOut }
