// Package redact removes passwords from connection strings and command lines before anything
// is recorded or printed: run.json's command line, the HTML report, the results store, log and
// error lines. A redacted password reads "****"; the rest (user, host, port, database) stays,
// so a reader still knows which server a run used.
package redact

import (
	"regexp"
	"strings"
	"unicode"
)

// Mask replaces a password.
const Mask = "****"

var (
	// go-sql-driver/mysql: user:password@tcp(host)/db, user:password@/db, at the start of a
	// value (after "=" in dsn=..., --dsn=..., or "," in a --dsn list). The password runs to the last '@' before the
	// address, as the driver reads it: it may hold '@' itself.
	mysqlPassword = regexp.MustCompile(`(^|=|,)([^:@/\s=(),]+):(\S*)@([a-z0-9]*\(|/)`)
	// key=value: password=secret, pwd='secret' (libpq, ODBC, JDBC style; a quoted value may
	// hold an escaped quote)
	keyPassword = regexp.MustCompile(`(?i)\b(password|passwd|pwd|pass)(\s*=\s*)('(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*"|[^\s;&]+)`)
)

// DSN returns s with every password it holds masked: in URLs (postgres://u:pw@h/db,
// mongodb://...), in MySQL DSNs (u:pw@tcp(h:3306)/db) and in key=value pairs (password=pw,
// pwd=pw; an URL's ?password=pw too). A password that holds an unescaped '@' is masked whole:
// in a URL up to the last '@' of the authority, in a MySQL DSN up to the last '@' before the
// address. Text without a password is returned unchanged.
func DSN(s string) string {
	if !strings.ContainsAny(s, "@=") {
		return s
	}
	s = urlPasswords(s)
	s = mysqlPassword.ReplaceAllStringFunc(s, func(m string) string {
		sub := mysqlPassword.FindStringSubmatch(m)
		if strings.HasPrefix(sub[3], "//") { // a URL's scheme://: masked above
			return m
		}
		return sub[1] + sub[2] + ":" + Mask + "@" + sub[4]
	})
	return keyPassword.ReplaceAllString(s, "$1$2"+Mask)
}

// urlPasswords masks the password of every URL in s: in scheme://user:password@host, what
// follows the user's ':' up to the LAST '@' of the authority (which ends at the first '/' or
// blank after "://"; PostgreSQL's parsers end it at the first '@', so "u:p@ss@h" is user u,
// password p, host "ss@h", and the rest of the password would show as the host).
func urlPasswords(s string) string {
	var b strings.Builder
	for {
		i := strings.Index(s, "://")
		if i < 0 {
			b.WriteString(s)
			return b.String()
		}
		start := i + 3
		end := start + strings.IndexFunc(s[start:], func(r rune) bool { return r == '/' || unicode.IsSpace(r) })
		if end < start {
			end = len(s)
		}
		auth := s[start:end]
		at := strings.LastIndexByte(auth, '@')
		colon := strings.IndexByte(auth, ':')
		b.WriteString(s[:start])
		if at >= 0 && colon >= 0 && colon < at {
			b.WriteString(auth[:colon+1] + Mask + auth[at:])
		} else {
			b.WriteString(auth)
		}
		s = s[end:]
	}
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

// Server returns where a connection string points, without user or password: "host:port/db"
// (a port or database the string does not give is left out), for URLs (postgres://u:pw@h:5432/db,
// mongodb://h1,h2/db, a host in ?host=), MySQL DSNs (u:pw@tcp(h:3306)/db) and key=value strings
// (host=h port=5432 dbname=db). A string it cannot read is returned as DSN returns it.
func Server(s string) string {
	var host, port, db string
	switch {
	case strings.Contains(s, "://"):
		rest := s[strings.Index(s, "://")+3:]
		rest, query, _ := strings.Cut(rest, "?")
		authority, path, _ := strings.Cut(rest, "/")
		if i := strings.LastIndex(authority, "@"); i >= 0 {
			authority = authority[i+1:]
		}
		host, db = authority, path
		for _, kv := range strings.Split(query, "&") {
			k, v, _ := strings.Cut(kv, "=")
			switch {
			case k == "host" && host == "":
				host = v
			case k == "port" && port == "":
				port = v
			case k == "dbname" && db == "":
				db = v
			}
		}
	case keyValue.MatchString(s):
		for _, m := range keyValue.FindAllStringSubmatch(s, -1) {
			v := strings.Trim(m[2], `'"`)
			switch strings.ToLower(m[1]) {
			case "host", "server":
				host = v
			case "port":
				port = v
			case "dbname", "database":
				db = v
			}
		}
	default: // MySQL: [user[:password]@][net[(addr)]]/dbname[?params]
		slash := strings.LastIndex(s, "/")
		if slash < 0 {
			return DSN(s)
		}
		prefix := s[:slash]
		db, _, _ = strings.Cut(s[slash+1:], "?")
		if i := strings.LastIndex(prefix, "@"); i >= 0 {
			prefix = prefix[i+1:]
		}
		if open := strings.Index(prefix, "("); open >= 0 && strings.HasSuffix(prefix, ")") {
			host = prefix[open+1 : len(prefix)-1]
		} else {
			host = prefix
		}
	}
	if host == "" {
		host = "localhost"
	}
	if port != "" {
		host += ":" + port
	}
	if db != "" {
		host += "/" + db
	}
	return host
}

// keyValue matches the pairs of a key=value connection string (libpq: host=h dbname=d; ODBC
// style: Server=h;Database=d).
var keyValue = regexp.MustCompile(`(?i)\b(host|server|port|dbname|database)\s*=\s*('[^']*'|"[^"]*"|[^\s;&]+)`)

// UnescapedAt says whether s is a URL (scheme://...) whose authority holds more than one '@':
// a user or password with an '@' not written as %40. Parsers disagree on where such a password
// ends (PostgreSQL's, libpq's and pgx's, end it at the first '@' and take the rest for the host,
// which their errors then print), so a connection URL like it is refused before use.
func UnescapedAt(s string) bool {
	i := strings.Index(s, "://")
	if i < 0 {
		return false
	}
	auth := s[i+3:]
	if end := strings.IndexByte(auth, '/'); end >= 0 {
		auth = auth[:end]
	}
	return strings.Count(auth, "@") > 1
}

// AtRule says what to do about a URL UnescapedAt finds.
const AtRule = "the user or password holds an '@': write it as %40"
