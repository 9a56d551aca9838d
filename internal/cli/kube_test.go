package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
)

// decodeStrict decodes one YAML document into v (a Kubernetes API type) through JSON, refusing
// any field the type does not have.
func decodeStrict(t *testing.T, doc []byte, v any) {
	t.Helper()
	var m map[string]any
	if err := yaml.Unmarshal(doc, &m); err != nil {
		t.Fatalf("YAML: %v\n%s", err, doc)
	}
	js, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	dec := json.NewDecoder(bytes.NewReader(js))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		t.Fatalf("not a valid %T: %v\n%s", v, err, doc)
	}
}

// TestKubeManifests: rumbench kube prints a ConfigMap holding the run file and an Indexed Job
// of N pods, each running its shard (the completion index) with the DSN and the store from the
// Secret; both decode into the Kubernetes API types with no unknown field.
func TestKubeManifests(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "bench.yaml")
	runFile := "workload: insert\nengine: postgres\nclients: 2\nrows: 2000\nwrites: 500\n"
	if err := os.WriteFile(file, []byte(runFile), 0o644); err != nil {
		t.Fatal(err)
	}
	tr := run(t, nil, "kube", "-f", file, "--shards", "3", "--name", "ib-1", "--namespace", "bench", "--image", "registry.example/rumbench:v1", "--secret", "pgsecret")
	if tr.code != ExitOK {
		t.Fatalf("exit %d: %s", tr.code, tr.stderr)
	}
	docs := strings.Split(tr.stdout, "\n---\n")
	for i := range docs[:len(docs)-1] {
		docs[i] += "\n" // the line end before the separator
	}
	if len(docs) != 2 {
		t.Fatalf("%d documents, want 2:\n%s", len(docs), tr.stdout)
	}
	var cm corev1.ConfigMap
	decodeStrict(t, []byte(docs[0]), &cm)
	var job batchv1.Job
	decodeStrict(t, []byte(docs[1]), &job)
	if cm.Kind != "ConfigMap" || cm.APIVersion != "v1" || cm.Name != "ib-1" || cm.Namespace != "bench" || cm.Data["run.yaml"] != runFile {
		t.Errorf("ConfigMap: %+v", cm)
	}
	s := job.Spec
	if job.Kind != "Job" || job.APIVersion != "batch/v1" || job.Name != "ib-1" || job.Namespace != "bench" ||
		s.CompletionMode == nil || *s.CompletionMode != batchv1.IndexedCompletion ||
		s.Completions == nil || *s.Completions != 3 || s.Parallelism == nil || *s.Parallelism != 3 ||
		s.BackoffLimit == nil || *s.BackoffLimit != 0 || s.Template.Spec.RestartPolicy != corev1.RestartPolicyNever {
		t.Fatalf("Job spec: %+v", s)
	}
	if len(s.Template.Spec.Containers) != 1 {
		t.Fatalf("containers: %+v", s.Template.Spec.Containers)
	}
	c := s.Template.Spec.Containers[0]
	if c.Image != "registry.example/rumbench:v1" {
		t.Errorf("image %q", c.Image)
	}
	args := strings.Join(c.Args, " ")
	for _, want := range []string{"run -f /etc/rumbench/run.yaml", "--shard $(JOB_COMPLETION_INDEX)/3", "--group ib-1", "--dsn $(RUMBENCH_DSN)", "--store $(RUMBENCH_STORE)"} {
		if !strings.Contains(args, want) {
			t.Errorf("args %q lack %q", args, want)
		}
	}
	for _, e := range []struct{ name, key string }{{"RUMBENCH_DSN", "dsn"}, {"RUMBENCH_STORE", "store"}} {
		i := slices.IndexFunc(c.Env, func(v corev1.EnvVar) bool { return v.Name == e.name })
		if i < 0 || c.Env[i].ValueFrom == nil || c.Env[i].ValueFrom.SecretKeyRef == nil ||
			c.Env[i].ValueFrom.SecretKeyRef.Name != "pgsecret" || c.Env[i].ValueFrom.SecretKeyRef.Key != e.key {
			t.Errorf("env %s not from Secret pgsecret key %s: %+v", e.name, e.key, c.Env)
		}
	}
	if q := c.Resources.Requests[corev1.ResourceCPU]; q.String() != "1" {
		t.Errorf("cpu request %s", q.String())
	}
	mounted := false
	for _, v := range s.Template.Spec.Volumes {
		if v.ConfigMap != nil && v.ConfigMap.Name == "ib-1" {
			for _, m := range c.VolumeMounts {
				mounted = mounted || (m.Name == v.Name && m.MountPath == "/etc/rumbench")
			}
		}
	}
	if !mounted {
		t.Errorf("the ConfigMap is not mounted at /etc/rumbench: %+v %+v", s.Template.Spec.Volumes, c.VolumeMounts)
	}
	// The pod's command line, with the Secret's values in place, is one rumbench accepts up to
	// the shard index (here one past the last, refused: every flag before it parsed).
	pod := strings.NewReplacer("$(JOB_COMPLETION_INDEX)", "3", "$(RUMBENCH_DSN)", "postgres://u@127.0.0.1:1/db", "$(RUMBENCH_STORE)", "none", kubeRunDir+"/"+kubeRunFile, file, " /work/", " "+dir+"/").Replace(args)
	tr = run(t, nil, strings.Fields(pod)...)
	if tr.code != ExitUsage || !strings.Contains(tr.stderr, `--shard "3/3": want I/N`) {
		t.Errorf("the pod's command line: exit %d %s", tr.code, tr.stderr)
	}
}

// TestKubeBadInput: one line and exit 2 for a missing run file, a bad shard count or name.
func TestKubeBadInput(t *testing.T) {
	file := filepath.Join(t.TempDir(), "b.yaml")
	os.WriteFile(file, []byte("workload: insert\nnosuchflag: 1\n"), 0o644)
	good := filepath.Join(t.TempDir(), "g.yaml")
	os.WriteFile(good, []byte("workload: insert\nengine: postgres\n"), 0o644)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"kube", "--shards", "2"}, "rumbench kube needs the run file"},
		{[]string{"kube", "-f", file, "--shards", "0"}, "--shards 0: must be 1..1000"},
		{[]string{"kube", "-f", file, "--shards", "2"}, "nosuchflag"},
		{[]string{"kube", "-f", "/nonexistent.yaml", "--shards", "2"}, "-f /nonexistent.yaml"},
		{[]string{"kube", "-f", good, "--shards", "2", "--secret", "s\nkind: Secret"}, `--secret "s\nkind: Secret", --namespace "": want Kubernetes names`},
		{[]string{"kube", "-f", good, "--shards", "2", "--namespace", "../x"}, `--namespace "../x": want Kubernetes names`},
		{[]string{"kube", "-f", good, "--shards", "2", "--image", "a b"}, `--image "a b": want an image reference`},
	} {
		tr := run(t, nil, c.args...)
		if tr.code != ExitUsage || !strings.Contains(tr.stderr, c.want) || strings.Count(strings.TrimSpace(tr.stderr), "\n") != 0 {
			t.Errorf("%v: exit %d, stderr %q", c.args, tr.code, tr.stderr)
		}
	}
}
