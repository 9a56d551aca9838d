package cli

import (
	"context"
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/rumbench/rumbench/internal/live"
	"github.com/rumbench/rumbench/internal/serve"
	"github.com/rumbench/rumbench/internal/store"
)

// serveFlags are the flags of rumbench serve.
type serveFlags struct {
	store, out, listen string
	any                bool
}

func newServeCmd(env *Env) *cobra.Command {
	f := &serveFlags{}
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Serve a web view of the results store: runs, a run's report, comparisons, runs in progress",
		Long: `Serve the results store as web pages until Ctrl-C: the list of runs (filtered by workload,
engine, label and date), a run's page (its summary first, then the report's tables and charts,
as the HTML report shows them), a comparison of two or more runs ticked in the list (the
compare tables with their significance, and the runs' charts overlaid), and a run in progress,
whose per-second charts follow it. The pages come from this binary (no network access beyond the
listener). It listens on 127.0.0.1 unless --listen-any; docs/live.md.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error { return runServe(env, f) },
	}
	fl := cmd.Flags()
	fl.StringVar(&f.store, "store", "", "results store: a SQLite file or a postgres:// URL (default <out>/rumbench.db)")
	fl.StringVar(&f.out, "out", "results", "results directory (holds the default store)")
	fl.StringVar(&f.listen, "listen", "127.0.0.1:8080", "address to serve on, HOST:PORT (127.0.0.1:0 picks a free port)")
	fl.BoolVar(&f.any, "listen-any", false, "allow --listen on an address beyond this host (every interface, or a non-loopback address)")
	return cmd
}

func runServe(env *Env, f *serveFlags) error {
	if err := live.CheckAddr("--listen", f.listen, f.any); err != nil {
		return usageError{err}
	}
	spec, err := storeSpec(f.store, f.out, false)
	if err != nil {
		return err
	}
	ctx, cancel := env.Context()
	defer cancel()
	st, err := store.OpenExisting(ctx, spec)
	if errors.Is(err, store.ErrNoStore) {
		return usagef("%v (rumbench run records runs there; give --store or --out)", err)
	}
	if err != nil {
		return err
	}
	defer st.Close()
	ln, err := live.Listen("--listen", f.listen, f.any, serve.New(st).Handler())
	if err != nil {
		return usageError{err}
	}
	defer ln.Close()
	fmt.Fprintf(env.Stderr, "rumbench: serving %s at %s (Ctrl-C stops)\n", st.Name(), ln.URL("/"))
	<-ctx.Done()
	if cause := context.Cause(ctx); cause != nil && !errors.Is(cause, context.Canceled) {
		return cause
	}
	return nil
}
