package cli

import (
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/rumbench/rumbench/internal/bench"
	"github.com/rumbench/rumbench/internal/gen"
	"github.com/rumbench/rumbench/internal/input"
	"github.com/rumbench/rumbench/internal/results"
	"github.com/rumbench/rumbench/internal/runner"
	"github.com/rumbench/rumbench/internal/workload"
)

// maxSweepRates bounds the rates of one sweep.
const maxSweepRates = 32

// maxSLO bounds the limit of --slo.
const maxSLO = time.Hour

// rateFlags are the run's fixed-rate flags: --rate (one rate, or a list: a sweep of rates),
// --arrivals, --latency-limit and --slo.
type rateFlags struct {
	rate, arrivals, slo string
	latencyLimit        time.Duration
	// rates is --rate parsed (parse), nil when not given.
	rates []float64
}

// parse parses --rate when given (given("rate")) into r.rates, or returns a usage error; the
// workload is built with its largest (workload.Shared.Rate), the run with all of them (build).
func (r *rateFlags) parse(given func(string) bool) error {
	r.rates = nil
	if !given("rate") {
		return nil
	}
	var err error
	r.rates, err = parseRates(r.rate)
	return err
}

func (r *rateFlags) add(fl *pflag.FlagSet) {
	fl.StringVar(&r.rate, "rate", "", "run every measured step (not the loads) at this fixed rate, per second over all clients: transactions, events, requests or operations (rows for the insert benchmark's writers), on a schedule fixed in advance from --seed; latency is then also measured from each operation's intended start; a list such as 1000,2000,4000 sweeps the rates on data loaded once, each a target of the run (docs/rates.md)")
	fl.StringVar(&r.arrivals, "arrivals", "poisson", "how --rate spaces operations: poisson (independent arrivals, as pgbench -R) or uniform (evenly, as YCSB -target)")
	fl.DurationVar(&r.latencyLimit, "latency-limit", 0, "with --rate, skip an operation already later than this when its turn comes, counted as skipped, not run (pgbench's --latency-limit; 0: none)")
	fl.StringVar(&r.slo, "slo", "", "a latency goal, PERCENTILE<=DURATION from the intended start (e.g. p99<=10ms): with a sweep of rates, each target's capacity is the highest rate that met it (check it with --check capacity>=N)")
}

// rateFlagNames are the flags of rateFlags: a preparation takes none (it only loads).
var rateFlagNames = []string{"rate", "arrivals", "latency-limit", "slo"}

// build returns the run's fixed rate (nil without --rate or a workload flag that spells it),
// the rates of a sweep (nil for one rate) and the latency goal, or a usage error of one line.
// given says whether the command line gave a flag; --rate is parsed already (parse); wl's
// spelling of the rate (YCSB's --target) stands for --rate.
func (r *rateFlags) build(given func(string) bool, seed uint64, wl workload.Workload) (*runner.Pace, []float64, *results.SLO, error) {
	rates := r.rates
	arrivals, err := gen.ParseArrivals(r.arrivals)
	if err != nil {
		return nil, nil, nil, usagef("--arrivals %q: %v", input.Short(r.arrivals), err)
	}
	if sp, ok := wl.(workload.RateSpelling); ok {
		if flag, rate, own, ok := sp.SpelledRate(); ok {
			if rates != nil {
				return nil, nil, nil, usagef("--%s and --rate set the same rate: give one of them", flag)
			}
			rates = []float64{rate}
			if !given("arrivals") {
				arrivals = own
			}
		}
	}
	if rates == nil {
		for _, n := range []string{"arrivals", "latency-limit", "slo"} {
			if given(n) {
				return nil, nil, nil, usagef("--%s is a setting of a fixed rate: give --rate too", n)
			}
		}
		return nil, nil, nil, nil
	}
	if r.latencyLimit < 0 || r.latencyLimit > bench.MaxLatencyLimit {
		return nil, nil, nil, usagef("--latency-limit %v: must be between 0 (none) and %v", r.latencyLimit, bench.MaxLatencyLimit)
	}
	var slo *results.SLO
	if given("slo") {
		if slo, err = parseSLO(r.slo); err != nil {
			return nil, nil, nil, err
		}
	}
	pace := &runner.Pace{Rate: rates[len(rates)-1], Arrivals: arrivals, Seed: seed, LatencyLimit: r.latencyLimit}
	if len(rates) == 1 {
		rates = nil
	}
	return pace, rates, slo, nil
}

