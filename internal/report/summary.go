package report

import (
	"cmp"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"

	"github.com/rumbench/rumbench/internal/metric"
	"github.com/rumbench/rumbench/internal/results"
)

// maxSummarySteps bounds the rate columns the summary picks by itself for a run recorded
// without Manifest.Summary (workload.MaxSummaryColumns for new runs).
const maxSummarySteps = 8

// SummaryTitle is the title of the summary table.
const SummaryTitle = "summary"

// summaryCol is one column of the summary: the figure of metric m over steps (one step, or
// the tests of a group, or every step of the rate columns for an unscoped headline figure).
type summaryCol struct {
	header string
	m      *metric.Metric
	steps  []string
	// scope is a headline figure's step or group as the workload names it ("": the steps of
	// the rate columns).
	scope string
	// group is set for a rate column over a step group.
	group bool
	// rows are the comparison rows of m, one per step of steps that some series measured.
	rows []Row
}

// SummaryTable is the summary of runs that a person reads in seconds: one row per target (per
// run × target, labelled as Compare labels them, when there are several runs) and one column
// per step, or per step group for a grouped workload (sysbench: the geometric mean over the
// group's tests), holding the step's headline rate; then the efficiency figures the workload
// names as its headline (Manifest.Headline: "NAME", the geometric mean over the steps of the
// rate columns, or "STEP:NAME", the figure of one step or the geometric mean over one group's
// tests). Each column header carries the metric's direction: ↑ higher is better, ↓ lower is
// better.
//
// The base row (base: as for Compare; "" the first target of the first run) holds absolute
// figures, in the unit of the column's metric (the rate's name, "ips", "qps", is its unit);
// every other row holds the ratio to the base (Ratio: 0/0 is 1, x/0 inf), for a group the
// geometric mean of the per-test ratios. A target repeated (--repeat) counts with the median of
// its repetitions, as the tables do; failed repetitions are left out. A figure that was not
// measured prints "-", and a column with no figure at all is left out. With one target the
// table has its absolute figures only.
//
// The rate columns are Manifest.Summary's (step or group names; recorded by rumbench run from
// the workload's choice), or, for runs recorded before it, every group of a grouped run, else
// the first 8 steps. SummaryTable returns nil when runs hold no step or are of different
// workloads, and an error (wrapping ErrUnknownBase) when base names no target.
func SummaryTable(runs []*results.Run, base string) (*Table, error) {
	if len(runs) == 0 || !hasSteps(runs) {
		return nil, nil
	}
	for _, r := range runs[1:] {
		if r.Manifest.Workload != runs[0].Manifest.Workload {
			return nil, nil
		}
	}
	c := &Comparison{}
	c.Series, c.Grouped = collectSeries(runs)
	if len(c.Series) > 1 {
		b, err := c.findBase(base)
		if err != nil {
			return nil, err
		}
		c.Base = b
	}
	rates, all := summaryRates(runs, c)
	if len(rates) == 0 {
		return nil, nil
	}

	headline := summaryHeadline(runs, c, all)
	cols := append(rates, headline...)

	relative := len(c.Series) > 1
	baseLabel := c.Series[c.Base].Label
	t := &Table{Title: SummaryTitle, Note: "↑ higher is better, ↓ lower is better", Columns: []Column{{Name: "target"}}}
	if relative {
		t.Kind = Relative
		t.Note = "relative to " + baseLabel + "; " + t.Note
	}
	for _, col := range cols {
		unit := col.m.Unit
		if col.m.Name == "rate" {
			_, unit = rateNameOf(col.records(c))
		}
		if relative {
			unit = "" // the base row's unit; the other rows are ratios
		}
		t.Columns = append(t.Columns, Column{Name: col.header, Unit: unit, Meaning: col.m.Meaning})
	}
	order := c.columns(true) // the base first
	covered := coveredSteps(all, headline)
	for _, i := range order {
		row := []Cell{TextCell(c.Series[i].Label + statusOf(c.Series[i], all, covered))}
		for _, col := range cols {
			if i == c.Base {
				row = append(row, col.absCell(c.Base))
				continue
			}
			cell := RatioCell(col.ratio(i))
			cell.Better = col.m.Better
			if col.m.Name == "rate" && !cell.Missing && col.withinNoise(c, i) {
				cell.Verdict, cell.Text = "~", cell.Text+" ~"
			}
			row = append(row, cell)
		}
		t.Rows = append(t.Rows, row)
	}
	t.Footer = summaryFooter(c, rates, headline, relative)
	t.Footer = append(t.Footer, summaryBusy(c, order, covered)...)
	t.Footer = append(t.Footer, summaryNoise(t, c, order, all)...)
	t.Footer = append(t.Footer, capacityLines(rateRuns(runs))...)
	return t, nil
}

