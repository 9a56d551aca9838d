package sysstat

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
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
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		dir = real // walk the target if dir itself is a symlink
	}
	type inode struct{ dev, ino uint64 }
	var seen map[inode]struct{}
	err = filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			if path != dir && errors.Is(err, fs.ErrNotExist) {
				return nil // vanished between listing and reading
			}
			return err
		}
		info, err := d.Info()
		if err != nil {
			if path != dir && errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			return err
		}
		st, ok := info.Sys().(*syscall.Stat_t)
		if !ok {
			apparent += info.Size()
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
		allocated += st.Blocks * 512
		apparent += st.Size
		return nil
	})
	return allocated, apparent, err
}

// dirExists reports whether dir exists and is a directory.
func dirExists(dir string) bool {
	fi, err := os.Stat(dir)
	return err == nil && fi.IsDir()
}
