package sysstat

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"time"
)

// Sample is one reading of every counter the Sampler tracks. Counters are cumulative; take
// deltas between two Samples and divide by the operations done in between.
type Sample struct {
	// Time is when the sample was taken (wall clock plus monotonic reading: use Sub).
	Time time.Time
	// Disk holds the whole-disk counters of Sampler.Device().Name; valid only if DiskOK.
	Disk DiskStats
	// DiskOK is false when disk sampling is disabled (see Sampler.DiskError) or failed.
	DiskOK bool
	// CPU is the system-wide CPU time and context switches (/proc/stat).
	CPU CPUStat
	// Self is this process's CPU time and thread count (/proc/self/stat).
	Self ProcStat
	// SelfRSSBytes and SelfHWMBytes are this process's current and peak resident set size in
	// bytes (/proc/self/status VmRSS and VmHWM).
	SelfRSSBytes, SelfHWMBytes int64
	// DirAllocated and DirApparent are the data directory's allocated and apparent size in
	// bytes (see DirSize); valid only if DirOK, which is false when the directory does not
	// exist or the walk was not done (SampleCounters).
	DirAllocated, DirApparent int64
	// DirLogAllocated and DirLogApparent are the part of DirAllocated and DirApparent that the
	// Sampler's LogFiles match (the engine's logs and journals); valid only if DirOK.
	DirLogAllocated, DirLogApparent int64
	// DirOK reports whether DirAllocated and DirApparent were measured.
	DirOK bool
}

// procFile is an open /proc file read in full from offset 0 into a reused buffer. Procfs
// seq_files regenerate their content when read at offset 0, so the handle can stay open.
type procFile struct {
	f   *os.File
	buf []byte
}

func openProcFile(path string, size int) (procFile, error) {
	f, err := os.Open(path)
	if err != nil {
		return procFile{}, err
	}
	return procFile{f: f, buf: make([]byte, size)}, nil
}

// read returns the whole current content; the slice is valid until the next read.
func (p *procFile) read() ([]byte, error) {
	for {
		n, err := p.f.ReadAt(p.buf, 0)
		if err != nil && err != io.EOF {
			return nil, err
		}
		if n < len(p.buf) {
			return p.buf[:n], nil
		}
		p.buf = make([]byte, 2*len(p.buf)) // content did not fit: grow once, keep it
	}
}

func (p *procFile) close() error {
	if p.f == nil {
		return nil
	}
	return p.f.Close()
}

// Sampler reads the counters of one data directory's disk, the system CPU and the current
// process. It keeps its /proc files open and reuses its buffers, so a sample does not
// allocate except in the directory walk. A Sampler is not safe for concurrent use.
type Sampler struct {
	dataDir   string
	noDir     bool // NewDeviceSampler: no directory walk
	dev       Device
	diskErr   error
	diskstats procFile // zero if disk sampling is disabled
	stat      procFile
	selfStat  procFile
	status    procFile
	logs      LogFiles // the data directory's log files (SetLogFiles)
}

// NewSampler prepares a Sampler for dataDir, which need not exist yet. It discovers the block
// device holding dataDir (or its nearest existing ancestor) once; if that fails, disk sampling
// is disabled, DiskError says why and every Sample has DiskOK=false. The error is non-nil only
// if the /proc files for CPU and process counters cannot be opened.
func NewSampler(dataDir string) (*Sampler, error) {
	s := &Sampler{dataDir: dataDir}
	var err error
	if s.stat, err = openProcFile("/proc/stat", 64<<10); err != nil {
		return nil, err
	}
	if s.selfStat, err = openProcFile("/proc/self/stat", 4<<10); err != nil {
		s.Close()
		return nil, err
	}
	if s.status, err = openProcFile("/proc/self/status", 8<<10); err != nil {
		s.Close()
		return nil, err
	}
	s.dev, s.diskErr = DeviceForDir(dataDir)
	if s.diskErr == nil {
		s.diskstats, s.diskErr = openProcFile("/proc/diskstats", 16<<10)
	}
	if s.diskErr == nil {
		data, err := s.diskstats.read()
		if err == nil {
			var ok bool
			if _, ok, err = ParseDiskstats(data, s.dev.Name); err == nil && !ok {
				err = fmt.Errorf("sysstat: device %s not found in /proc/diskstats", s.dev.Name)
			}
		}
		if err != nil {
			s.diskErr = err
			s.diskstats.close()
			s.diskstats = procFile{}
		}
	}
	return s, nil
}

