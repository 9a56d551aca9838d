package sqlfam

import "strings"

// MaxDSNs bounds a --dsn list of servers.
const MaxDSNs = 9

// SplitDSNs splits a --dsn list of servers at the commas that begin another connection string:
// a piece that starts reports whether it does (a comma inside one, e.g. pgx's host list
// "postgres://h1,h2/db", stays in it). One connection string gives a list of one.
func SplitDSNs(dsn string, starts func(piece string) bool) []string {
	var out []string
	for _, p := range strings.Split(dsn, ",") {
		if len(out) > 0 && !starts(strings.TrimSpace(p)) {
			out[len(out)-1] += "," + p
			continue
		}
		out = append(out, strings.TrimSpace(p))
	}
	return out
}
