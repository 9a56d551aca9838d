package cli

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sync"
	"time"

	"github.com/spf13/pflag"

	"github.com/rumbench/rumbench/internal/bench"
	"github.com/rumbench/rumbench/internal/engine"
	"github.com/rumbench/rumbench/internal/input"
	"github.com/rumbench/rumbench/internal/redact"
	"github.com/rumbench/rumbench/internal/results"
	"github.com/rumbench/rumbench/internal/store"
	"github.com/rumbench/rumbench/internal/workload"
)

// shardFlags are the flags of a split run: --shard I/N, --group ID, --barrier-timeout-secs.
type shardFlags struct {
	shard, group   string
	barrierTimeout float64
}

func (s *shardFlags) add(fl *pflag.FlagSet) {
	fl.StringVar(&s.shard, "shard", "", "run shard I of N (0 <= I < N) of a split run: the shards partition the work and together do that of one process with N times the clients, on one server all shards share (--dsn); see docs/distributed.md")
	fl.StringVar(&s.group, "group", "", "id of the split run every shard records (with --shard; default derived from the run's settings, leaving out those that may differ between shards: --shard, --out, --data-dir, --dsn, --store and the like; see docs/distributed.md); one id names one split run")
	fl.Float64Var(&s.barrierTimeout, "barrier-timeout-secs", 600, "with --shard and a PostgreSQL --store: how long a shard waits at a step's barrier for the others before it fails")
}

