package sysstat

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// fakeSysfs builds a sysfs-like tree under a temporary directory.
type fakeSysfs struct {
	t    *testing.T
	root string
}

// file writes content to root/rel, creating parent directories.
func (f fakeSysfs) file(rel, content string) {
	f.t.Helper()
	p := filepath.Join(f.root, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		f.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		f.t.Fatal(err)
	}
}

// link creates root/rel as a symlink to target (relative to rel's directory).
func (f fakeSysfs) link(rel, target string) {
	f.t.Helper()
	p := filepath.Join(f.root, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		f.t.Fatal(err)
	}
	if err := os.Symlink(target, p); err != nil {
		f.t.Fatal(err)
	}
}

// disk adds a block device directory at devices/<dir> registered as dev/block/<mm>.
func (f fakeSysfs) disk(dir, mm string, queue bool) {
	f.file(filepath.Join("devices", dir, "dev"), mm+"\n")
	f.link(filepath.Join("dev", "block", mm), filepath.Join("..", "..", "devices", dir))
	if queue {
		q := filepath.Join("devices", dir, "queue")
		f.file(filepath.Join(q, "write_cache"), "write back\n")
		f.file(filepath.Join(q, "rotational"), "0\n")
		f.file(filepath.Join(q, "scheduler"), "none [mq-deadline] kyber bfq \n")
		f.file(filepath.Join(q, "logical_block_size"), "4096\n")
	}
}

func newFakeSysfs(t *testing.T) fakeSysfs {
	f := fakeSysfs{t: t, root: t.TempDir()}
	f.disk("pci0/nvme/block/nvme0n1", "259:0", true)
	f.disk("pci0/nvme/block/nvme0n1/nvme0n1p2", "259:2", false)
	f.file("devices/pci0/nvme/block/nvme0n1/nvme0n1p2/partition", "2\n")
	f.disk("pci0/virtio/block/vdb", "254:16", true)
	f.disk("virtual/block/loop0", "7:0", true)
	f.file("devices/virtual/block/loop0/loop/backing_file", "/images/disk.img\n")
	f.disk("virtual/block/loop1", "7:1", true)
	f.file("devices/virtual/block/loop1/loop/backing_file", "/mnt/loop0fs/inner.img (deleted)\n")
	f.disk("virtual/block/loop2", "7:2", true)
	f.file("devices/virtual/block/loop2/loop/backing_file", "/dev/shm/x.img\n")
	f.disk("virtual/block/loop3", "7:3", true) // not attached: no loop/ directory
	// dm-0 on nvme0n1p2 and md0; md0 mirrors vdb and loop3.
	f.disk("virtual/block/md0", "9:0", true)
	f.link("devices/virtual/block/md0/slaves/vdb", "../../../../pci0/virtio/block/vdb")
	f.link("devices/virtual/block/md0/slaves/loop3", "../../loop3")
	f.disk("virtual/block/dm-0", "253:0", true)
	f.link("devices/virtual/block/dm-0/slaves/nvme0n1p2", "../../../../pci0/nvme/block/nvme0n1/nvme0n1p2")
	f.link("devices/virtual/block/dm-0/slaves/md0", "../../md0")
	return f
}

// fakeStat maps the backing files of the fake tree to device numbers.
func fakeStat(path string) (uint32, uint32, error) {
	switch path {
	case "/images/disk.img":
		return 259, 2, nil // on nvme0n1p2
	case "/mnt/loop0fs/inner.img":
		return 7, 0, nil // on a filesystem inside loop0
	case "/dev/shm/x.img":
		return 0, 27, nil // tmpfs
	}
	return 0, 0, fmt.Errorf("stat %s: %w", path, os.ErrNotExist)
}

