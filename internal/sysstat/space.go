package sysstat

import "syscall"

// Space returns the space of the file system that holds dir (or its nearest existing
// ancestor), in bytes: free is what an unprivileged user may still write (statfs f_bavail),
// total the file system's size.
func Space(dir string) (free, total uint64, err error) {
	p, err := existingAncestor(dir)
	if err != nil {
		return 0, 0, err
	}
	var st syscall.Statfs_t
	if err := syscall.Statfs(p, &st); err != nil {
		return 0, 0, err
	}
	return st.Bavail * uint64(st.Bsize), st.Blocks * uint64(st.Bsize), nil
}
