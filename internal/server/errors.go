package server

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"regexp"
	"strings"
)

// tailLines is how many lines of the server log an error carries.
const tailLines = 20

// maxKeyLines is how many cause lines StartError.Error puts in its first line.
const maxKeyLines = 3

// StartError reports a server that could not be created, started or set up. Its message
// says what failed, the log lines that name the cause, what to do, and the tail of the log.
type StartError struct {
	// Kind is the server kind.
	Kind Kind
	// Step is the stage that failed: "initdb", "mariadb-install-db", "start" or "setup".
	Step string
	// Problem says what went wrong, e.g. "the server exited during start (exit status 1)".
	Problem string
	// Cause holds the log lines of this attempt that name the cause (errors, fatal lines), in
	// log order, without their timestamp prefix; possibly empty.
	Cause []string
	// Hint says what to do about it.
	Hint string
	// LogPath is the server log, kept in the instance directory.
	LogPath string
	// LogTail is the last lines (up to 20) of the server log.
	LogTail string
	// Err is the underlying error (an *exec.ExitError, context.DeadlineExceeded, ...).
	Err error
}

// Error returns one message: problem, cause lines and hint on the first line, then the log tail.
func (e *StartError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s did not start: %s", e.Kind, e.Problem)
	if len(e.Cause) > 0 {
		fmt.Fprintf(&b, ": %s", strings.Join(e.Cause, "; "))
	}
	if e.Hint != "" {
		fmt.Fprintf(&b, "; %s", e.Hint)
	}
	if e.LogTail != "" {
		fmt.Fprintf(&b, "\nlast lines of %s:\n%s", e.LogPath, indent(e.LogTail))
	}
	return b.String()
}

// Unwrap returns the underlying error.
func (e *StartError) Unwrap() error { return e.Err }

// startError builds a StartError from the log written since offset off.
func (s *Server) startError(step, problem, hint string, off int64, err error) *StartError {
	return &StartError{
		Kind: s.kind, Step: step, Problem: problem, Hint: hint,
		Cause:   causeLines(s.logSince(off), maxKeyLines),
		LogPath: s.logPath, LogTail: s.LogTail(tailLines), Err: err,
	}
}

// configHint tells the user where the settings a server rejected come from.
func (s *Server) configHint() string {
	if s.kind == FerretDB {
		return "see the server log; the helper's settings are on its command line there"
	}
	if s.cfg.ConfigFile == "" {
		return "fix rumbench's settings (written to " + s.configPath() + ")"
	}
	return fmt.Sprintf("fix the server config file %s (copied to %s) or rumbench's settings (in %s)",
		s.cfg.ConfigFile, s.userConfigPath(), s.configPath())
}

// logPrefix matches the timestamp and pid prefixes of PostgreSQL and MariaDB log lines.
var logPrefix = regexp.MustCompile(`^\d{4}-\d\d-\d\d[ T]+\d\d?:\d\d:\d\d(\.\d+)?( [A-Z]{2,5})?( \[\d+\])? (\d+ )?`)

// causeRE matches log lines that name why a server failed.
var causeRE = regexp.MustCompile(`(?i)\b(fatal|panic|error)\b|invalid value|unrecognized|unknown (variable|option|suffix)|syntax error|could not|can't|cannot`)

// causeLines returns up to n distinct lines of log that name a failure, prefixes stripped.
// Lines that only say the server gives up ("Aborting") are skipped.
func causeLines(log string, n int) []string {
	var out []string
	seen := map[string]bool{}
	for _, line := range strings.Split(log, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "rumbench: ") || !causeRE.MatchString(line) ||
			strings.Contains(line, "[Warning]") || strings.Contains(line, "[Note]") || strings.Contains(line, "WARNING:") {
			continue
		}
		line = strings.TrimSpace(logPrefix.ReplaceAllString(line, ""))
		if strings.HasSuffix(line, "Aborting") || strings.Contains(line, "database system is shut down") || seen[line] {
			continue
		}
		seen[line] = true
		out = append(out, line)
	}
	if len(out) > n {
		out = out[:n]
	}
	return out
}

// logSince returns what the server log gained after offset off (at most 256 KiB of it).
func (s *Server) logSince(off int64) string {
	f, err := os.Open(s.logPath)
	if err != nil {
		return ""
	}
	defer f.Close()
	if _, err := f.Seek(off, io.SeekStart); err != nil {
		return ""
	}
	b, _ := io.ReadAll(io.LimitReader(f, 256<<10))
	return string(b)
}

// readLogTail returns the last maxLines lines of the file at path (read from its last
// 256 KiB), without a trailing newline; "" if it cannot be read.
func readLogTail(path string, maxLines int) string {
	if maxLines <= 0 {
		return ""
	}
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	const window = 256 << 10
	if fi, err := f.Stat(); err == nil && fi.Size() > window {
		if _, err := f.Seek(fi.Size()-window, io.SeekStart); err != nil {
			return ""
		}
	}
	b, err := io.ReadAll(f)
	if err != nil {
		return ""
	}
	return lastLines(b, maxLines)
}

func lastLines(b []byte, n int) string {
	b = bytes.TrimRight(b, "\n")
	end := len(b)
	for i := end - 1; i >= 0; i-- {
		if b[i] == '\n' {
			n--
			if n == 0 {
				return string(b[i+1 : end])
			}
		}
	}
	return string(b)
}

func indent(s string) string {
	if s == "" {
		return s
	}
	return "  " + strings.ReplaceAll(s, "\n", "\n  ")
}
