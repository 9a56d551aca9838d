package cli

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/rumbench/rumbench/internal/workload"
)

// Every setting in LinkBench's reuse identity (its DataConfig) refuses a run --reuse on data
// prepared with another value, in one line that names the setting and says the way out: the
// flag's (its own flag, or the file that sets it), before anything runs.
func TestLinkBenchReuseIdentity(t *testing.T) {
	_, data, d := dirs(t)
	props := func(name, body string) string {
		f := filepath.Join(data, name)
		if err := os.WriteFile(f, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return f
	}
	lb := func(cmd string, extra ...string) transcript {
		args := append([]string{cmd, "--workload", "linkbench", "--engine", "sqlite", "--maxid1", "201", "--max-degree", "20",
			"--loops", "1", "--loop-secs", "0.2", "--quiet"}, d...)
		return run(t, nil, append(args, extra...)...)
	}
	if tr := lb("prepare"); tr.code != ExitOK {
		t.Fatalf("prepare: exit %d %s", tr.code, tr.stderr)
	}
	if tr := lb("run", "--reuse"); tr.code != ExitOK || !strings.Contains(tr.stdout, "invariants sqlite: ok: ") {
		t.Fatalf("run --reuse with the prepared settings: exit %d %s%s", tr.code, tr.stdout, tr.stderr)
	}
	spec, _ := workload.Lookup("linkbench")
	w, err := spec.New().Build(workload.Shared{Profile: "quick", Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	cases := map[string]struct {
		args []string
		want string
	}{
		"reference":       {[]string{"--reference", "upstream"}, `with reference = "smalldatum", not "upstream": leave out --reference`},
		"maxid1":          {[]string{"--maxid1", "301"}, `with maxid1 = 201, not 301: leave out --maxid1`},
		"max_degree":      {[]string{"--max-degree", "30"}, `with max_degree = 20, not 30: leave out --max-degree`},
		"seed":            {[]string{"--seed", "99"}, `, not 99: leave out --seed (the data's is taken), or prepare again`},
		"startid1":        {[]string{"--properties", props("start", "startid1 = 2\n")}, `with startid1 = 1, not 2: `},
		"link_type_count": {[]string{"--properties", props("types", "link_type_count = 3\n")}, `with link_type_count = 2, not 3: `},
		"link_datasize":   {[]string{"--properties", props("links", "link_datasize = 50\n")}, `with link_datasize = 23, not 50: `},
		"node_datasize":   {[]string{"--properties", props("nodes", "node_datasize = 50\n")}, `with node_datasize = 168, not 50: `},
		"degree_data":     {[]string{"--reference", "upstream"}, `with reference = "smalldatum", not "upstream": leave out --reference`},
		"nlinks_func":     {[]string{"--properties", props("func", "nlinks_func = const\n")}, `with nlinks_func = "real", not "const": `},
		"nlinks_config":   {[]string{"--properties", props("config", "nlinks_config = 7\n")}, `with nlinks_config = 0, not 7: `},
		"nlinks_default":  {[]string{"--properties", props("default", "nlinks_default = 3\n")}, `with nlinks_default = 0, not 3: `},
		"randomid2max":    {[]string{"--properties", props("id2", "randomid2max = 1000\n")}, `with randomid2max = 0, not 1000: `},
		"never_change":    {[]string{"--properties", props("never", "never_change = true\n")}, `with never_change = false, not true: `},
		"link_add_datagen": {[]string{"--properties", props("linkgen", "link_add_datagen_endbyte = 120\n")},
			`with link_add_datagen = "motif 32-100 uniqueness 0.225 motif 512 B", not "motif 32-120 uniqueness 0.225 motif 512 B": `},
		"node_add_datagen": {[]string{"--properties", props("nodegen", "node_add_datagen = UniformDataGenerator\n")},
			`with node_add_datagen = "motif 50-220 uniqueness 0.63 motif 512 B", not "uniform 50-220": `},
	}
	for key := range w.(workload.Reuser).DataConfig() {
		c, ok := cases[key]
		if !ok {
			t.Errorf("no case for identity setting %s", key)
			continue
		}
		tr := lb("run", append([]string{"--reuse"}, c.args...)...)
		line := regexp.MustCompile(`^rumbench: sqlite: --reuse: the data was prepared by run \S+ `)
		if tr.code != ExitUsage || !line.MatchString(tr.stderr) || !strings.Contains(tr.stderr, c.want) || strings.Count(tr.stderr, "\n") != 1 || tr.stdout != "" {
			t.Errorf("%s: %v: exit %d, stdout %q, stderr %q, want one line with %q", key, c.args, tr.code, tr.stdout, tr.stderr, c.want)
		}
	}
}
