package cli

import (
	"bytes"
	"testing"
	"time"
)

// TestIOBoundProfile checks the cache and cap the iobound profile sets, and that --memory-limit
// none and --cache-mb win over it.
func TestIOBoundProfile(t *testing.T) {
	for _, c := range []struct {
		args         []string
		limit, cache int64
	}{
		{[]string{"--profile", "iobound"}, 256 << 20, 32 << 20},
		{[]string{"--profile", "iobound", "--memory-limit", "none"}, 0, 32 << 20},
		{[]string{"--profile", "iobound", "--memory-limit", "1G", "--cache-mb", "8"}, 1 << 30, 8 << 20},
		{[]string{"--profile", "quick"}, 0, 64 << 20},
	} {
		env := &Env{Stdout: &bytes.Buffer{}, Stderr: &bytes.Buffer{}, Args: c.args, Now: time.Now, Getenv: func(string) string { return "" }}
		cmd, f := newRunFlags(env)
		if err := cmd.ParseFlags(c.args); err != nil {
			t.Fatal(err)
		}
		cfg, err := buildConfig(cmd, env, f)
		if err != nil {
			t.Fatalf("%v: %v", c.args, err)
		}
		if cfg.MemoryLimit != c.limit || cfg.CacheBytes != c.cache {
			t.Errorf("%v: cap %d, cache %d; want %d, %d", c.args, cfg.MemoryLimit, cfg.CacheBytes, c.limit, c.cache)
		}
	}
}
