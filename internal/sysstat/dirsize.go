package sysstat

import (
	"errors"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"syscall"
)

// DirSize walks the tree rooted at dir (following dir itself if it is a symlink, but no
// symlink below it) and returns its disk usage:
// allocated is the sum of st_blocks×512 (what `du` reports) and apparent the sum of st_size
// (`du --apparent-size`), both in bytes, over the root, directories, files and symlinks.
// A file with several hard links inside the tree is counted once.
//
// Entries that vanish during the walk (an LSM compaction deleting a table, say) are skipped,
// not reported. A missing dir is an error that satisfies errors.Is(err, fs.ErrNotExist).
func DirSize(dir string) (allocated, apparent int64, err error) {
	u, err := DirUsageOf(dir, nil)
	return u.Allocated, u.Apparent, err
}

// DirUsage is a directory tree's disk usage in bytes (see DirSize), with the part of it that
// is logs apart (see LogFiles).
type DirUsage struct {
	// Allocated and Apparent are the whole tree's st_blocks×512 and st_size sums.
	Allocated, Apparent int64
	// LogAllocated and LogApparent are the same sums over the entries that logs matched:
	// included in Allocated and Apparent.
	LogAllocated, LogApparent int64
}

// LogFiles tells the files of a data directory that hold an engine's logs (write-ahead logs,
// journals, their preallocated files, server logs) from its tables and indexes. Each pattern
// is a path.Match pattern: one without '/' matches an entry's base name, so a directory that
// matches ("pg_wal") takes everything below it; one with '/' matches the path relative to the
// data directory ("data/ib_logfile*"). A malformed pattern matches nothing.
type LogFiles []string

// match says whether the entry at rel (slash-separated, relative to the data directory) is a
// log: its name or its path matches a pattern.
func (l LogFiles) match(rel string) bool {
	base := path.Base(rel)
	for _, p := range l {
		target := base
		if strings.Contains(p, "/") {
			target = rel
		}
		if ok, _ := path.Match(p, target); ok {
			return true
		}
	}
	return false
}

// DirUsageOf is DirSize with the entries that logs matches (and everything below a matching
// directory) summed apart as well; nil logs matches nothing.
func DirUsageOf(dir string, logs LogFiles) (DirUsage, error) {
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		dir = real // walk the target if dir itself is a symlink
	}
	type inode struct{ dev, ino uint64 }
	var seen map[inode]struct{}
	var u DirUsage
	var logDir string // the matching directory being walked, "" when none
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p != dir && errors.Is(err, fs.ErrNotExist) {
				return nil // vanished between listing and reading
			}
			return err
		}
		info, err := d.Info()
		if err != nil {
			if p != dir && errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			return err
		}
		isLog := false
		if logDir != "" && strings.HasPrefix(p, logDir+string(filepath.Separator)) {
			isLog = true
		} else if len(logs) > 0 && p != dir {
			logDir = ""
			rel, _ := filepath.Rel(dir, p)
			if isLog = logs.match(filepath.ToSlash(rel)); isLog && d.IsDir() {
				logDir = p
			}
		}
		st, ok := info.Sys().(*syscall.Stat_t)
		if !ok {
			u.Apparent += info.Size()
			if isLog {
				u.LogApparent += info.Size()
			}
			return nil
		}
		if st.Nlink > 1 && !info.IsDir() {
			if seen == nil {
				seen = make(map[inode]struct{})
			}
			k := inode{uint64(st.Dev), st.Ino}
			if _, dup := seen[k]; dup {
				return nil
			}
			seen[k] = struct{}{}
		}
		u.Allocated += st.Blocks * 512
		u.Apparent += st.Size
		if isLog {
			u.LogAllocated += st.Blocks * 512
			u.LogApparent += st.Size
		}
		return nil
	})
	return u, err
}

// dirExists reports whether dir exists and is a directory.
func dirExists(dir string) bool {
	fi, err := os.Stat(dir)
	return err == nil && fi.IsDir()
}
