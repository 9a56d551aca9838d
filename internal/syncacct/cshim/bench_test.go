package cshim

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/rumbench/rumbench/internal/syncacct"
)

// writeLoop is a C program that times n pwrite(fd, 100 bytes, offset 0) calls on a file and
// prints the nanoseconds per call: the cost of the write path with and without the library.
const writeLoop = `#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
int main(int argc, char **argv) {
	long n = atol(argv[2]);
	char buf[100] = {0};
	int fd = open(argv[1], O_CREAT | O_WRONLY, 0644);
	if (fd < 0) return 1;
	for (int i = 0; i < 1000; i++) pwrite(fd, buf, sizeof buf, 0); /* warm up, resolve */
	struct timespec a, b;
	clock_gettime(CLOCK_MONOTONIC, &a);
	for (long i = 0; i < n; i++)
		if (pwrite(fd, buf, sizeof buf, 0) != sizeof buf) return 2;
	clock_gettime(CLOCK_MONOTONIC, &b);
	printf("%.1f\n", ((b.tv_sec - a.tv_sec) * 1e9 + (b.tv_nsec - a.tv_nsec)) / (double)n);
	return close(fd);
}
`

// BenchmarkPreloadWrite measures one pwrite of 100 bytes in a C program: plain, and through the
// preloaded library on a counted file (class lookup from the cache, two atomic adds) or a file
// outside the root (class lookup only); on /dev/null (cheap, so the library's share shows) and
// on a regular file. The figure is ns/write, timed inside the program.
func BenchmarkPreloadWrite(b *testing.B) {
	if _, err := exec.LookPath("gcc"); err != nil {
		b.Skip("gcc not installed")
	}
	dir := b.TempDir()
	prog := filepath.Join(dir, "writeloop")
	src := prog + ".c"
	os.WriteFile(src, []byte(writeLoop), 0o644)
	if out, err := exec.Command("gcc", "-O2", "-o", prog, src).CombinedOutput(); err != nil {
		b.Fatalf("gcc: %v: %s", err, out)
	}
	root := filepath.Join(dir, "root")
	os.Mkdir(root, 0o755)
	pl, err := NewPreload(root, syncacct.Patterns{Log: []string{"*.log"}}, 0)
	if err != nil {
		b.Fatal(err)
	}
	defer pl.Close()
	// /dev/null as a counted log file: a write that costs little, so the library's share shows.
	dev, err := NewPreload("/dev", syncacct.Patterns{Log: []string{"null"}}, 0)
	if err != nil {
		b.Fatal(err)
	}
	defer dev.Close()
	cases := []struct {
		name, file string
		pl         *Preload
		env        []string
	}{
		{"devnull_plain", "/dev/null", dev, nil},
		{"devnull_preload_counted", "/dev/null", dev, dev.Env()},
		{"file_plain", filepath.Join(root, "w.log"), pl, nil},
		{"file_preload_counted", filepath.Join(root, "w.log"), pl, pl.Env()},
		{"file_preload_outside_root", filepath.Join(dir, "w.log"), pl, pl.Env()},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			var s0, s1 syncacct.Sample
			pl := c.pl
			pl.Read(&s0)
			cmd := exec.Command(prog, c.file, strconv.Itoa(b.N))
			cmd.Env = append(os.Environ(), c.env...)
			out, err := cmd.Output()
			if err != nil {
				b.Fatal(err)
			}
			ns, err := strconv.ParseFloat(strings.TrimSpace(string(out)), 64)
			if err != nil {
				b.Fatal(err)
			}
			b.ReportMetric(ns, "ns/write")
			pl.Read(&s1)
			d := s1.Sub(s0).Class[syncacct.Log]
			if strings.HasSuffix(c.name, "preload_counted") && d.Writes != uint64(b.N)+1000 {
				b.Fatalf("counted %d writes, want %d", d.Writes, b.N+1000)
			}
		})
	}
}
