package cli

import (
	"github.com/spf13/cobra"

	"github.com/rumbench/rumbench/internal/bench"
	"github.com/rumbench/rumbench/internal/memcap"
)

// memoryProfile is the cache and memory cap a profile sets, unless --cache-mb and
// --memory-limit are given.
type memoryProfile struct {
	cacheMB int64
	limit   string
}

// memoryProfiles are the profiles that run under a memory cap (the workload's own profile sets
// the sizes): iobound puts the insert benchmark's l.i1 and query steps past memory on a 2-core
// machine in minutes (docs/io-bound.md).
var memoryProfiles = map[string]memoryProfile{
	"iobound": {cacheMB: 32, limit: "256M"},
}

// memoryLimit returns the cap --memory-limit asks for, bytes (0: none).
func memoryLimit(f *runFlags) (int64, error) {
	if f.memoryLimit == "" {
		return 0, nil
	}
	n, err := memcap.ParseSize(f.memoryLimit)
	if err != nil {
		return 0, usageError{err}
	}
	return n, nil
}

// newWorkerCmd is the hidden engine-worker command: the process rumbench run starts for each
// embedded engine under --memory-limit, which reads its assignment on standard input and
// streams its results on standard output (bench.Worker).
func newWorkerCmd(env *Env) *cobra.Command {
	return &cobra.Command{
		Use:    bench.WorkerCommand,
		Short:  "run one engine's steps for rumbench run (started by rumbench itself)",
		Hidden: true,
		Args:   cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx, cancel := env.Context()
			defer cancel()
			return bench.Worker(ctx, env.Stdin, env.Stdout, func(args []string) (bench.Config, error) {
				e := *env
				e.Args = args
				if len(args) == 0 {
					return bench.Config{}, usagef("engine worker: no command line in the assignment")
				}
				rc, f, err := parseRun(&e, args)
				if err != nil {
					return bench.Config{}, err
				}
				return buildConfig(ctx, rc, &e, f)
			})
		},
	}
}