// statusOf is " (status)" when a record of s in steps did not end ok (its first such status),
// with the busy host mark when other processes took more than metric.BusyHostPct of the
// host's CPUs in one of covered (the steps of every column); "" when all ended ok on a host
// of their own.
func statusOf(s Series, steps, covered []string) string {
	var marks []string
	for _, step := range steps {
		if st := s.steps[step].status(); len(s.steps[step]) > 0 && st != results.StatusOK {
			marks = append(marks, st)
			break
		}
	}
	if len(busySteps(s, covered)) > 0 {
		marks = append(marks, metric.BusyHostMark)
	}
	if len(noisySteps(s, steps)) > 0 {
		marks = append(marks, NoisyMark)
	}
	if len(marks) == 0 {
		return ""
	}
	return " (" + strings.Join(marks, ", ") + ")"
}

// busySteps returns the steps of steps in which a record of s ran on a busy host
// (metric.BusyHost).
func busySteps(s Series, steps []string) []string {
	var out []string
	for _, step := range steps {
		if slices.ContainsFunc(s.steps[step], metric.BusyHost) && !slices.Contains(out, step) {
			out = append(out, step)
		}
	}
	return out
}

// NoisyMark marks a target whose rate moved while a step of the summary ran (cv% above
// NoisyCVPct).
const NoisyMark = "noisy"

// noisySteps returns the steps of steps in which a record of s had a coefficient of variation
// of its rate above NoisyCVPct.
func noisySteps(s Series, steps []string) []string {
	var out []string
	for _, step := range steps {
		if slices.ContainsFunc(s.steps[step], func(r *results.Step) bool { return r.RateSlices > 0 && r.RateCVPct > NoisyCVPct }) &&
			!slices.Contains(out, step) {
			out = append(out, step)
		}
	}
	return out
}

// rateNoise is the noise of series s's rate in step, a fraction of the rate: its records' noise
// (results.Step.RateNoisePct), the mean over repetitions divided by the square root of their
// number; false when a record's noise is not known.
func rateNoise(s Series, step string) (float64, bool) {
	var sum float64
	n := 0
	for _, r := range s.steps[step] {
		if r.Status == results.StatusFailed {
			continue
		}
		if r.RateSlices == 0 {
			return 0, false
		}
		sum += r.RateNoisePct / 100
		n++
	}
	if n == 0 {
		return 0, false
	}
	return sum / float64(n) / math.Sqrt(float64(n)), true
}

// withinNoise says whether series i's rate ratio to the base is within the noise of the two
// rates: |ln ratio| at most the noise of the ratio, √(nᵢ² + n_base²) per step, over a group's
// steps √Σ/K for their geometric mean. False when a step's noise is not known.
func (col *summaryCol) withinNoise(c *Comparison, i int) bool {
	var sum float64
	k := 0
	for _, r := range col.rows {
		if math.IsNaN(r.Rel[i]) {
			continue
		}
		step := r.Name
		ni, ok1 := rateNoise(c.Series[i], step)
		nb, ok2 := rateNoise(c.Series[c.Base], step)
		if !ok1 || !ok2 {
			return false
		}
		sum += ni*ni + nb*nb
		k++
	}
	ratio := col.ratio(i)
	return k > 0 && ratio > 0 && math.Abs(math.Log(ratio)) <= math.Sqrt(sum)/float64(k)
}

// summaryNoise is the footer lines on noise: what ~ means when a cell has it, and the targets
// whose steps were noisy, with those steps.
func summaryNoise(t *Table, c *Comparison, order []int, steps []string) []string {
	var out []string
	for _, row := range t.Rows {
		if slices.ContainsFunc(row, func(cell Cell) bool { return cell.Verdict == "~" }) {
			out = append(out, noiseNote)
			break
		}
	}
	var names []string
	for _, i := range order {
		if noisy := noisySteps(c.Series[i], steps); len(noisy) > 0 {
			names = append(names, c.Series[i].Label+" in "+strings.Join(noisy, ", "))
		}
	}
	if len(names) > 0 {
		out = append(out, fmt.Sprintf("%s: %s: the rate moved by more than %d%% (cv%%) while the step ran: lengthen the step or --repeat it (docs/metrics.md)",
			NoisyMark, strings.Join(names, "; "), NoisyCVPct))
	}
	return out
}