// groupPattern is what a group id may hold: it names a Kubernetes Job and goes in run ids.
var groupPattern = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]{0,46}[a-z0-9])?$`)

// applyShard makes cfg a shard of a split run when --shard is given: the workload is
// restricted to its part, every target must be a server the shards share (--dsn), and the
// manifest records the group. An error is the user's.
func applyShard(env *Env, f *runFlags, cfg *bench.Config, storeAt string) error {
	sf := f.shardFlags
	if sf.shard == "" {
		if sf.group != "" {
			return usagef("--group %s goes with --shard I/N", input.Short(sf.group))
		}
		return nil
	}
	sh, err := workload.ParseShard(sf.shard)
	if err != nil {
		return usageError{err}
	}
	if f.prepare || f.reuse || f.repeat > 1 {
		return usagef("--shard does not go with prepare, --reuse or --repeat")
	}
	if !(sf.barrierTimeout > 0) {
		return usagef("--barrier-timeout-secs %g: must be > 0", sf.barrierTimeout)
	}
	sharder, ok := cfg.Workload.(workload.Sharder)
	if !ok {
		return usagef("--shard: workload %s does not split its work among shards", cfg.Workload.Name())
	}
	for _, t := range cfg.Targets {
		if t.Engine.Options["dsn"] == "" {
			what := "an embedded engine keeps its data in this process's data directory"
			if s, _ := engine.Lookup(t.Engine.Name); s.Server {
				what = "a server rumbench starts is private to one process"
			}
			return usagef("--shard needs a server every shard shares, given with --dsn: %s is not one (%s)", t.Label, what)
		}
	}
	if err := sharder.SetShard(sh); err != nil {
		return usageError{err}
	}
	group := sf.group
	if group == "" {
		group = defaultGroup(f.cmdFlags)
	}
	if !groupPattern.MatchString(group) {
		return usagef("--group %q: want 1 to 48 lower-case letters, digits and '-', starting and ending with a letter or digit (it goes in the run id)", input.Short(group))
	}
	cfg.Shard = &results.ShardInfo{Group: group, Index: sh.Index, Count: sh.Count, Part: sharder.ShardPart(), Barriers: store.IsPostgres(storeAt)}
	if _, shared := cfg.Workload.(workload.SharedTables); shared && sh.Count > 1 && !cfg.Shard.Barriers {
		return usagef("--shard: workload %s shares its tables among the shards: they must meet at barriers in a PostgreSQL --store (postgres://...)", cfg.Workload.Name())
	}
	if cfg.Pace != nil {
		// --rate is the whole run's: each shard keeps its part of it.
		p := *cfg.Pace
		p.Rate /= float64(sh.Count)
		cfg.Pace = &p
	}
	cfg.Settings["shard"], cfg.Settings["group"] = sh.String(), group
	cfg.RunID += fmt.Sprintf("-%s-s%d", group, sh.Index)
	return nil
}

// perShardFlags are the run flags left out of the default group id: those that may differ
// between the shards of one split run. Each shard's own index, outputs and gates (--shard,
// --out, --junit, --check, --cpuprofile, --quiet, --wide), its host's paths and settings (--data-dir,
// --server-bin, --readahead-kb), how it reaches the shared server and store (--dsn, --store: a
// host name or address may differ from host to host), whether it drops the tables it left
// before (--fresh) and how long it waits for the others (--barrier-timeout-secs). --group is
// the id itself.
var perShardFlags = []string{"shard", "group", "out", "junit", "check", "cpuprofile", "quiet", "wide", "data-dir", "server-bin",
	"readahead-kb", "dsn", "store", "fresh", "barrier-timeout-secs"}

// defaultGroup derives a group id from the run's effective settings, every flag's value (a
// workload's too, the run file's expanded), but perShardFlags: shards started with the same
// settings get the same id ("g-" and 12 hex digits) whatever the order, spelling and per-shard
// flags of their command lines. Values are hashed with their passwords masked.
func defaultGroup(fs *pflag.FlagSet) string {
	h := sha256.New()
	fs.VisitAll(func(fl *pflag.Flag) { // in name order
		if slices.Contains(perShardFlags, fl.Name) {
			return
		}
		fmt.Fprintf(h, "%s=%s\x00", fl.Name, redact.DSN(fl.Value.String()))
	})
	return "g-" + hex.EncodeToString(h.Sum(nil))[:12]
}

// shardSession is a shard's part in its group, in the store: joined before the run, the
// barriers before each step, the watch that stops this shard when another fails, and the
// failure it records when it fails itself.
type shardSession struct {
	env      *Env
	info     *results.ShardInfo
	st       *store.Store
	timeout  time.Duration
	mu       sync.Mutex
	passes   map[string]int // times each barrier name was met
	stopOnce sync.Once
	stop     chan struct{}
	done     chan struct{}
}

// joinGroup opens the store and records this shard in its group; nil without a shard or a
// store. A store that refuses the shard (the group ran already, or has another size) is a usage
// error.
func joinGroup(ctx context.Context, env *Env, cfg *bench.Config, storeAt string, timeout time.Duration) (*shardSession, error) {
	if cfg.Shard == nil || storeAt == "none" {
		if cfg.Shard != nil {
			fmt.Fprintf(env.Stderr, "rumbench: warning: --store none: the shards of group %s do not meet at barriers: their steps are not aligned\n", cfg.Shard.Group)
		}
		return nil, nil
	}
	st, err := openStore(ctx, storeAt)
	if err != nil {
		return nil, fmt.Errorf("--shard: %w", err)
	}
	var ge *store.GroupError
	if err := st.JoinGroup(ctx, cfg.Shard.Group, cfg.Shard.Index, cfg.Shard.Count, hostname()); errors.As(err, &ge) {
		st.Close()
		return nil, usageError{err}
	} else if err != nil {
		st.Close()
		return nil, err
	}
	s := &shardSession{env: env, info: cfg.Shard, st: st, timeout: timeout, passes: map[string]int{},
		stop: make(chan struct{}), done: make(chan struct{})}
	if !cfg.Shard.Barriers {
		fmt.Fprintf(env.Stderr, "rumbench: warning: the store is not PostgreSQL: the shards of group %s do not meet at barriers: their steps are not aligned\n", cfg.Shard.Group)
	} else {
		cfg.Barrier = s.barrier
	}
	return s, nil
}

// barrier waits for the other shards at the barrier name (the n-th time it is met, for a
// repeated step).
func (s *shardSession) barrier(ctx context.Context, name string) error {
	s.mu.Lock()
	s.passes[name]++
	pass := fmt.Sprintf("%s#%d", name, s.passes[name])
	s.mu.Unlock()
	// Said once per barrier, --quiet or not: a shard waiting for shards that are in another
	// group (started with other settings) would otherwise wait silently until the timeout.
	return s.st.Barrier(ctx, s.info.Group, pass, s.info.Index, s.info.Count, s.timeout, func(arrived int) {
		fmt.Fprintf(s.env.Stderr, "rumbench: shard %d/%d waiting before %s in group %s: %d of %d shards arrived (it waits up to %v; shards started with other settings are in another group: give them all the same --group)\n",
			s.info.Index, s.info.Count, name, s.info.Group, arrived, s.info.Count, s.timeout)
	})
}

// watch cancels the run (with the group's failure as the cause) when another shard marks the
// group failed; it polls the store every second until close.
func (s *shardSession) watch(ctx context.Context, cancel context.CancelCauseFunc) {
	go func() {
		defer close(s.done)
		t := time.NewTicker(time.Second)
		defer t.Stop()
		for {
			select {
			case <-s.stop:
				return
			case <-ctx.Done():
				return
			case <-t.C:
			}
			var fe *store.FailedError
			if err := s.st.GroupFailure(ctx, s.info.Group); errors.As(err, &fe) {
				fmt.Fprintf(s.env.Stderr, "rumbench: %v: stopping this shard (what it measured is kept)\n", err)
				cancel(err)
				return
			}
		}
	}()
}

// started records the run id of this shard once its directory exists.
func (s *shardSession) started(ctx context.Context, dir string) {
	s.st.SetMemberRun(context.WithoutCancel(ctx), s.info.Group, s.info.Index, filepath.Base(dir))
}

// finish stops the watch and, when this shard failed by itself, marks the group failed so
// the others stop.
func (s *shardSession) finish(ctx context.Context, runErr error) {
	s.stopOnce.Do(func() { close(s.stop) })
	<-s.done
	var fe *store.FailedError
	if runErr != nil && !errors.As(runErr, &fe) && !errors.Is(context.Cause(ctx), runErr) {
		fctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
		s.st.FailGroup(fctx, s.info.Group, s.info.Index, runErr.Error())
		cancel()
	}
	s.st.Close()
}

// hostname is this host's name ("" when it has none).
func hostname() string {
	h, _ := os.Hostname()
	return h
}
