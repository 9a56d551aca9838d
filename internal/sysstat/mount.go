package sysstat

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
)

// FS describes the mount that holds a directory, from /proc/self/mountinfo.
type FS struct {
	// Type is the filesystem type, e.g. "ext4", "xfs", "tmpfs", "overlay".
	Type string `json:"type"`
	// MountPoint is the mount point, relative to the reading process's root.
	MountPoint string `json:"mount_point"`
	// Options are the per-mount options (e.g. "rw,relatime").
	Options string `json:"options"`
	// SuperOptions are the filesystem (superblock) options, where settings such as
	// "discard", "data=ordered" or "barrier" appear.
	SuperOptions string `json:"super_options"`
	// Source is the mount source, e.g. "/dev/vda" or "tmpfs".
	Source string `json:"source"`
}

var errNoMount = errors.New("sysstat: no mountinfo entry covers the path")

// ParseMountinfo returns the mount in /proc/<pid>/mountinfo content data that holds path,
// which must be absolute, cleaned and free of symlinks: the entry with the longest mount point
// that is path itself or a parent directory of it. When several mounts share that mount point
// the last one (the one on top) wins. Octal escapes (\040 for space, ...) are decoded.
func ParseMountinfo(data []byte, path string) (FS, error) {
	var best FS
	bestLen := -1
	for len(data) > 0 {
		var line []byte
		line, data = nextLine(data)
		// id parent maj:min root mountpoint options [optional...] - type source superoptions
		var tok []byte
		i := 0
		for k := 0; k < 4; k++ {
			_, i = nextToken(line, i)
		}
		tok, i = nextToken(line, i)
		mp := unescapeMount(tok)
		if mp == "" || !underMount(path, mp) || len(mp) < bestLen {
			continue
		}
		opts, i := nextToken(line, i)
		for {
			tok, i = nextToken(line, i)
			if len(tok) == 0 || string(tok) == "-" {
				break
			}
		}
		if len(tok) == 0 {
			continue // malformed: no separator
		}
		typ, i := nextToken(line, i)
		src, i := nextToken(line, i)
		super, _ := nextToken(line, i)
		best = FS{Type: string(typ), MountPoint: mp, Options: string(opts),
			SuperOptions: string(super), Source: unescapeMount(src)}
		bestLen = len(mp)
	}
	if bestLen < 0 {
		return FS{}, errNoMount
	}
	return best, nil
}

// underMount reports whether path is mount point mp or lies below it.
func underMount(path, mp string) bool {
	if mp == "/" {
		return strings.HasPrefix(path, "/")
	}
	return path == mp || (strings.HasPrefix(path, mp) && path[len(mp)] == '/')
}

// unescapeMount decodes the \ooo octal escapes the kernel uses in mountinfo paths.
func unescapeMount(b []byte) string {
	if !strings.Contains(string(b), `\`) {
		return string(b)
	}
	out := make([]byte, 0, len(b))
	for i := 0; i < len(b); i++ {
		if b[i] == '\\' && i+3 < len(b) && isOctal(b[i+1]) && isOctal(b[i+2]) && isOctal(b[i+3]) {
			out = append(out, (b[i+1]-'0')<<6|(b[i+2]-'0')<<3|(b[i+3]-'0'))
			i += 3
			continue
		}
		out = append(out, b[i])
	}
	return string(out)
}

func isOctal(c byte) bool { return c >= '0' && c <= '7' }

// FilesystemForDir returns the mount holding dir (or its nearest existing ancestor), after
// resolving symlinks, from /proc/self/mountinfo.
func FilesystemForDir(dir string) (FS, error) {
	p, err := existingAncestor(dir)
	if err != nil {
		return FS{}, err
	}
	if p, err = filepath.EvalSymlinks(p); err != nil {
		return FS{}, err
	}
	data, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		return FS{}, err
	}
	return ParseMountinfo(data, p)
}