// absCell is series i's absolute figure of the column: the geometric mean of its figures over
// the column's steps (the figure itself for one step).
func (col *summaryCol) absCell(i int) Cell {
	var xs []float64
	for _, r := range col.rows {
		if !math.IsNaN(r.Abs[i]) {
			xs = append(xs, r.Abs[i])
		}
	}
	v := geomean(xs)
	if math.IsNaN(v) {
		return MissingCell()
	}
	return NumCell(v)
}

// ratio is series i's figure relative to the base: the geometric mean of the per-step ratios
// over the steps both measured (NaN when there is none).
func (col *summaryCol) ratio(i int) float64 {
	var xs []float64
	for _, r := range col.rows {
		if !math.IsNaN(r.Rel[i]) {
			xs = append(xs, r.Rel[i])
		}
	}
	return geomean(xs)
}

// measured says whether some series has a figure in the column.
func (col *summaryCol) measured() bool { return len(col.rows) > 0 }

// records are the first record of every series' steps of the column (to name its rate).
func (col *summaryCol) records(c *Comparison) []*results.Step {
	var out []*results.Step
	for _, s := range c.Series {
		for _, step := range col.steps {
			if r := s.steps[step]; len(r) > 0 {
				out = append(out, r[0])
			}
		}
	}
	return out
}

// fill computes the column's rows from the comparison.
func (col *summaryCol) fill(c *Comparison) {
	for _, step := range col.steps {
		if r, ok := c.row(step, step, col.m); ok {
			col.rows = append(col.rows, r)
		}
	}
}

// summaryRates returns the rate columns of the summary, and every step they cover.
func summaryRates(runs []*results.Run, c *Comparison) ([]*summaryCol, []string) {
	groups := map[string]bool{}
	var groupNames []string
	for _, g := range groupsOfRuns(runs) {
		if g.Name != "" {
			groups[g.Name] = true
			groupNames = append(groupNames, g.Name)
		}
	}
	names := runs[0].Manifest.Summary
	if len(names) == 0 {
		if c.Grouped {
			names = groupNames
		} else {
			names = stepOrder(runs, "", true)
			names = names[:min(len(names), maxSummarySteps)]
		}
	}
	steps := stepOrder(runs, "", true)
	rate := metric.MustGet("rate")
	var cols []*summaryCol
	var all []string
	for _, name := range names {
		col := &summaryCol{m: rate}
		switch {
		case groups[name]:
			col.steps, col.group = stepOrder(runs, name, false), true
		case slices.Contains(steps, name):
			col.steps = []string{name}
		default:
			continue // a step that did not run
		}
		col.fill(c)
		if !col.measured() {
			continue
		}
		rateName, _ := rateNameOf(col.records(c))
		col.header = name + " " + rateName + "↑"
		cols = append(cols, col)
		all = append(all, col.steps...)
	}
	return cols, all
}

// summaryHeadline returns the headline efficiency columns of the summary that have a figure;
// all are the steps of the rate columns (the scope of an unscoped figure).
func summaryHeadline(runs []*results.Run, c *Comparison, all []string) []*summaryCol {
	steps := stepOrder(runs, "", true)
	var cols []*summaryCol
	count := map[string]int{}
	for _, spec := range runs[0].Manifest.Headline {
		scope, name := "", spec
		if i := strings.LastIndex(spec, ":"); i >= 0 {
			scope, name = spec[:i], spec[i+1:]
		}
		m, ok := metric.Lookup(name)
		if !ok {
			continue
		}
		col := &summaryCol{m: m, scope: scope}
		switch {
		case scope == "":
			col.steps = all
		case slices.Contains(steps, scope):
			col.steps = []string{scope}
		default:
			col.steps = stepOrder(runs, scope, false) // a group (none when it did not run)
		}
		col.fill(c)
		if !col.measured() {
			continue
		}
		col.header = m.Name
		if m.Latency {
			col.header = m.Header("us")
		}
		count[col.header]++
		col.header += arrow(m.Better)
		cols = append(cols, col)
	}
	// The same figure of two scopes: name each with its scope.
	for _, col := range cols {
		if count[strings.TrimRight(col.header, "↑↓")] > 1 {
			col.header = cmp.Or(col.scope, "all") + ":" + col.header
		}
	}
	return cols
}

// arrow is the direction mark of a column header: ↑ higher is better, ↓ lower is better.
func arrow(b metric.Better) string {
	switch b {
	case metric.Higher:
		return "↑"
	case metric.Lower:
		return "↓"
	}
	return ""
}

