package cli

import (
	"bytes"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	"gopkg.in/yaml.v3"

	"github.com/rumbench/rumbench/internal/input"
)

// kubeFlags are the kube command's flags.
type kubeFlags struct {
	file, image, name, namespace, secret string
	shards                               int
	cpu, memory                          string
}

func newKubeCmd(env *Env) *cobra.Command {
	f := &kubeFlags{}
	cmd := &cobra.Command{
		Use:   "kube -f RUNFILE --shards N",
		Short: "Print the Kubernetes manifests that run a run file as N shards (an Indexed Job)",
		Long: `Print, as YAML on stdout, what runs the run file as N shards of one split run on a Kubernetes
cluster (kubectl apply -f -):

  - a ConfigMap holding the run file;
  - an Indexed Job (completionMode Indexed, completions and parallelism N, no retries): pod I
    runs "rumbench run -f <run file> --shard I/N --group <name>", I being the pod's completion
    index (JOB_COMPLETION_INDEX, which the Job controller sets), with the server's DSN (--dsn)
    and the results store (--store, a postgres:// URL) from the Secret --secret, keys "dsn" and
    "store", so that no password is in the manifests.

The shards meet at barriers in the store before each step, and record their runs there; then
"rumbench merge --group <name> --store <url>" merges them into one run. The group id is the
Job's name (--name; default rumbench-<UTC time>): one name, one split run.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error { return runKube(env, f) },
	}
	fl := cmd.Flags()
	fl.StringVarP(&f.file, "file", "f", "", "run file (rumbench run -f) the shards run")
	fl.IntVar(&f.shards, "shards", 0, "number of shards (pods), 1..1000")
	fl.StringVar(&f.image, "image", "rumbench:latest", "container image holding rumbench (see the Containerfile)")
	fl.StringVar(&f.name, "name", "", "name of the Job and the ConfigMap, and the group id of the split run (default rumbench-<UTC time>)")
	fl.StringVar(&f.namespace, "namespace", "", "namespace of the Job and the ConfigMap (default: kubectl's)")
	fl.StringVar(&f.secret, "secret", "rumbench", "Secret holding the server's DSN (key dsn) and the results store's postgres:// URL (key store)")
	fl.StringVar(&f.cpu, "cpu", "1", "CPU each shard's pod requests (a Kubernetes quantity)")
	fl.StringVar(&f.memory, "memory", "512Mi", "memory each shard's pod requests (a Kubernetes quantity)")
	return cmd
}

// kubeRunFile is the run file's path in the pods (the ConfigMap's key, mounted).
const (
	kubeRunDir  = "/etc/rumbench"
	kubeRunFile = "run.yaml"
)

func runKube(env *Env, f *kubeFlags) error {
	if f.file == "" {
		return usagef("rumbench kube needs the run file the shards run: -f FILE")
	}
	if f.shards < 1 || f.shards > 1000 {
		return usagef("--shards %d: must be 1..1000", f.shards)
	}
	data, err := input.ReadFile(f.file, input.MaxFileBytes)
	if err != nil {
		return usagef("-f %s: %v", input.Short(f.file), err)
	}
	if _, err := runFileArgs(f.file, []string{"run", "--dsn", "x", "--store", "x"}); err != nil {
		return usagef("-f %s: %v", input.Short(f.file), err)
	}
	name := f.name
	if name == "" {
		name = "rumbench-" + strings.ToLower(env.Now().UTC().Format("20060102t150405"))
	}
	if !groupPattern.MatchString(name) {
		return usagef("--name %q: want 1 to 48 lower-case letters, digits and '-', starting and ending with a letter or digit (it names the Job and the group)", input.Short(name))
	}
	if !dnsLabel.MatchString(f.secret) || f.namespace != "" && !dnsLabel.MatchString(f.namespace) {
		return usagef("--secret %q, --namespace %q: want Kubernetes names, 1 to 63 lower-case letters, digits and '-', starting and ending with a letter or digit", input.Short(f.secret), input.Short(f.namespace))
	}
	if f.image == "" || strings.IndexFunc(f.image, func(r rune) bool { return r <= ' ' || r == 0x7f }) >= 0 {
		return usagef("--image %q: want an image reference such as registry.example/rumbench:v1 (no blanks or control characters)", input.Short(f.image))
	}
	for _, q := range []struct{ flag, v string }{{"--cpu", f.cpu}, {"--memory", f.memory}} {
		if !quantityPattern.MatchString(q.v) {
			return usagef("%s %q: want a Kubernetes quantity (e.g. 500m, 2, 512Mi, 4Gi)", q.flag, input.Short(q.v))
		}
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, "# rumbench: %d shards of %q as an Indexed Job; the Secret %s must hold keys dsn and store:\n", f.shards, f.file, f.secret)
	fmt.Fprintf(&b, "#   kubectl create secret generic %s --from-literal=dsn='postgres://...' --from-literal=store='postgres://...'\n", f.secret)
	fmt.Fprintf(&b, "# then: rumbench merge --group %s --store <the store URL>\n", name)
	for i, doc := range kubeManifests(f, name, string(data)) {
		if i > 0 {
			b.WriteString("---\n")
		}
		enc := yaml.NewEncoder(&b)
		enc.SetIndent(2)
		if err := enc.Encode(doc); err != nil {
			return err
		}
		enc.Close()
	}
	_, err = env.Stdout.Write(b.Bytes())
	return err
}

// dnsLabel is a Kubernetes name of a namespace or a Secret (an RFC 1123 label; a Secret may
// also hold dots, which rumbench does not need).
var dnsLabel = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$`)

// quantityPattern is a Kubernetes resource quantity (decimal or binary suffix).
var quantityPattern = regexp.MustCompile(`^[0-9]+(\.[0-9]+)?(m|k|M|G|T|P|E|Ki|Mi|Gi|Ti|Pi|Ei)?$`)

// kubeManifests returns the ConfigMap and the Job, as ordered YAML documents.
func kubeManifests(f *kubeFlags, name, runFile string) []any {
	labels := kv{{"app.kubernetes.io/name", "rumbench"}, {"rumbench.io/group", name}}
	meta := kv{{"name", name}}
	if f.namespace != "" {
		meta = append(meta, kvItem{"namespace", f.namespace})
	}
	meta = append(meta, kvItem{"labels", labels})
	n := strconv.Itoa(f.shards)
	secretEnv := func(env, key string) kv {
		return kv{{"name", env}, {"valueFrom", kv{{"secretKeyRef", kv{{"name", f.secret}, {"key", key}}}}}}
	}
	container := kv{
		{"name", "rumbench"},
		{"image", f.image},
		{"args", []string{"run", "-f", kubeRunDir + "/" + kubeRunFile,
			"--shard", "$(JOB_COMPLETION_INDEX)/" + n, "--group", name,
			"--dsn", "$(RUMBENCH_DSN)", "--store", "$(RUMBENCH_STORE)",
			"--out", "/work/results", "--data-dir", "/work/data"}},
		{"env", []kv{secretEnv("RUMBENCH_DSN", "dsn"), secretEnv("RUMBENCH_STORE", "store")}},
		{"resources", kv{{"requests", kv{{"cpu", f.cpu}, {"memory", f.memory}}}}},
		{"volumeMounts", []kv{
			{{"name", "run-file"}, {"mountPath", kubeRunDir}, {"readOnly", true}},
			{{"name", "work"}, {"mountPath", "/work"}},
		}},
	}
	job := kv{
		{"apiVersion", "batch/v1"},
		{"kind", "Job"},
		{"metadata", meta},
		{"spec", kv{
			{"completionMode", "Indexed"},
			{"completions", f.shards},
			{"parallelism", f.shards},
			// A shard is not retried: its group id would be taken, and the others stop when
			// it fails.
			{"backoffLimit", 0},
			{"template", kv{
				{"metadata", kv{{"labels", labels}}},
				{"spec", kv{
					{"restartPolicy", "Never"},
					{"containers", []kv{container}},
					{"volumes", []kv{
						{{"name", "run-file"}, {"configMap", kv{{"name", name}}}},
						{{"name", "work"}, {"emptyDir", kv{}}},
					}},
				}},
			}},
		}},
	}
	cm := kv{
		{"apiVersion", "v1"},
		{"kind", "ConfigMap"},
		{"metadata", meta},
		{"data", kv{{kubeRunFile, runFile}}},
	}
	return []any{cm, job}
}

// kv is a YAML mapping that keeps its keys in order.
type kv []kvItem

type kvItem struct {
	k string
	v any
}

// MarshalYAML implements yaml.Marshaler: a mapping node with the keys in order.
func (m kv) MarshalYAML() (any, error) {
	n := &yaml.Node{Kind: yaml.MappingNode}
	for _, it := range m {
		var v yaml.Node
		if err := v.Encode(it.v); err != nil {
			return nil, err
		}
		n.Content = append(n.Content, &yaml.Node{Kind: yaml.ScalarNode, Value: it.k}, &v)
	}
	return n, nil
}
