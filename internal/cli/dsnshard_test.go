package cli

import (
	"context"
	"errors"
	"io"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rumbench/rumbench/internal/redact"
	"github.com/rumbench/rumbench/internal/results"
)

// TestDSNKeepsNoLocalData: prepare and run on a --dsn server (a private PostgreSQL the test
// starts) name the server, not a directory, print no password, and create nothing in
// --data-dir, which they do not lock either.
func TestDSNKeepsNoLocalData(t *testing.T) {
	out, data, _ := dirs(t)
	dsn, _ := shardServer(t, data)
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatal(err)
	}
	password, _ := u.User.Password()
	dd := filepath.Join(data, "dd")
	common := []string{"--engine", "postgres", "--dsn", dsn, "--rows", "2000", "--out", out, "--data-dir", dd, "--store", "none"}
	for _, args := range [][]string{
		append([]string{"prepare"}, common...),
		append([]string{"run", "--reuse", "--steps", "l.i0,l.x,qr100", "--query-secs", "1"}, common...),
	} {
		tr := run(t, nil, args...)
		if tr.code != ExitOK {
			t.Fatalf("%s: exit %d: %s", args[0], tr.code, tr.stderr)
		}
		want := "postgres: opening on server " + redact.Server(dsn) + " (--dsn)\n"
		if !strings.Contains(tr.stderr, want) || !strings.HasPrefix(redact.Server(dsn), "127.0.0.1:") || strings.Contains(tr.stderr, "opening in") {
			t.Errorf("%s: stderr does not say %q:\n%s", args[0], want, tr.stderr)
		}
		if password == "" || strings.Contains(tr.stderr, password) || strings.Contains(tr.stdout, password) {
			t.Errorf("%s: the password is printed (or the DSN has none: %q)", args[0], redact.DSN(dsn))
		}
		if _, err := os.Stat(dd); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s: --data-dir %s was created (%v)", args[0], dd, err)
		}
	}
	// The sizes are the server's: no data directory here to measure.
	_, _, steps := readLastRun(t, out)
	for _, s := range steps {
		if s.DBBytes <= 1<<20 || s.DBBytes != s.EngineDBBytes || s.BytesPerRow <= 0 {
			t.Errorf("%s: db_bytes %d, the server's %d, bytes per row %g: want the server's size", s.Step, s.DBBytes, s.EngineDBBytes, s.BytesPerRow)
		}
	}
}

// readLastRun reads the newest run directory in out.
func readLastRun(t *testing.T, out string) (string, *results.Manifest, []results.Step) {
	t.Helper()
	dirs, _ := filepath.Glob(filepath.Join(out, "2*"))
	if len(dirs) == 0 {
		t.Fatalf("no run directory in %s", out)
	}
	dir := dirs[len(dirs)-1]
	m, err := results.ReadManifest(dir)
	if err != nil {
		t.Fatal(err)
	}
	steps, err := results.ReadSteps(dir)
	if err != nil {
		t.Fatal(err)
	}
	return dir, m, steps
}

