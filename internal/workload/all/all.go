// Package all links every workload into the binary. Import it for its side effects.
package all

import (
	_ "github.com/rumbench/rumbench/internal/workload/insert"    // insert benchmark
	_ "github.com/rumbench/rumbench/internal/workload/kv"        // CockroachDB's kv
	_ "github.com/rumbench/rumbench/internal/workload/linkbench" // LinkBench
	_ "github.com/rumbench/rumbench/internal/workload/script"    // pgbench-compatible scripts
	_ "github.com/rumbench/rumbench/internal/workload/sysbench"  // sysbench microbenchmarks
	_ "github.com/rumbench/rumbench/internal/workload/tpcc"      // TPC-C
	_ "github.com/rumbench/rumbench/internal/workload/ycsb"      // YCSB core workloads
)
