package sysstat

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// ErrNoBlockDevice is wrapped by the error DeviceForDir returns when the directory's
// filesystem is not backed by a local block device (st_dev major 0: tmpfs, overlay, btrfs,
// NFS, FUSE, ...). Callers should then report storage metrics as absent.
var ErrNoBlockDevice = errors.New("directory has no local block device")

// Device describes the block device that holds a directory, as named in /proc/diskstats.
// The string attributes are copied verbatim (trimmed) from sysfs and are "" when unknown.
type Device struct {
	// Name is the diskstats name of the whole disk (e.g. "vda", "nvme0n1", "loop0", "dm-0").
	// For loop, dm and md devices it is the top (logical) device, not what lies beneath.
	Name string `json:"name"`
	// Partition is the diskstats name of the partition holding the directory (e.g.
	// "nvme0n1p2"), or "" if the filesystem is on the whole disk.
	Partition string `json:"partition"`
	// MajorMinor is "MAJ:MIN" of the disk named by Name (for a partition this differs from
	// the directory's st_dev, which is the partition's).
	MajorMinor string `json:"major_minor"`
	// WriteCache is /sys/block/<Name>/queue/write_cache: "write back" (flushes reach the
	// device) or "write through" (the kernel drops flushes).
	WriteCache string `json:"write_cache"`
	// Rotational is /sys/block/<Name>/queue/rotational: "1" for spinning disks, "0" for
	// SSDs. Virtual disks often report "1" whatever backs them.
	Rotational string `json:"rotational"`
	// Scheduler is the active I/O scheduler (the bracketed entry of
	// /sys/block/<Name>/queue/scheduler), e.g. "mq-deadline" or "none".
	Scheduler string `json:"scheduler"`
	// LogicalBlockSize is /sys/block/<Name>/queue/logical_block_size, in bytes.
	LogicalBlockSize string `json:"logical_block_size"`
	// Backing is set for loop devices: the diskstats name of the whole disk that holds the
	// loop's backing file, following loop-on-loop chains to the end. I/O on the loop device
	// shows up a second time there: never sum Name and Backing. "" if unknown or not local.
	Backing string `json:"backing,omitempty"`
	// Slaves is set for stacked devices (dm-*, md*): the diskstats names of the leaf devices
	// found by following /sys/block/<Name>/slaves recursively (may be partitions). Their I/O
	// is the physical I/O, including RAID or mirroring overhead.
	Slaves []string `json:"slaves,omitempty"`
}

// statDevFunc returns the major and minor numbers of the device holding path.
type statDevFunc func(path string) (major, minor uint32, err error)

// maxStackDepth bounds loop-on-loop and dm-on-dm recursion.
const maxStackDepth = 8

// DeviceForDir returns the block device holding dir. If dir does not exist yet, its nearest
// existing ancestor is used. The error wraps ErrNoBlockDevice when the filesystem has no
// local block device (major number 0).
func DeviceForDir(dir string) (Device, error) {
	p, err := existingAncestor(dir)
	if err != nil {
		return Device{}, err
	}
	major, minor, err := statDev(p)
	if err != nil {
		return Device{}, err
	}
	if major == 0 {
		what := "a filesystem"
		if f, err := FilesystemForDir(p); err == nil {
			what = f.Type + " (" + f.Source + " on " + f.MountPoint + ")"
		}
		return Device{}, fmt.Errorf("sysstat: %s is on %s, st_dev 0:%d: %w", dir, what, minor,
			ErrNoBlockDevice)
	}
	return resolveDevice("/sys", major, minor, statDev, 0)
}

// statDev is the real statDevFunc: the st_dev of path, following symlinks.
func statDev(path string) (major, minor uint32, err error) {
	var st unix.Stat_t
	if err := unix.Stat(path, &st); err != nil {
		return 0, 0, &fs.PathError{Op: "stat", Path: path, Err: err}
	}
	return unix.Major(st.Dev), unix.Minor(st.Dev), nil
}

