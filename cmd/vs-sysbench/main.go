// Command vs-sysbench runs sysbench and rumbench side by side against one private server per
// engine and prints both clients' CPU per statement and QPS, and their ratios (see
// docs/client-cost.md). `make vs-sysbench` builds and runs it.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"

	"github.com/rumbench/rumbench/internal/vssysbench"
)

func main() {
	var cfg vssysbench.Config
	engines := flag.String("engines", "postgres,mysql", "rumbench server engines, each on its own private server")
	threads := flag.String("threads", "1,4", "client thread counts")
	flag.Int64Var(&cfg.Rows, "rows", 100_000, "rows of the table")
	flag.Float64Var(&cfg.Secs, "secs", 10, "seconds of each test")
	flag.IntVar(&cfg.Repeats, "repeats", 3, "repeats of every comparison")
	flag.StringVar(&cfg.Sysbench, "sysbench", "sysbench", "sysbench executable")
	flag.StringVar(&cfg.Dir, "dir", "vs-sysbench-data", "working directory (servers, results); removed at the end")
	flag.Int64Var(&cfg.InsertRows, "insert-rows", 0, "also load the insert benchmark's table (l.i0) with this many rows, with rumbench and with the Python loader (0: no)")
	flag.StringVar(&cfg.Python, "python", "/usr/bin/python3", "Python interpreter of the Python loader (Debian's, with python3-psycopg2 and python3-mysqldb)")
	flag.StringVar(&cfg.PyLoad, "pyload", "tools/pyload/iiload.py", "the Python loader")
	keep := flag.Bool("keep", false, "keep the working directory (the clients' outputs, rumbench's results)")
	serve := flag.String("serve", "", "only start this engine's server, print how to connect sysbench and rumbench to it, and wait for an interrupt")
	var variants []string
	flag.Func("rumbench", "a rumbench configuration compared with sysbench, NAME=EXECUTABLE[,FLAG...] (repeatable; default rumbench=bin/rumbench)",
		func(s string) error { variants = append(variants, s); return nil })
	flag.Parse()
	cfg.Engines = strings.Split(*engines, ",")
	for _, t := range strings.Split(*threads, ",") {
		n, err := strconv.Atoi(t)
		if err != nil || n < 1 {
			fmt.Fprintf(os.Stderr, "vs-sysbench: --threads: %q is not a thread count\n", t)
			os.Exit(2)
		}
		cfg.Threads = append(cfg.Threads, n)
	}
	if len(variants) == 0 {
		variants = []string{"rumbench=bin/rumbench"}
	}
	for _, v := range variants {
		name, rest, ok := strings.Cut(v, "=")
		parts := strings.Split(rest, ",")
		if !ok || name == "" || parts[0] == "" {
			fmt.Fprintf(os.Stderr, "vs-sysbench: --rumbench %q: want NAME=EXECUTABLE[,FLAG...]\n", v)
			os.Exit(2)
		}
		cfg.Variants = append(cfg.Variants, vssysbench.Variant{Name: name, Bin: parts[0], Args: parts[1:]})
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	var err error
	if *serve != "" {
		err = vssysbench.Serve(ctx, cfg.Dir, *serve, os.Stdout)
	} else {
		err = vssysbench.Run(ctx, cfg, os.Stdout)
	}
	stop()
	if !*keep {
		os.RemoveAll(cfg.Dir)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "vs-sysbench:", err)
		os.Exit(1)
	}
}