func TestResolveDeviceFakeSysfs(t *testing.T) {
	f := newFakeSysfs(t)
	nvme := Device{Name: "nvme0n1", MajorMinor: "259:0", WriteCache: "write back",
		Rotational: "0", Scheduler: "mq-deadline", LogicalBlockSize: "4096"}
	withPart := nvme
	withPart.Partition = "nvme0n1p2"
	loop := func(name, mm, backing string) Device {
		d := nvme
		d.Name, d.MajorMinor, d.Backing = name, mm, backing
		return d
	}
	tests := []struct {
		name         string
		major, minor uint32
		want         Device
	}{
		{"whole disk", 259, 0, nvme},
		{"partition → parent disk", 259, 2, withPart},
		{"loop → backing disk", 7, 0, loop("loop0", "7:0", "nvme0n1")},
		{"loop on loop → final disk", 7, 1, loop("loop1", "7:1", "nvme0n1")},
		{"loop on tmpfs", 7, 2, loop("loop2", "7:2", "")},
		{"detached loop", 7, 3, loop("loop3", "7:3", "")},
		{"md → leaves", 9, 0, func() Device {
			d := loop("md0", "9:0", "")
			d.Slaves = []string{"loop3", "vdb"}
			return d
		}()},
		{"dm on partition and md → leaves", 253, 0, func() Device {
			d := loop("dm-0", "253:0", "")
			d.Slaves = []string{"loop3", "vdb", "nvme0n1p2"}
			return d
		}()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := resolveDevice(f.root, tt.major, tt.minor, fakeStat, 0)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got  %+v\nwant %+v", got, tt.want)
			}
		})
	}
	if _, err := resolveDevice(f.root, 0, 27, fakeStat, 0); !errors.Is(err, ErrNoBlockDevice) {
		t.Errorf("major 0: err = %v, want ErrNoBlockDevice", err)
	}
	if _, err := resolveDevice(f.root, 8, 99, fakeStat, 0); err == nil {
		t.Error("unknown device: no error")
	}
}

func TestLoopCycleTerminates(t *testing.T) {
	f := fakeSysfs{t: t, root: t.TempDir()}
	f.disk("virtual/block/loop5", "7:5", true)
	f.file("devices/virtual/block/loop5/loop/backing_file", "/self.img\n")
	self := func(string) (uint32, uint32, error) { return 7, 5, nil }
	d, err := resolveDevice(f.root, 7, 5, self, 0)
	if err != nil || d.Name != "loop5" {
		t.Fatalf("got %+v, %v", d, err)
	}
}

func TestDeviceForDirReal(t *testing.T) {
	dir := t.TempDir()
	d, err := DeviceForDir(dir)
	if err != nil {
		if !errors.Is(err, ErrNoBlockDevice) {
			t.Fatalf("DeviceForDir(%s): unexpected error %v", dir, err)
		}
		t.Skipf("temp dir has no block device: %v", err)
	}
	if d.Name == "" || d.MajorMinor == "" {
		t.Fatalf("DeviceForDir(%s) = %+v: empty Name or MajorMinor", dir, d)
	}
	t.Logf("%s → %+v", dir, d)
	// A directory that does not exist yet resolves through its nearest existing ancestor.
	d2, err := DeviceForDir(filepath.Join(dir, "not", "yet", "created"))
	if err != nil || !reflect.DeepEqual(d, d2) {
		t.Errorf("non-existent subdir: got %+v, %v; want %+v", d2, err, d)
	}
}

func TestDeviceForDirNoBlockDevice(t *testing.T) {
	_, err := DeviceForDir("/proc/self")
	if !errors.Is(err, ErrNoBlockDevice) {
		t.Fatalf("DeviceForDir(/proc/self): err = %v, want ErrNoBlockDevice", err)
	}
	t.Log(err)
}

func TestFilesystemForDirReal(t *testing.T) {
	dir := t.TempDir()
	fs, err := FilesystemForDir(filepath.Join(dir, "missing"))
	if err != nil {
		t.Fatal(err)
	}
	if fs.Type == "" || fs.MountPoint == "" {
		t.Fatalf("FilesystemForDir(%s) = %+v", dir, fs)
	}
	t.Logf("%s → %+v", dir, fs)
	if fs, err := FilesystemForDir("/proc/self"); err != nil || fs.Type != "proc" {
		t.Errorf("FilesystemForDir(/proc/self) = %+v, %v; want type proc", fs, err)
	}
}

func TestHostInfo(t *testing.T) {
	h := HostInfo(t.TempDir())
	if h.Kernel == "" || h.CPUs < 1 || h.MemoryBytes <= 0 {
		t.Errorf("HostInfo = %+v", h)
	}
	if (h.Device.Name == "") == (h.DeviceError == "") {
		t.Errorf("exactly one of Device.Name and DeviceError must be set: %+v", h)
	}
	t.Logf("%+v", h)
}