// parseRates parses --rate: one rate, or an increasing list of at most maxSweepRates, each
// above 0 and at most bench.MaxRate per second.
func parseRates(text string) ([]float64, error) {
	items, err := workload.SplitList("--rate", text)
	if err != nil {
		return nil, usageError{err}
	}
	if len(items) > maxSweepRates {
		return nil, usagef("--rate: %d rates; a sweep takes at most %d", len(items), maxSweepRates)
	}
	var out []float64
	for _, it := range items {
		v, err := strconv.ParseFloat(it, 64)
		if err != nil || math.IsNaN(v) || !(v > 0 && v <= bench.MaxRate) {
			return nil, usagef("--rate %q: %q is not a rate: want a number of operations per second above 0 and at most %g (e.g. 2000, or 1000,2000,4000 for a sweep)", input.Short(text), input.Short(it), float64(bench.MaxRate))
		}
		if len(out) > 0 && v <= out[len(out)-1] {
			return nil, usagef("--rate %q: %g after %g: the rates of a sweep must increase", input.Short(text), v, out[len(out)-1])
		}
		out = append(out, v)
	}
	return out, nil
}

// sloPattern is --slo's form: a percentile's name, <=, a duration.
var sloPattern = regexp.MustCompile(`^p([0-9]{1,2}(\.[0-9]{1,3})?)\s*<=\s*([0-9.]+(ns|us|µs|ms|s))$`)

// parseSLO parses --slo, PERCENTILE<=DURATION (p99<=10ms, p99.9<=50ms): a percentile above 0
// and below 100, a limit above 0 and at most maxSLO.
func parseSLO(text string) (*results.SLO, error) {
	m := sloPattern.FindStringSubmatch(strings.TrimSpace(text))
	bad := usagef("--slo %q: want PERCENTILE<=DURATION with a percentile from p1 to p99.999 and a limit above 0 and at most %v (e.g. p99<=10ms, p99.9<=50ms)", input.Short(text), maxSLO)
	if m == nil {
		return nil, bad
	}
	p, err1 := strconv.ParseFloat(m[1], 64)
	d, err2 := time.ParseDuration(m[3])
	if err1 != nil || err2 != nil || p <= 0 || p >= 100 || d <= 0 || d > maxSLO {
		return nil, bad
	}
	return &results.SLO{Text: "p" + m[1] + "<=" + m[3], Name: "p" + m[1], Percentile: p, LimitUs: float64(d) / 1e3}, nil
}

// rateSweep returns the run's sweep of rates (nil for none); a sweep of client counts beside it
// is refused in one line.
func rateSweep(f *runFlags, rates []float64) (*results.Sweep, error) {
	if rates == nil {
		return nil, nil
	}
	if f.sweep != nil && len(f.sweep.counts) > 0 {
		return nil, usagef("--rate %s with --%s %s: sweep one of them at a time (a list of rates at one client count, or counts at one rate)", f.rates.rate, f.sweep.name, joinInts(f.sweep.counts))
	}
	if f.shardFlags.shard != "" {
		return nil, usagef("--rate with a list (a sweep) does not go with --shard: give each shard one rate")
	}
	return &results.Sweep{Flag: "rate", Rates: rates, LoadOnce: true}, nil
}

// rateBanner says, for the run's banner, what the run's fixed rate is; nil without one.
func rateBanner(p *runner.Pace, sw *results.Sweep, slo *results.SLO) []string {
	if p == nil {
		return nil
	}
	what := fmt.Sprintf("fixed rate: %g per second over all clients, %s arrivals", p.Rate, p.Arrivals)
	if sw != nil && sw.Rates != nil {
		parts := make([]string, len(sw.Rates))
		for i, r := range sw.Rates {
			parts[i] = strconv.FormatFloat(r, 'f', -1, 64)
		}
		what = fmt.Sprintf("rate sweep: --rate %s per second, %s arrivals: each engine loads its data once, then runs the other steps at each rate", strings.Join(parts, ","), p.Arrivals)
	}
	if p.LatencyLimit > 0 {
		what += fmt.Sprintf("; operations later than %v are skipped", p.LatencyLimit)
	}
	lines := []string{what}
	if slo != nil {
		lines = append(lines, fmt.Sprintf("latency goal: %s from the intended start (--slo): capacity is the highest rate that meets it", slo.Text))
	}
	return lines
}
