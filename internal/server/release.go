package server

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"regexp"
	"strings"
	"time"
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
		return "", fmt.Errorf("%s --version printed no version: %q", b.server, strings.TrimSpace(string(out)))
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

// programOutput runs path with args (no input, the caller's environment) and returns its standard
// output; an error carries its standard error's first line.
func programOutput(ctx context.Context, path string, args ...string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, versionTimeout)
	defer cancel()
	var stdout, stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, path, args...)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		line, _, _ := strings.Cut(strings.TrimSpace(stderr.String()), "\n")
		return nil, fmt.Errorf("%s %s: %v: %s", path, strings.Join(args, " "), err, line)
	}
	return stdout.Bytes(), nil
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
