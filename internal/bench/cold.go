package bench

import (
	"io/fs"
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"
)

// EvictDir drops the page cache of every regular file under dir (--cold): each file is synced,
// so its dirty pages are clean, then advised POSIX_FADV_DONTNEED. No privilege is needed.
// Pages another process has mapped and locked stay; a server's own buffer pool is untouched.
func EvictDir(dir string) error {
	return filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			if os.IsNotExist(err) { // a file the engine removed meanwhile
				return nil
			}
			return err
		}
		if !d.Type().IsRegular() {
			return nil
		}
		f, err := os.Open(path)
		if err != nil {
			if os.IsNotExist(err) || os.IsPermission(err) {
				return nil
			}
			return err
		}
		defer f.Close()
		unix.Fdatasync(int(f.Fd()))
		return unix.Fadvise(int(f.Fd()), 0, 0, unix.FADV_DONTNEED)
	})
}
