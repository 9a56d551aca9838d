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
	flag.StringVar(&cfg.Rumbench, "rumbench", "bin/rumbench", "rumbench executable")
	flag.StringVar(&cfg.Sysbench, "sysbench", "sysbench", "sysbench executable")
	flag.StringVar(&cfg.Dir, "dir", "vs-sysbench-data", "working directory (servers, results); removed at the end")
	flag.Int64Var(&cfg.InsertRows, "insert-rows", 0, "also run the insert benchmark's l.i0 with this many rows (0: no)")
	rargs := flag.String("rumbench-args", "", "extra flags of every rumbench run, space-separated")
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
	cfg.RumbenchArgs = strings.Fields(*rargs)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := vssysbench.Run(ctx, cfg, os.Stdout)
	stop()
	os.RemoveAll(cfg.Dir)
	if err != nil {
		fmt.Fprintln(os.Stderr, "vs-sysbench:", err)
		os.Exit(1)
	}
}