// TestShardsMeetOnOneHost starts two shards of one split run on this host as separate
// processes, without --group, with different --out, --quiet and --junit but the same
// --data-dir, on a --dsn server with a PostgreSQL store. Shard 0 waits alone at its first
// barrier and says so once, under --quiet; shard 1 is not refused the data directory; both
// derive the same group, meet and finish; nothing is created in the data directory.
func TestShardsMeetOnOneHost(t *testing.T) {
	out, data, _ := dirs(t)
	dsn, storeURL := shardServer(t, data)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	dd := filepath.Join(data, "dd")
	args := func(shard string, extra ...string) []string {
		return append([]string{"run", "--engine", "postgres", "--dsn", dsn, "--clients", "1", "--rows", "2000", "--steps", "l.i0",
			"--store", storeURL, "--data-dir", dd, "--shard", shard}, extra...)
	}
	start := func(stderr *os.File, args ...string) *exec.Cmd {
		cmd := exec.CommandContext(ctx, os.Args[0], args...)
		cmd.Env = append(os.Environ(), childMain+"=1")
		cmd.Stdout, cmd.Stderr = io.Discard, stderr
		cmd.WaitDelay = 5 * time.Second
		cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		return cmd
	}
	errFile := func(name string) *os.File {
		f, err := os.Create(filepath.Join(t.TempDir(), name))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { f.Close() })
		return f
	}
	e0, e1 := errFile("s0.stderr"), errFile("s1.stderr")
	out0, out1 := filepath.Join(out, "s0"), filepath.Join(out, "s1")
	p0 := start(e0, args("0/2", "--out", out0, "--quiet")...)
	waiting := regexp.MustCompile(`(?m)^rumbench: shard 0/2 waiting before postgres/l\.i0 in group (g-[0-9a-f]{12}): 1 of 2 shards arrived \(it waits up to 10m0s; .*--group\)$`)
	var said string
	for i := 0; i < 1200 && said == ""; i++ {
		time.Sleep(50 * time.Millisecond)
		b, _ := os.ReadFile(e0.Name())
		said = string(b)
		if !waiting.MatchString(said) {
			said = ""
		}
	}
	if said == "" {
		cancel()
		p0.Wait()
		b, _ := os.ReadFile(e0.Name())
		t.Fatalf("shard 0 never said it waits: %s", b)
	}
	p1 := start(e1, args("1/2", "--out", out1, "--check", "ips>0", "--junit", filepath.Join(out, "s1.xml"))...)
	err0, err1 := p0.Wait(), p1.Wait()
	s0, _ := os.ReadFile(e0.Name())
	s1, _ := os.ReadFile(e1.Name())
	if err0 != nil || err1 != nil {
		t.Fatalf("shard 0: %v %s\nshard 1: %v %s", err0, s0, err1, s1)
	}
	m := waiting.FindAllStringSubmatch(string(s0), -1)
	if len(m) != 1 || strings.Count(string(s0), "waiting before") != 1 {
		t.Errorf("shard 0 said it waits %d times: %s", len(m), s0)
	}
	if !strings.Contains(string(s1), "postgres: opening on server ") || strings.Contains(string(s1), "in use by another rumbench run") {
		t.Errorf("shard 1: %s", s1)
	}
	var groups []string
	for i, o := range []string{out0, out1} {
		dirs, _ := filepath.Glob(filepath.Join(o, "*", "run.json"))
		if len(dirs) != 1 {
			t.Fatalf("shard %d: run directories %v", i, dirs)
		}
		r, err := results.Load(filepath.Dir(dirs[0]))
		if err != nil {
			t.Fatal(err)
		}
		sh := r.Manifest.Shard
		if sh == nil || sh.Index != i || sh.Count != 2 || !sh.Barriers || r.Manifest.Status != results.StatusOK || len(r.Steps) != 1 || r.Steps[0].Ops != 2000 {
			t.Errorf("shard %d: shard %+v, status %s, steps %+v", i, sh, r.Manifest.Status, r.Steps)
			continue
		}
		groups = append(groups, sh.Group)
	}
	if len(groups) == 2 && (groups[0] != groups[1] || groups[0] != m[0][1]) {
		t.Errorf("groups %v; shard 0 waited in %s", groups, m[0][1])
	}
	if _, err := os.Stat(dd); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("--data-dir %s was created (%v)", dd, err)
	}
}

// TestDefaultGroup: the default group id leaves out the settings that may differ between shards
// (perShardFlags) and the order and spelling of the flags, and keeps the others.
func TestDefaultGroup(t *testing.T) {
	group := func(args ...string) string {
		env := &Env{Stdout: io.Discard, Stderr: io.Discard, Args: args, Now: time.Now, Getenv: func(string) string { return "" }}
		cmd, f := newRunFlags(env, "", false)
		if err := cmd.ParseFlags(args); err != nil {
			t.Fatal(err)
		}
		return defaultGroup(f.cmdFlags)
	}
	base := group("--engine", "postgres", "--rows", "2000", "--shard", "0/2", "--out", "s0", "--dsn", "postgres://u:pw@db1/b")
	if !groupPattern.MatchString(base) {
		t.Fatalf("default group %q is not a valid group id", base)
	}
	for _, args := range [][]string{
		{"--rows=2000", "--shard=1/2", "--engine=postgres", "--out", "s1", "--data-dir", "d1", "--junit", "s1.xml", "--quiet",
			"--cpuprofile", "s1.prof", "--dsn", "postgres://u:pw@10.0.0.5/b", "--store", "postgres://u:pw@10.0.0.5/r",
			"--barrier-timeout-secs", "60", "--readahead-kb", "256", "--group", "x", "--check", "ips>0", "--fresh", "--server-bin", "/opt/pg"},
		{"--engine", "postgres", "--rows", "2000", "--shard", "1/2", "--cache-mb", "64"}, // a default, given
	} {
		if g := group(args...); g != base {
			t.Errorf("%v: group %s, want %s", args, g, base)
		}
	}
	for _, args := range [][]string{
		{"--engine", "postgres", "--rows", "3000", "--shard", "0/2"},
		{"--engine", "postgres", "--rows", "2000", "--shard", "0/2", "--clients", "2"},
		{"--engine", "postgres", "--rows", "2000", "--shard", "0/2", "--seed", "7"},
		{"--engine", "mysql", "--rows", "2000", "--shard", "0/2"},
	} {
		if g := group(args...); g == base {
			t.Errorf("%v: the same group as another run's settings (%s)", args, g)
		}
	}
}
