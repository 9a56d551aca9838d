package redact

import (
	"strings"
	"testing"
)

func TestDSN(t *testing.T) {
	for in, want := range map[string]string{
		"postgres://bench:secret@db:5432/x?sslmode=disable":    "postgres://bench:****@db:5432/x?sslmode=disable",
		"--dsn=postgresql://u:p%40ss@127.0.0.1/db":             "--dsn=postgresql://u:****@127.0.0.1/db",
		"postgres://u@h/db":                                    "postgres://u@h/db",
		"bench:secret@tcp(127.0.0.1:3306)/rumbench":            "bench:****@tcp(127.0.0.1:3306)/rumbench",
		"dsn=root:pw@unix(/run/mysqld.sock)/db":                "dsn=root:****@unix(/run/mysqld.sock)/db",
		"mysql.dsn=u:x@/db":                                    "mysql.dsn=u:****@/db",
		"host=h user=u password=secret dbname=d":               "host=h user=u password=**** dbname=d",
		"host=h password='se cret' port=5432":                  "host=h password=**** port=5432",
		"postgres://h/db?user=u&password=secret&sslmode=false": "postgres://h/db?user=u&password=****&sslmode=false",
		"Server=h;Uid=u;Pwd=secret;":                           "Server=h;Uid=u;Pwd=****;",
		"/tmp/results":                                         "/tmp/results",
		"--engine-opt":                                         "--engine-opt",
		"journal_mode=wal":                                     "journal_mode=wal",
		"user@example.com":                                     "user@example.com",
		// A password with an unescaped '@' is masked whole, in every form.
		"postgres://bob:S3C@RET6@127.0.0.1:1/db":                   "postgres://bob:****@127.0.0.1:1/db",
		"--dsn=postgresql://bob:S3C@RET6@h":                        "--dsn=postgresql://bob:****@h",
		"mongodb://u:p@ss@h1:27017,h2:27017/bench?replicaSet=rs0":  "mongodb://u:****@h1:27017,h2:27017/bench?replicaSet=rs0",
		"postgres://u:pw@/db?host=/tmp":                            "postgres://u:****@/db?host=/tmp",
		"a postgres://u:p1@h/x then postgres://v:p@2@k/y":          "a postgres://u:****@h/x then postgres://v:****@k/y",
		"bob:S3C@RET6@tcp(127.0.0.1:3306)/db":                      "bob:****@tcp(127.0.0.1:3306)/db",
		"mysql.dsn=bob:a@b@c@/db":                                  "mysql.dsn=bob:****@/db",
		"dsn=root:p@w@unix(/run/mysqld.sock)/db":                   "dsn=root:****@unix(/run/mysqld.sock)/db",
		"host=h password=S3C@RET6 dbname=d":                        "host=h password=**** dbname=d",
		`host=h password='it\'s@x y' port=5432`:                    "host=h password=**** port=5432",
		"postgres://h/db?user=u&password=S3C@RET6&sslmode=disable": "postgres://h/db?user=u&password=****&sslmode=disable",
	} {
		if got := DSN(in); got != want {
			t.Errorf("DSN(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestArgs(t *testing.T) {
	in := []string{"run", "--dsn", "postgres://u:s3cr3t@h/db", "--store=postgres://a:t0ps3cr3t@h/s", "--engine-opt", "mysql.dsn=r:pw123@tcp(h)/db"}
	out := strings.Join(Args(in), " ")
	for _, secret := range []string{"s3cr3t", "t0ps3cr3t", "pw123"} {
		if strings.Contains(out, secret) {
			t.Errorf("Args kept %q: %s", secret, out)
		}
	}
	if in[2] != "postgres://u:s3cr3t@h/db" {
		t.Error("Args changed its input")
	}
}

func FuzzDSN(f *testing.F) {
	f.Add("postgres://u:secret@h/db")
	f.Add("u:secret@tcp(h)/db")
	f.Add("password=secret")
	f.Fuzz(func(t *testing.T, s string) {
		// A password after a known marker never survives.
		if strings.ContainsAny(s, " \t\n\r\v\f/;&'\"") {
			return
		}
		// An '@' in the password too: it is masked up to the last '@' before the address.
		for _, in := range []string{"postgres://u:" + s + "X9q@h/db", "password=" + s + "X9q", "u:" + s + "X9q@tcp(h:3306)/db"} {
			if got := DSN(in); strings.Contains(got, s+"X9q") {
				t.Errorf("DSN(%q) = %q kept the password", in, got)
			}
		}
	})
}

// TestServer: where a connection string points, with no user and no password.
func TestServer(t *testing.T) {
	for in, want := range map[string]string{
		"postgres://bench:secret@db:5432/x?sslmode=disable":        "db:5432/x",
		"postgresql://u:p%40s@s@127.0.0.1/db":                      "127.0.0.1/db",
		"postgres:///rumbench?host=/tmp&port=5433&password=x":      "/tmp:5433/rumbench",
		"mongodb://u:pw@h1:27017,h2:27017/bench?replicaSet=rs0":    "h1:27017,h2:27017/bench",
		"bench:secret@tcp(127.0.0.1:3306)/rumbench?parseTime=true": "127.0.0.1:3306/rumbench",
		"root:p/w@unix(/run/mysqld.sock)/db":                       "/run/mysqld.sock/db",
		"u@/db":                                                    "localhost/db",
		"host=h user=u password=secret dbname=d port=5432":         "h:5432/d",
		"Server=h;Uid=u;Pwd=secret;Database=d":                     "h/d",
	} {
		got := Server(in)
		if got != want {
			t.Errorf("Server(%q) = %q, want %q", in, got, want)
		}
		if strings.Contains(got, "secret") || strings.Contains(got, "pw") {
			t.Errorf("Server(%q) = %q holds the password", in, got)
		}
	}
}
