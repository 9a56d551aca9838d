// Package redact removes passwords from connection strings and command lines before anything
// is recorded or printed: run.json's command line, the HTML report, the results store, log and
// error lines. A redacted password reads "****"; the rest (user, host, port, database) stays,
// so a reader still knows which server a run used.
package redact

import (
	"regexp"
	"strings"
)

// Mask replaces a password.
const Mask = "****"

var (
	// url: scheme://user:password@host...
	urlPassword = regexp.MustCompile(`(://[^/:@\s]*):[^@\s]*@`)
	// go-sql-driver/mysql: user:password@tcp(host)/db, user:password@/db, at the start of a
	// value (after "=" in dsn=..., --dsn=...).
	mysqlPassword = regexp.MustCompile(`(^|=)([^:@/\s=()]+):[^@\s]*@([a-z]*\(|/)`)
	// key=value: password=secret, pwd='secret' (libpq, ODBC, JDBC style)
	keyPassword = regexp.MustCompile(`(?i)\b(password|passwd|pwd|pass)(\s*=\s*)('[^']*'|"[^"]*"|[^\s;&]+)`)
)

// DSN returns s with every password it holds masked: in URLs (postgres://u:pw@h/db,
// mongodb://...), in MySQL DSNs (u:pw@tcp(h:3306)/db) and in key=value pairs (password=pw,
// pwd=pw; an URL's ?password=pw too). Text without a password is returned unchanged.
func DSN(s string) string {
	if !strings.ContainsAny(s, "@=") {
		return s
	}
	s = urlPassword.ReplaceAllString(s, "$1:"+Mask+"@")
	s = mysqlPassword.ReplaceAllString(s, "$1$2:"+Mask+"@$3")
	return keyPassword.ReplaceAllString(s, "$1$2"+Mask)
}

// Args returns a copy of a command line with the password of every argument masked (see DSN),
// for flags given as "--dsn URL" and as "--dsn=URL" alike.
func Args(args []string) []string {
	out := make([]string, len(args))
	for i, a := range args {
		out[i] = DSN(a)
	}
	return out
}
