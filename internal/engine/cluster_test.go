package engine

import (
	"strings"
	"testing"
)

func TestParseCluster(t *testing.T) {
	for in, want := range map[string]string{
		"replicas=2":              "replicas=2,sync=off",
		"replicas=2,sync=on":      "replicas=2,sync=on",
		" replicas=1 , sync=off ": "replicas=1,sync=off",
		"galera=3":                "galera=3",
	} {
		c, err := ParseCluster(in)
		if err != nil || c.String() != want {
			t.Errorf("ParseCluster(%q) = %v, %v; want %s", in, c, err, want)
		}
	}
	for in, want := range map[string]string{
		"":                      "is not key=value",
		"replicas=x":            "replicas takes a positive count",
		"replicas=2,galera=3":   "exclude each other",
		"sync=on":               "say replicas=N or galera=N",
		"galera=1":              "2 nodes or more",
		"galera=10":             "too many nodes",
		"replicas=2,sync=maybe": "sync is on or off",
		"shards=2":              `unknown key "shards"`,
	} {
		if _, err := ParseCluster(in); err == nil || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("ParseCluster(%q): %v, want one line with %q", in, err, want)
		}
	}
}