// NewDeviceSampler is NewSampler for data that live elsewhere (a server given by its DSN): it
// reads the device behind dir (or its nearest existing ancestor), the system CPU and the
// current process, and never walks a directory: every Sample has DirOK=false.
func NewDeviceSampler(dir string) (*Sampler, error) {
	s, err := NewSampler(dir)
	if s != nil {
		s.noDir = true
	}
	return s, err
}

// HasDir says whether the sampler walks a data directory (false for NewDeviceSampler: an
// engine whose data are elsewhere, a --dsn server).
func (s *Sampler) HasDir() bool { return !s.noDir }

// Device returns the block device discovered for the data directory (zero if DiskError is
// non-nil).
func (s *Sampler) Device() Device { return s.dev }

// SetLogFiles makes Sample sum the data directory's entries that logs match apart
// (Sample.DirLogAllocated): the engine's logs, journals and their preallocation.
func (s *Sampler) SetLogFiles(logs LogFiles) { s.logs = logs }

// DiskError returns why disk sampling is disabled, or nil if it is enabled. The error wraps
// ErrNoBlockDevice when the data directory is on a filesystem without a local block device.
func (s *Sampler) DiskError() error { return s.diskErr }

// Sample overwrites dst with the current counters, including a walk of the data directory
// (DirSize), which costs one lstat per file. On error dst holds what could be read (the
// corresponding OK flags tell which parts); a missing data directory is not an error.
func (s *Sampler) Sample(dst *Sample) error {
	err := s.SampleCounters(dst)
	if s.noDir {
		return err
	}
	u, derr := DirUsageOf(s.dataDir, s.logs)
	switch {
	case derr == nil:
		dst.DirAllocated, dst.DirApparent, dst.DirOK = u.Allocated, u.Apparent, true
		dst.DirLogAllocated, dst.DirLogApparent = u.LogAllocated, u.LogApparent
	case errors.Is(derr, fs.ErrNotExist) && !dirExists(s.dataDir):
		// not created yet (or removed): DirOK stays false
	case err == nil:
		err = derr
	}
	return err
}

// SampleCounters is Sample without the directory walk (DirOK=false): only the /proc counters,
// read with no allocation. Use it when the walk is too expensive to do at every sample.
func (s *Sampler) SampleCounters(dst *Sample) error {
	*dst = Sample{Time: time.Now()}
	var first error
	keep := func(err error) {
		if first == nil {
			first = err
		}
	}
	if s.diskstats.f != nil {
		data, err := s.diskstats.read()
		if err == nil {
			var ok bool
			dst.Disk, ok, err = ParseDiskstats(data, s.dev.Name)
			dst.DiskOK = ok && err == nil
			if err == nil && !ok {
				err = errDiskGone
			}
		}
		if err != nil {
			keep(err)
		}
	}
	if data, err := s.stat.read(); err != nil {
		keep(err)
	} else if dst.CPU, err = ParseStat(data); err != nil {
		keep(err)
	}
	if data, err := s.selfStat.read(); err != nil {
		keep(err)
	} else if dst.Self, err = ParseProcStat(data); err != nil {
		keep(err)
	}
	if data, err := s.status.read(); err != nil {
		keep(err)
	} else if dst.SelfRSSBytes, dst.SelfHWMBytes, err = ParseStatusMemory(data); err != nil {
		keep(err)
	}
	return first
}

var errDiskGone = errors.New("sysstat: the sampled device disappeared from /proc/diskstats")

// Close releases the Sampler's open files. The Sampler must not be used afterwards.
func (s *Sampler) Close() error {
	var errs []error
	for _, p := range []*procFile{&s.diskstats, &s.stat, &s.selfStat, &s.status} {
		if err := p.close(); err != nil {
			errs = append(errs, err)
		}
		*p = procFile{}
	}
	return errors.Join(errs...)
}