// summaryFooter says what the rows and the columns of the summary are.
func summaryFooter(c *Comparison, rates, headline []*summaryCol, relative bool) []string {
	var out []string
	if relative {
		out = append(out, c.Series[c.Base].Label+": absolute figures (the rate's name is its unit); the other rows: ratio to "+c.Series[c.Base].Label)
	}
	var groups []string
	for _, col := range rates {
		if !col.group {
			continue
		}
		name := strings.Fields(col.header)[0]
		groups = append(groups, name)
		var units []string
		for _, s := range col.records(c) {
			if s.RateName != "" && !slices.Contains(units, s.RateName) {
				units = append(units, s.RateName)
			}
		}
		if len(units) > 1 {
			out = append(out, name+": its tests' rates are in different units ("+strings.Join(units, ", ")+"): the base's figure mixes them")
		}
	}
	switch {
	case len(groups) > 0 && relative:
		out = append(out, strings.Join(groups, ", ")+": geometric mean over the group's tests (of the figures in the base row, of the ratios in the others)")
	case len(groups) > 0:
		out = append(out, strings.Join(groups, ", ")+": geometric mean over the group's tests")
	}
	// The headline figures, by scope.
	var scopes []string
	by := map[string][]string{}
	for _, col := range headline {
		name := strings.TrimRight(col.header, "↑↓")
		if i := strings.LastIndex(name, ":"); i >= 0 {
			name = name[i+1:]
		}
		var scope string
		switch {
		case col.scope == "" && len(groups) > 0:
			scope = "geometric mean over the tests"
		case col.scope == "":
			scope = "geometric mean over the steps of the rate columns"
		case len(col.steps) == 1 && col.steps[0] == col.scope:
			scope = "of " + col.scope
		default:
			scope = "geometric mean over the " + col.scope + " tests"
		}
		if _, ok := by[scope]; !ok {
			scopes = append(scopes, scope)
		}
		by[scope] = append(by[scope], name)
	}
	for _, s := range scopes {
		out = append(out, strings.Join(by[s], ", ")+": "+s)
	}
	if c.repeated() {
		out = append(out, "repeated targets: the median of the repetitions")
	}
	return out
}

// coveredSteps is the steps of the summary's columns: those of the rate columns, then the
// headline figures' others.
func coveredSteps(rates []string, headline []*summaryCol) []string {
	steps := slices.Clone(rates)
	for _, col := range headline {
		for _, step := range col.steps {
			if !slices.Contains(steps, step) {
				steps = append(steps, step)
			}
		}
	}
	return steps
}

// summaryBusy is the footer line that names the series whose steps (of the summary's columns)
// ran on a busy host, with those steps; none when no step did.
func summaryBusy(c *Comparison, order []int, steps []string) []string {
	var every, names []string
	for _, i := range order {
		switch busy := busySteps(c.Series[i], steps); {
		case len(busy) > 1 && len(busy) == len(steps):
			every = append(every, c.Series[i].Label)
		case len(busy) > 0:
			names = append(names, c.Series[i].Label+" in "+strings.Join(busy, ", "))
		}
	}
	if len(every) > 0 {
		names = append([]string{strings.Join(every, ", ") + " in every step"}, names...)
	}
	if len(names) == 0 {
		return nil
	}
	return []string{fmt.Sprintf("%s: %s: other processes took more than %g%% of the host's CPUs (other%%): the rates shared the CPUs with them; tcpu_us/op leaves their CPU out",
		metric.BusyHostMark, strings.Join(names, "; "), metric.BusyHostPct)}
}

// geomean is the geometric mean of xs: NaN for none, 0 when one is 0, +Inf when one is +Inf
// (NaN when both happen).
func geomean(xs []float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	zero, inf, sum := false, false, 0.0
	for _, x := range xs {
		switch {
		case x == 0:
			zero = true
		case math.IsInf(x, 1):
			inf = true
		case x < 0 || math.IsNaN(x):
			return math.NaN()
		default:
			sum += math.Log(x)
		}
	}
	switch {
	case zero && inf:
		return math.NaN()
	case zero:
		return 0
	case inf:
		return math.Inf(1)
	case len(xs) == 1:
		return xs[0] // exactly
	}
	return math.Exp(sum / float64(len(xs)))
}

// WriteSummary writes the summary of runs (SummaryTable, relative to the first target) as
// aligned text followed by an empty line; nothing when there is no summary.
func WriteSummary(w io.Writer, runs []*results.Run) error {
	t, err := SummaryTable(runs, "")
	if err != nil || t == nil {
		return err
	}
	if err := WriteText(w, t); err != nil {
		return err
	}
	_, err = fmt.Fprintln(w)
	return err
}
