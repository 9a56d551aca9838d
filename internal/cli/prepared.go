package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/rumbench/rumbench/internal/bench"
	"github.com/rumbench/rumbench/internal/input"
	"github.com/rumbench/rumbench/internal/workload"
)

// takePreparation makes a run --reuse take the shape of the data it reuses: it reads what
// rumbench prepare recorded beside each target's data, and every setting of it the command line
// does not give becomes the prepared one (the profile, then each DataConfig key, through the
// flag of its name or the workload's Spec.DataProperty flag); the run is then built again. A
// setting the command line gives otherwise is refused in one line that names its flag, before
// anything starts. It returns the configuration and what it took ("" for nothing).
func takePreparation(ctx context.Context, cmd *cobra.Command, env *Env, f *runFlags, cfg bench.Config) (bench.Config, string, error) {
	if err := bench.Validate(cfg); err != nil {
		return cfg, "", err
	}
	preps, err := bench.ReadPreparations(ctx, cfg)
	if err != nil {
		return cfg, "", err
	}
	p := preps[0]
	spec, _ := workload.Lookup(f.workload)
	fl := cmd.Flags()
	var took []string
	taken := map[string]bool{} // flags, and KEY of --property KEY=..., set here, not by the user
	set := func(name, value string) error {
		what := name
		if k, _, ok := strings.Cut(value, "="); ok && name == spec.DataProperty {
			what = name + " " + k
		}
		taken[what] = true
		if err := fl.Set(name, value); err != nil {
			return usagef("--reuse: the data's %s %q (run %s): %v", name, input.Short(value), p.RunID, err)
		}
		took = append(took, "--"+name+" "+value)
		f.adopted = append(f.adopted, "--"+name+"="+value)
		return nil
	}
	rebuild := func() error {
		// The settings buildConfig derives from the profile, as the command line left them.
		f.cacheMB, f.memoryLimit = f.given.cacheMB, f.given.memoryLimit
		cfg, err = buildConfig(ctx, cmd, env, f)
		return err
	}
	if p.Workload == spec.Name && p.Profile != "" && p.Profile != f.profile && !fl.Changed("profile") {
		if err := set("profile", p.Profile); err != nil {
			return cfg, "", err
		}
		if err := rebuild(); err != nil {
			return cfg, "", err
		}
	}
	// One setting at a time, the first that still differs, the run built again after each: a
	// setting derived from another (YCSB's insertcount from recordcount) follows it.
	for p.Workload == spec.Name {
		r, ok := cfg.Workload.(workload.Reuser)
		if !ok {
			break
		}
		name, value := nextSetting(fl, spec, p.Data, r.DataConfig())
		if name == "" {
			break
		}
		if err := set(name, value); err != nil {
			return cfg, "", err
		}
		if err := rebuild(); err != nil {
			return cfg, "", err
		}
	}
	err = bench.CheckPreparations(cfg, preps, func(key string) string {
		if flag := fl.Lookup(dataFlag(key)); flag != nil && flag.Changed && !taken[flag.Name] {
			return fmt.Sprintf("leave out --%s (the data's is taken), or prepare again", flag.Name)
		}
		if spec.DataProperty != "" {
			if prop := fl.Lookup(spec.DataProperty); prop != nil && propertyGiven(prop, key) && !taken[prop.Name+" "+key] {
				return fmt.Sprintf("leave out --%s %s=... (the data's is taken), or prepare again", prop.Name, key)
			}
		}
		return ""
	})
	if err != nil || len(took) == 0 {
		return cfg, "", err
	}
	return cfg, fmt.Sprintf("--reuse: the data's settings, as run %s prepared them: %s", p.RunID, strings.Join(took, " ")), nil
}

// nextSetting returns the first recorded data setting (in key order) that differs from the
// workload's (have) and that the command line leaves free, as a flag name and value to set:
// the flag of the key's name, else an item of the workload's DataProperty flag; "" when none.
func nextSetting(fl *pflag.FlagSet, spec workload.Spec, recorded, have map[string]any) (string, string) {
	for _, k := range slices.Sorted(maps.Keys(recorded)) {
		v, ok := settingText(recorded[k])
		if !ok || sameSetting(recorded[k], have[k]) {
			continue
		}
		if flag := fl.Lookup(dataFlag(k)); flag != nil {
			if !flag.Changed {
				return flag.Name, v
			}
			continue
		}
		if spec.DataProperty == "" {
			continue
		}
		if prop := fl.Lookup(spec.DataProperty); prop != nil && !propertyGiven(prop, k) {
			return prop.Name, k + "=" + v
		}
	}
	return "", ""
}

// dataFlag is the flag named as DataConfig key k: table_size is --table-size.
func dataFlag(k string) string { return strings.ReplaceAll(k, "_", "-") }

// propertyGiven says whether a NAME=VALUE flag's values set key.
func propertyGiven(fl *pflag.Flag, key string) bool {
	sv, ok := fl.Value.(pflag.SliceValue)
	if !ok || !fl.Changed {
		return false
	}
	return slices.ContainsFunc(sv.GetSlice(), func(kv string) bool {
		k, _, _ := strings.Cut(kv, "=")
		return strings.TrimSpace(k) == key
	})
}

// settingText renders a recorded setting as a flag takes it; false for a value no flag takes
// (a list, a mapping, null).
func settingText(v any) (string, bool) {
	switch x := v.(type) {
	case json.Number:
		return x.String(), true
	case string:
		return x, true
	case bool:
		return strconv.FormatBool(x), true
	}
	return "", false
}

// sameSetting says whether a recorded setting (as decoded, numbers json.Number) equals a
// workload's DataConfig value, compared as JSON.
func sameSetting(recorded, v any) bool {
	a, _ := json.Marshal(recorded)
	b, _ := json.Marshal(v)
	return string(a) == string(b)
}
