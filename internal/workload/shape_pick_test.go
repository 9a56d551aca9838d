package workload

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/rumbench/rumbench/internal/table"
)

// shapeConfig is a workload's configuration for TestShape: a step count, a setting whose
// default follows from whether another was given, and percentiles.
type shapeConfig struct {
	Rounds      int
	Mode, Pcts  string
	Note        string
	Files, Tags []string
	derivedMode string
}

var shapeSettings = Params[shapeConfig]{
	Int(func(c *shapeConfig) *int { return &c.Rounds }, Number[int]{Name: "rounds", Runtime: true, Default: 2, Min: 0, Max: 3}),
	String(func(c *shapeConfig) *string { return &c.Mode }, Text{Name: "mode", Key: "mode_name", Show: "mode", Default: "a"}),
	String(func(c *shapeConfig) *string { return &c.Note }, Text{Name: "note", Runtime: true}),
	PercentileList(func(c *shapeConfig) *string { return &c.Pcts }, Text{Name: "percentiles", Runtime: true}),
	Strings(func(c *shapeConfig) *[]string { return &c.Files }, List{Name: "file", Runtime: true, MaxItems: 2, MaxLen: 8, Show: "-"}),
	Strings(func(c *shapeConfig) *[]string { return &c.Tags }, List{Name: "tag", Runtime: true}),
}

// shapeSteps are load, then round1 .. round3: as many rounds run as --rounds says.
var shapeSteps = []StepDecl{{Name: "load", Load: true}, {Name: "round1"}, {Name: "round2"}, {Name: "round3"}}

type shapeWorkload struct{ *Base[shapeConfig] }

func (shapeWorkload) Open(context.Context, table.Engine) (Run, error) { return nil, nil }

func newShape(noShards bool) Definition {
	return Define(Shape[shapeConfig]{Name: "shape-test", Settings: shapeSettings, Steps: shapeSteps, NoShards: noShards,
		Pick: func(b *Base[shapeConfig]) ([]string, error) {
			steps := []string{"load"}
			for i := 1; i <= b.Cfg.Rounds; i++ {
				steps = append(steps, fmt.Sprintf("round%d", i))
			}
			return steps, nil
		},
		RecordRun: func(b *Base[shapeConfig]) map[string]any { return map[string]any{"derived_mode": b.Cfg.derivedMode} },
		Shown: func(c *shapeConfig) []Setting {
			return []Setting{Show("files", len(c.Files)).For("round1")}
		},
		ShardPart: func(b *Base[shapeConfig]) string { return "rounds of shard " + b.Shard.String() },
		Build: func(b *Base[shapeConfig], s Shared) (Workload, error) {
			b.Cfg.derivedMode = b.Cfg.Mode
			if !b.Given("mode") {
				b.Cfg.derivedMode = "auto"
			}
			return shapeWorkload{b}, nil
		}})
}

// TestShape: Pick makes the steps from the settings; Given tells a flag given from a default;
// RecordRun's figures are recorded but not part of the reuse identity; a percentile list is
// recorded parsed and shown as given; Show names a setting in the banner; empty text settings
// are not shown, nor a setting declared so, and Shown's derived ones are; a repeated setting
// keeps its items in order, bounded in number and length; --warmup-secs reaches WarmupSecs and
// is bounded; ShardPart and NoShards.
func TestShape(t *testing.T) {
	build := func(noShards bool, warmup *float64, args ...string) (*Base[shapeConfig], error) {
		d := newShape(noShards)
		if err := d.Flags().Parse(args); err != nil {
			t.Fatal(err)
		}
		w, err := d.Build(Shared{Profile: "quick", Seed: 3, WarmupSecs: warmup})
		if err != nil {
			return nil, err
		}
		return w.(shapeWorkload).Base, nil
	}
	b, err := build(false, nil, "--rounds", "1", "--percentiles", "99,99.9", "--file", "b", "--file", "a", "--tag", "x,y")
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(b.Steps(), ","); got != "load,round1" {
		t.Errorf("steps %s, want load,round1", got)
	}
	cfg, id := b.Config(), b.DataConfig()
	if cfg["derived_mode"] != "auto" || fmt.Sprint(cfg["percentiles"]) != "[99 99.9]" || cfg["mode_name"] != "a" || id["derived_mode"] != nil ||
		fmt.Sprint(cfg["file"]) != "[b a]" || fmt.Sprint(cfg["tag"]) != "[x,y]" {
		t.Errorf("config %v, identity %v", cfg, id)
	}
	if got := Banner(b.Settings(), b.Steps()); got != "rounds=1 mode=a percentiles=99,99.9 tag=x,y files=2 seed=3" {
		t.Errorf("banner %q", got)
	}
	if b.WarmupSecs(5) != 5 {
		t.Errorf("no --warmup-secs: %g, want the default 5", b.WarmupSecs(5))
	}
	secs := 1.5
	if b, err = build(false, &secs, "--mode", "a"); err != nil || b.Config()["derived_mode"] != "a" || b.WarmupSecs(5) != 1.5 {
		t.Errorf("--mode given, --warmup-secs 1.5: %v %v", b, err)
	}
	if err := b.SetShard(Shard{Index: 1, Count: 2}); err != nil || b.ShardPart() != "rounds of shard 1/2" || b.Config()["shard"] != "rounds of shard 1/2" {
		t.Errorf("shard: %v, part %q", err, b.ShardPart())
	}
	if b, _ = build(true, nil); b.SetShard(Shard{Index: 1, Count: 2}) == nil {
		t.Error("NoShards: SetShard accepted a shard")
	}
	secs = -1
	for _, c := range []struct {
		warmup *float64
		args   []string
		want   string
	}{
		{&secs, nil, "--warmup-secs -1: want 0 to a week (604800)"},
		{nil, []string{"--rounds", "7"}, "--rounds 7: want 0..3"},
		{nil, []string{"--percentiles", "99,99"}, `--percentiles "99,99": 99 is listed twice`},
		{nil, []string{"--file", "a", "--file", "b", "--file", "c"}, "--file given 3 times: at most 2"},
		{nil, []string{"--file", "123456789"}, `--file "123456789": at most 8 bytes`},
	} {
		if _, err := build(false, c.warmup, c.args...); err == nil || err.Error() != c.want {
			t.Errorf("%v: %v, want %s", c.args, err, c.want)
		}
	}
}
