package releases

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"strings"
)

// maxLinkHops bounds the symbolic links one path resolves through (the kernel's own limit is 40).
const maxLinkHops = 40

// tree writes the entries of an archive under one directory, the fetch's temporary directory,
// and nowhere else. Every file, directory and link is made through an os.Root of the
// directory, whose every path resolves inside it (the system resolves each component, links
// included, and refuses one that leaves), so no entry can write outside the directory whatever
// links came before it. It also refuses an archive that would leave the tree pointing outside:
//   - an entry under a link (a/b when a is a link the archive made), whatever the link's target;
//   - a link whose target, resolved through the links already made, leaves the directory, or
//     is absolute;
//   - at the end (finish), a link whose target now leaves it through links made after it;
//
// and more than maxEntries entries or maxTreeBytes bytes of files.
type tree struct {
	root  *os.Root
	links []string // the links made, by name
	n     int      // entries written
	total int64    // bytes of the files written
}

// openTree returns a tree over the directory dir, which exists; close it after.
func openTree(dir string) (*tree, error) {
	r, err := os.OpenRoot(dir)
	if err != nil {
		return nil, err
	}
	return &tree{root: r}, nil
}

func (t *tree) close() error { return t.root.Close() }

// entry checks the name of an archive entry and returns it cleaned, relative to the tree ("."
// for the tree itself): not absolute, not leaving the tree by "..", not under a link the archive
// made, and within maxEntries.
func (t *tree) entry(name string) (string, error) {
	clean := path.Clean(strings.ReplaceAll(name, `\`, "/"))
	if clean == "." {
		return clean, nil
	}
	if path.IsAbs(clean) || clean == ".." || strings.HasPrefix(clean, "../") {
		return "", fmt.Errorf("entry %q leaves the directory", name)
	}
	if t.n++; t.n > maxEntries {
		return "", fmt.Errorf("more than %d files", maxEntries)
	}
	for dir := path.Dir(clean); dir != "."; dir = path.Dir(dir) {
		fi, err := t.root.Lstat(dir)
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return "", fmt.Errorf("entry %q: %v", name, err)
		}
		if err == nil && fi.Mode()&fs.ModeSymlink != 0 {
			return "", fmt.Errorf("entry %q is under the link %q: refused (an entry under a link may write outside the directory)", name, dir)
		}
	}
	return clean, nil
}

// dir makes the directory name (an entry's checked name) and its parents.
func (t *tree) dir(name string) error {
	return t.root.MkdirAll(name, 0o755)
}

// file writes the regular file name (an entry's checked name) with size bytes from r, its
// directory made first; the file must not exist yet.
func (t *tree) file(name string, r io.Reader, size int64, mode os.FileMode) error {
	if size < 0 {
		return fmt.Errorf("entry %q: size %d", name, size)
	}
	if t.total += size; t.total > maxTreeBytes {
		return fmt.Errorf("larger than %d bytes", int64(maxTreeBytes))
	}
	if err := t.dir(path.Dir(name)); err != nil {
		return err
	}
	out, err := t.root.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode)
	if err != nil {
		return err
	}
	_, err = io.Copy(out, io.LimitReader(r, size))
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	return err
}

// symlink makes name (an entry's checked name) a link to target, which must be relative and
// resolve, through the links made so far, inside the tree.
func (t *tree) symlink(name, target string) error {
	if err := t.inside(name, target); err != nil {
		return err
	}
	if err := t.dir(path.Dir(name)); err != nil {
		return err
	}
	if err := t.root.Symlink(target, name); err != nil {
		return err
	}
	t.links = append(t.links, name)
	return nil
}

// inside says why the link name -> target leaves the tree; nil when it stays inside.
func (t *tree) inside(name, target string) error {
	if target == "" || path.IsAbs(target) {
		return fmt.Errorf("entry %q links outside the directory (%s)", name, target)
	}
	// Not path.Join: cleaning "a/.." to "." would skip the link a may be.
	if _, err := t.resolve(path.Dir(name) + "/" + target); err != nil {
		return fmt.Errorf("entry %q %v (%s)", name, err, target)
	}
	return nil
}

// finish checks every link again once all entries are written: a link made later may have
// turned a name an earlier link's target goes through into a link that leaves the tree.
func (t *tree) finish() error {
	for _, l := range t.links {
		target, err := t.root.Readlink(l)
		if err != nil {
			return err
		}
		if err := t.inside(l, target); err != nil {
			return err
		}
	}
	return nil
}

// errLeaves and errLinkLoop are why a path does not resolve inside the tree.
var (
	errLeaves   = errors.New("links outside the directory")
	errLinkLoop = fmt.Errorf("links through more than %d links (a loop?)", maxLinkHops)
)

// resolve resolves p, a path relative to the tree, as the system would: each component in
// turn, a link's target in its place, ".." going up from where the links led. It returns the
// path reached, or errLeaves when p leaves the tree (by "..", or an absolute link), errLinkLoop
// past maxLinkHops links. Components that do not exist are taken as they are written.
func (t *tree) resolve(p string) (string, error) {
	var cur []string
	rest := strings.Split(p, "/")
	for hops := 0; len(rest) > 0; {
		c := rest[0]
		rest = rest[1:]
		switch c {
		case "", ".":
			continue
		case "..":
			if len(cur) == 0 {
				return "", errLeaves
			}
			cur = cur[:len(cur)-1]
			continue
		}
		next := path.Join(path.Join(cur...), c)
		fi, err := t.root.Lstat(next)
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return "", err
		}
		if err == nil && fi.Mode()&fs.ModeSymlink != 0 {
			if hops++; hops > maxLinkHops {
				return "", errLinkLoop
			}
			target, err := t.root.Readlink(next)
			if err != nil {
				return "", err
			}
			if target == "" || path.IsAbs(target) {
				return "", errLeaves
			}
			rest = append(strings.Split(target, "/"), rest...)
			continue
		}
		cur = append(cur, c)
	}
	return path.Join(cur...), nil
}

// has says whether name (relative to the tree) is a regular file there, after its links; when
// exec, one with an execute bit.
func (t *tree) has(name string, exec bool) bool {
	fi, err := t.root.Stat(name)
	return err == nil && fi.Mode().IsRegular() && (!exec || fi.Mode()&0o111 != 0)
}