// existingAncestor returns the absolute form of dir, or of its nearest existing ancestor.
func existingAncestor(dir string) (string, error) {
	p, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	for {
		_, err := os.Stat(p)
		if err == nil {
			return p, nil
		}
		if !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, unix.ENOTDIR) {
			return "", err
		}
		parent := filepath.Dir(p)
		if parent == p {
			return "", err
		}
		p = parent
	}
}

// resolveDevice maps a device number to a Device using the sysfs tree rooted at sysfs (normally
// "/sys"): <sysfs>/dev/block/MAJ:MIN is resolved to its real directory, a partition is replaced
// by its parent disk, a loop device's backing file is followed with stat, and a stacked
// device's slaves are listed.
func resolveDevice(sysfs string, major, minor uint32, stat statDevFunc, depth int) (Device, error) {
	if major == 0 {
		return Device{}, fmt.Errorf("sysstat: st_dev 0:%d: %w", minor, ErrNoBlockDevice)
	}
	mm := strconv.FormatUint(uint64(major), 10) + ":" + strconv.FormatUint(uint64(minor), 10)
	real, err := filepath.EvalSymlinks(filepath.Join(sysfs, "dev", "block", mm))
	if err != nil {
		return Device{}, fmt.Errorf("sysstat: block device %s not found in sysfs: %w", mm, err)
	}
	var d Device
	disk := real
	if fileExists(filepath.Join(real, "partition")) {
		d.Partition = filepath.Base(real)
		disk = filepath.Dir(real)
	}
	d.Name = filepath.Base(disk)
	d.MajorMinor = readTrim(filepath.Join(disk, "dev"))
	if d.MajorMinor == "" && d.Partition == "" {
		d.MajorMinor = mm
	}
	q := filepath.Join(disk, "queue")
	d.WriteCache = readTrim(filepath.Join(q, "write_cache"))
	d.Rotational = readTrim(filepath.Join(q, "rotational"))
	d.Scheduler = activeScheduler(readTrim(filepath.Join(q, "scheduler")))
	d.LogicalBlockSize = readTrim(filepath.Join(q, "logical_block_size"))

	if bf := readTrim(filepath.Join(disk, "loop", "backing_file")); bf != "" && depth < maxStackDepth {
		bf = strings.TrimSuffix(bf, " (deleted)")
		if bmaj, bmin, err := stat(bf); err == nil && bmaj != 0 {
			if inner, err := resolveDevice(sysfs, bmaj, bmin, stat, depth+1); err == nil {
				d.Backing = inner.Name
				if inner.Backing != "" {
					d.Backing = inner.Backing
				}
			}
		}
	}
	d.Slaves = leafSlaves(disk, nil, depth)
	return d, nil
}

// leafSlaves appends to acc the leaves of the slaves tree under the sysfs device directory
// dir, without duplicates.
func leafSlaves(dir string, acc []string, depth int) []string {
	entries, err := os.ReadDir(filepath.Join(dir, "slaves"))
	if err != nil || depth >= maxStackDepth {
		return acc
	}
	for _, e := range entries {
		name := e.Name()
		sub, err := filepath.EvalSymlinks(filepath.Join(dir, "slaves", name))
		if err == nil {
			if deeper, _ := os.ReadDir(filepath.Join(sub, "slaves")); len(deeper) > 0 {
				acc = leafSlaves(sub, acc, depth+1)
				continue
			}
		}
		if !slices.Contains(acc, name) {
			acc = append(acc, name)
		}
	}
	return acc
}

// activeScheduler extracts the bracketed entry of a queue/scheduler file ("none [mq-deadline]
// kyber" → "mq-deadline"); content without brackets is returned as is.
func activeScheduler(s string) string {
	i := strings.IndexByte(s, '[')
	j := strings.IndexByte(s, ']')
	if i >= 0 && j > i {
		return s[i+1 : j]
	}
	return s
}

func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// readTrim returns the whitespace-trimmed content of a small file, or "" if it cannot be read.
func readTrim(path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}
