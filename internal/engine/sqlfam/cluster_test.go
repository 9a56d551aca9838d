package sqlfam

import (
	"slices"
	"testing"
)

func TestSelectOnly(t *testing.T) {
	for text, want := range map[string]bool{
		"SELECT c FROM sbtest1 WHERE id=$1":                     true,
		"  select count(*) from t":                              true,
		"(SELECT a FROM t) UNION (SELECT a FROM u)":             true,
		"SELECT c FROM t WHERE id=? FOR UPDATE":                 false,
		"select c from t where id=$1 for share":                 false,
		"SELECT c FROM t WHERE id=? LOCK IN SHARE MODE":         false,
		"SELECT nextval('s')":                                   false,
		"UPDATE sbtest1 SET k=k+1 WHERE id=$1":                  false,
		"INSERT INTO t SELECT * FROM u":                         false,
		"WITH x AS (DELETE FROM t RETURNING *) SELECT * FROM x": false,
		"SELECT c FROM t WHERE id=? /* for update */":           false, // conservative: the primary
	} {
		if got := selectOnly(text); got != want {
			t.Errorf("selectOnly(%q) = %v, want %v", text, got, want)
		}
	}
	for text, want := range map[string]bool{"BEGIN": true, "begin": true, "START TRANSACTION READ ONLY": true, "COMMIT": false, "BEGINx": false} {
		if got := txStart(text); got != want {
			t.Errorf("txStart(%q) = %v", text, got)
		}
	}
	if !txEnd("rollback") || !txEnd("COMMIT") || txEnd("COMMIT AND CHAIN") {
		t.Error("txEnd")
	}
}

func TestSplitDSNs(t *testing.T) {
	pg := func(p string) bool { return len(p) > 11 && p[:11] == "postgres://" }
	for in, want := range map[string][]string{
		"postgres://u@a/db":                      {"postgres://u@a/db"},
		"postgres://u@a/db,postgres://u@b/db":    {"postgres://u@a/db", "postgres://u@b/db"},
		"postgres://u@a,b/db":                    {"postgres://u@a,b/db"},
		"postgres://u@a,b/db, postgres://u@c/db": {"postgres://u@a,b/db", "postgres://u@c/db"},
	} {
		if got := SplitDSNs(in, pg); !slices.Equal(got, want) {
			t.Errorf("SplitDSNs(%q) = %q, want %q", in, got, want)
		}
	}
}
