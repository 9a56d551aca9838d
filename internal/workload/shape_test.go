package workload

import (
	"errors"
	"testing"
)

// TestShapeParts: Resolve completes the configuration before it is validated, RecordRun's
// figures are recorded but are not the reuse identity, Shown replaces the banner, CheckShard
// refuses a split and Part says a shard's part.
func TestShapeParts(t *testing.T) {
	var resolvedFor string
	sh := Shape[testConfig]{Name: "shapetest", Settings: testSettings, Steps: []StepDecl{{Name: "load", Load: true}, {Name: "run"}},
		Resolve: func(c *testConfig, profile string, given func(string) bool) error {
			resolvedFor = profile
			if !given("rows-per-commit") {
				c.Batch = int(c.Rows / 10)
			}
			return nil
		},
		Record:    func(c *testConfig) map[string]any { return map[string]any{"row_bytes": 100} },
		RecordRun: func(b *Base[testConfig]) map[string]any { return map[string]any{"note": "run only"} },
		Banner:    func(c *testConfig) []Setting { return []Setting{Show("rows", c.Rows)} },
		CheckShard: func(b *Base[testConfig], s Shard) error {
			if b.Cfg.Rows < int64(s.Count) {
				return errors.New("fewer rows than shards")
			}
			return nil
		},
		ShardPart: func(b *Base[testConfig]) string { return "my part" },
	}
	var got *Base[testConfig]
	sh.Build = func(b *Base[testConfig], s Shared) (Workload, error) { got = b; return nil, nil }
	d := Define(sh)
	if err := d.Flags().Parse([]string{"--rows", "50"}); err != nil {
		t.Fatal(err)
	}
	if _, err := d.Build(Shared{Profile: "small", Seed: 3}); err != nil {
		t.Fatal(err)
	}
	b := got
	if resolvedFor != "small" || b.Cfg.Batch != 5 {
		t.Errorf("resolved for %q: batch %d, want small and 5", resolvedFor, b.Cfg.Batch)
	}
	if cfg := b.Config(); cfg["note"] != "run only" || cfg["row_bytes"] != 100 {
		t.Errorf("config %v", cfg)
	}
	if id := b.DataConfig(); id["note"] != nil || id["row_bytes"] != 100 || id["rows"] != int64(50) || id["seed"] != uint64(3) {
		t.Errorf("identity %v", id)
	}
	if s := b.Settings(); len(s) != 2 || s[0].Name != "rows" || s[1].Name != "seed" {
		t.Errorf("banner %v", s)
	}
	if err := b.SetShard(Shard{Index: 0, Count: 60}); err == nil || b.Shard.Count != 0 {
		t.Errorf("a refused split: %v, shard %v kept", err, b.Shard)
	}
	if err := b.SetShard(Shard{Index: 1, Count: 2}); err != nil || b.ShardPart() != "my part" || b.Config()["shard"] != "my part" {
		t.Errorf("split: %v, part %q", err, b.ShardPart())
	}
	nb, err := NewBase(sh, testConfig{Rows: 0, Secs: 1, Batch: 1, Mode: "a"}, 1)
	if err == nil || nb != nil {
		t.Errorf("NewBase of 0 rows: %v", err)
	}
}
