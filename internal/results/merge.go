package results

import (
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/rumbench/rumbench/internal/hist"
)

// Merge combines the runs of the shards of one split run (rumbench run --shard) into one run,
// as if one client had run all the shards' clients:
//
//   - operation counts, units and retries are summed; a step's measured time is the longest of
//     the shards' (they start together), its rate is the summed operations over that time;
//   - response times: each kind's histogram buckets are added exactly and the percentiles are
//     read from the merged histogram (never averaged); the mean is weighted by counts, the
//     maximum is the largest;
//   - intervals are aligned by their tick (shards that met at barriers start each step at the
//     same wall-clock second) and their rates summed;
//   - process figures (client CPU per op, client RSS) are summed over shards; host-wide
//     figures (host CPU, storage I/O, data directory size) are counted once per host (the
//     largest of the shards that ran on it) and summed over hosts; figures of the shared server
//     (its counters, log bytes and fsyncs, its database size) are the largest shard's view of
//     them, divided by the summed operations;
//   - each step keeps every shard's own figures in Shards.
//
// runs must be the shards of one group, in any order, each shard once; the manifest returned is
// the first shard's with the merge recorded (Merged) and its run id set to runID. It returns
// an error naming what does not fit (a run that is not a shard, two groups, a shard missing or
// repeated, different workloads).
func Merge(runs []*Run, runID string) (*Manifest, []Step, []Interval, error) {
	if len(runs) == 0 {
		return nil, nil, nil, errors.New("no runs to merge")
	}
	runs = slices.Clone(runs)
	for _, r := range runs {
		if r.Manifest.Shard == nil {
			return nil, nil, nil, fmt.Errorf("run %s is not a shard of a split run (it was not run with --shard)", r.Manifest.RunID)
		}
		if err := r.Manifest.Shard.Validate(); err != nil {
			return nil, nil, nil, fmt.Errorf("run %s: %v", r.Manifest.RunID, err)
		}
	}
	sort.Slice(runs, func(i, j int) bool { return runs[i].Manifest.Shard.Index < runs[j].Manifest.Shard.Index })
	first := runs[0].Manifest
	seen := map[int]string{}
	for _, r := range runs {
		m := r.Manifest
		switch {
		case m.Shard.Group != first.Shard.Group:
			return nil, nil, nil, fmt.Errorf("runs %s and %s belong to different groups (%s, %s)", first.RunID, m.RunID, first.Shard.Group, m.Shard.Group)
		case m.Shard.Count != first.Shard.Count:
			return nil, nil, nil, fmt.Errorf("runs %s and %s disagree on the number of shards (%d, %d)", first.RunID, m.RunID, first.Shard.Count, m.Shard.Count)
		case m.Workload != first.Workload:
			return nil, nil, nil, fmt.Errorf("runs %s and %s ran different workloads (%s, %s)", first.RunID, m.RunID, first.Workload, m.Workload)
		case seen[m.Shard.Index] != "":
			return nil, nil, nil, fmt.Errorf("runs %s and %s are both shard %d of group %s", seen[m.Shard.Index], m.RunID, m.Shard.Index, m.Shard.Group)
		}
		seen[m.Shard.Index] = m.RunID
	}
	if len(runs) != first.Shard.Count {
		// Each index is below the count and none is repeated: fewer runs than shards.
		var missing []string
		for i := 0; i < first.Shard.Count && len(missing) < maxNamed; i++ {
			if seen[i] == "" {
				missing = append(missing, strconv.Itoa(i))
			}
		}
		if n := first.Shard.Count - len(runs); n > len(missing) {
			missing = append(missing, fmt.Sprintf("... (%d in all)", n))
		}
		return nil, nil, nil, fmt.Errorf("group %s has %d shards, %d runs given: shard %s missing", first.Shard.Group, first.Shard.Count, len(runs), strings.Join(missing, ", "))
	}
	m := mergeManifest(runs, runID)
	steps, ivs := mergeSteps(runs), mergeIntervals(runs)
	rateTail(steps, ivs)
	return m, steps, ivs, nil
}

// maxNamed bounds the missing shards an error names.
const maxNamed = 10

// rateTail sets each merged step's per-second rate percentiles from the merged intervals after
// its warm-up that are at least half a tick long (as the runner does for one run).
func rateTail(steps []Step, ivs []Interval) {
	for i := range steps {
		s := &steps[i]
		var rates []float64
		for _, iv := range ivs {
			if iv.Target == s.Target && iv.Rep == s.Rep && iv.Step == s.Step && iv.T > s.WarmupSec+1e-9 && iv.Secs >= 0.5 {
				rates = append(rates, iv.Rate)
			}
		}
		s.RateIntervals = len(rates)
		s.RateP50, s.RateP99 = RatePercentile(rates, 0.50), RatePercentile(rates, 0.99)
	}
}

// RatePercentile returns the per-interval rate that a fraction p of the intervals met or
// exceeded: the rates sorted in descending order, the value at rank round(p·n), as the insert
// benchmark's reports compute it (a step's rate_p50_per_sec, rate_p99_per_sec); 0 without rates.
func RatePercentile(rates []float64, p float64) float64 {
	if len(rates) == 0 {
		return 0
	}
	s := slices.Clone(rates)
	sort.Sort(sort.Reverse(sort.Float64Slice(s)))
	i := min(max(int(p*float64(len(s))+0.5), 1), len(s))
	return s[i-1]
}

// mergeManifest is the merged run's manifest: the first shard's, with the group's start, end,
// status, checks and notes.
func mergeManifest(runs []*Run, runID string) *Manifest {
	m := *runs[0].Manifest
	m.RunID, m.Shard, m.PID = runID, nil, 0
	m.Config = maps.Clone(m.Config)
	if m.Config == nil {
		m.Config = map[string]any{}
	}
	m.Config["shards"] = len(runs)
	m.WorkloadConfig = maps.Clone(m.WorkloadConfig)
	if m.WorkloadConfig != nil {
		delete(m.WorkloadConfig, "shard")
	}
	m.Targets = slices.Clone(m.Targets)
	m.Merged = &MergeInfo{Group: runs[0].Manifest.Shard.Group}
	m.Status, m.Error = StatusOK, ""
	var notes []string
	for _, r := range runs {
		s := r.Manifest
		m.Merged.Runs = append(m.Merged.Runs, MergedRun{RunID: s.RunID, Shard: s.Shard.Index, Hostname: s.Hostname, Status: s.Status})
		if s.Start.Before(m.Start) {
			m.Start = s.Start
		}
		if s.End.After(m.End) {
			m.End = s.End
		}
		if s.Status != StatusOK && m.Status == StatusOK {
			m.Status = s.Status
		}
		if s.Error != "" {
			m.Error = joinText(m.Error, fmt.Sprintf("shard %d: %s", s.Shard.Index, s.Error))
		}
		for _, n := range s.Notes {
			if !slices.Contains(notes, n) {
				notes = append(notes, n)
			}
		}
		m.Private = m.Private || s.Private
	}
	for i := range m.Targets {
		var checks []string
		for _, r := range runs {
			if i < len(r.Manifest.Targets) && r.Manifest.Targets[i].Check != "" {
				checks = append(checks, fmt.Sprintf("shard %d: %s", r.Manifest.Shard.Index, r.Manifest.Targets[i].Check))
			}
		}
		m.Targets[i].Check = strings.Join(checks, "; ")
	}
	m.Notes = append(notes, fmt.Sprintf("merged from the %d shards of group %s: operations summed, response-time histograms merged bucket by bucket, client process figures summed, host-wide figures counted once per host, the shared server's figures from the shard that saw most of them", len(runs), m.Merged.Group))
	return &m
}

func joinText(a, b string) string {
	if a == "" {
		return b
	}
	return a + "; " + b
}

// stepKey identifies a step record within a run.
type stepKey struct {
	target string
	rep    int
	step   string
}

// mergeSteps merges the step records of the shards, in the first order they appear.
func mergeSteps(runs []*Run) []Step {
	var keys []stepKey
	parts := map[stepKey][]shardOf[Step]{}
	for _, r := range runs {
		for _, s := range r.Steps {
			k := stepKey{s.Target, s.Rep, s.Step}
			if _, ok := parts[k]; !ok {
				keys = append(keys, k)
			}
			parts[k] = append(parts[k], shardOf[Step]{r.Manifest, s})
		}
	}
	out := make([]Step, 0, len(keys))
	for _, k := range keys {
		out = append(out, mergeStep(parts[k], len(runs)))
	}
	return out
}

// shardOf is a record v of the shard whose manifest is m.
type shardOf[T any] struct {
	m *Manifest
	v T
}

// perHost returns, for each host, the index in ps of the shard that did the most operations on it
// (host-wide counters are system-wide: the shards of one host all saw the same ones).
func perHost[T any](ps []shardOf[T], ops func(T) float64) []int {
	best := map[string]int{}
	var order []string
	for i, p := range ps {
		h := p.m.Hostname
		j, ok := best[h]
		if !ok {
			order = append(order, h)
			best[h] = i
			continue
		}
		if ops(p.v) > ops(ps[j].v) {
			best[h] = i
		}
	}
	out := make([]int, len(order))
	for i, h := range order {
		out[i] = best[h]
	}
	return out
}

// mergeStep merges one step's records of the shards (ps, one per shard that has it, of shards
// in all) into one record, as Merge describes.
func mergeStep(ps []shardOf[Step], shards int) Step {
	sm := &stepMerge{m: ps[0].v, ps: ps}
	sm.begin()
	for i, p := range ps {
		sm.add(i, p)
	}
	sm.missing(shards)
	sm.rates()
	sm.clientFigures()
	sm.hostFigures()
	sm.serverFigures()
	sm.m.Latency = mergeLatency(ps)
	sm.m.Schedule = mergeSchedule(ps, sm.m.Secs)
	return sm.m
}

// mergeSchedule merges the shards' fixed rates (each ran its part of the run's --rate): the
// rates and counts add up over the merged time secs, the mean lag is weighted by the operations
// each shard started, the largest lag is the largest; nil when no shard had one.
func mergeSchedule(ps []shardOf[Step], secs float64) *Schedule {
	var out *Schedule
	var offered, achieved, lagMs float64
	for _, p := range ps {
		x := p.v.Schedule
		if x == nil {
			continue
		}
		if out == nil {
			out = &Schedule{Arrivals: x.Arrivals, LatencyLimitMs: x.LatencyLimitMs}
		}
		started := x.Achieved * p.v.Secs
		out.Rate += x.Rate
		offered += x.Offered * p.v.Secs
		achieved += started
		lagMs += x.LagMeanMs * started
		out.LagMaxSecs = max(out.LagMaxSecs, x.LagMaxSecs)
		out.Backlog += x.Backlog
		out.Skipped += x.Skipped
	}
	if out == nil {
		return nil
	}
	if secs > 0 {
		out.Offered, out.Achieved = offered/secs, achieved/secs
	}
	if achieved > 0 {
		out.LagMeanMs = lagMs / achieved
	}
	out.Met = out.Achieved >= 0.99*out.Offered
	return out
}

// stepMerge is one step's merge over the shards: the merged record as it is built, and the
// shards' sums its figures are made of.
type stepMerge struct {
	// m is the merged record: the first shard's, then each figure merged in turn.
	m  Step
	ps []shardOf[Step]
	// The shards' sums: operations; writeUnits, rows written (ips × secs: the per-insert
	// denominator); calls; ips, dps and qps, the role rates × secs; retries; the workload's
	// rows; the headline rates.
	ops, writeUnits, calls, ips, dps, qps, retries, rows, rate float64
	// custom counts the shards whose rate is not their operations over their time: a rate the
	// workload defines otherwise.
	custom int
}

// begin clears what the merged record gathers from every shard (kinds are copied, not shared),
// and gathers the shards' remarks.
func (sm *stepMerge) begin() {
	m := &sm.m
	m.Kinds = slices.Clone(m.Kinds)
	m.Degraded, m.Error, m.Syscalls, m.Memory = nil, "", nil, nil
	// Other processes' CPU is each host's over its own window: not added up (a merged run's
	// shards share a --dsn server, where it is not measured anyway).
	m.OtherCPUPct = nil
	// A workload's remarks are each shard's own findings on its part: kept, said per shard.
	m.Remarks = nil
	for _, p := range sm.ps {
		for _, r := range p.v.Remarks {
			shard := "?"
			if p.m != nil && p.m.Shard != nil {
				shard = fmt.Sprint(p.m.Shard.Index)
			}
			m.Remarks = append(m.Remarks, "shard "+shard+": "+r)
		}
	}
}

// add adds shard p, the i-th of ps, to the sums, the kinds, the window and the status.
func (sm *stepMerge) add(i int, p shardOf[Step]) {
	s := p.v
	if i > 0 {
		sm.addKinds(s)
		sm.widen(s)
	}
	sm.ops += float64(s.Ops)
	sm.writeUnits += s.IPS * s.Secs
	sm.calls += s.CallsPerSec * s.Secs
	sm.ips, sm.dps, sm.qps = sm.ips+s.IPS*s.Secs, sm.dps+s.DPS*s.Secs, sm.qps+s.QPS*s.Secs
	sm.retries += float64(s.Retries)
	sm.rows += float64(s.Rows)
	sm.rate += s.Rate
	if s.Secs > 0 && math.Abs(s.Rate-float64(s.Ops)/s.Secs) > 1e-6*max(s.Rate, 1) {
		sm.custom++
	}
	sm.addStatus(i, p)
}

// addKinds adds a later shard's per-kind counts and maxima to the merged kinds.
func (sm *stepMerge) addKinds(s Step) {
	m := &sm.m
	for j := range m.Kinds {
		if k := s.Kind(m.Kinds[j].Name); k != nil {
			m.Kinds[j].Ops += k.Ops
			m.Kinds[j].Units += k.Units
			m.Kinds[j].MaxUs = max(m.Kinds[j].MaxUs, k.MaxUs)
		}
	}
}

// widen widens the merged step's window, time, settling and target to a later shard's.
func (sm *stepMerge) widen(s Step) {
	m := &sm.m
	if s.Start.Before(m.Start) {
		m.Start = s.Start
	}
	if s.End.After(m.End) {
		m.End = s.End
	}
	m.Secs = max(m.Secs, s.Secs)
	m.SettleSecs = max(m.SettleSecs, s.SettleSecs)
	if m.Settled == "" {
		m.Settled = s.Settled
	}
	if s.DebtBytes != nil && (m.DebtBytes == nil || *s.DebtBytes > *m.DebtBytes) {
		d := *s.DebtBytes
		m.DebtBytes = &d
	}
	m.TargetIPS += s.TargetIPS
}

// addStatus merges shard p's status, error and degradations (said per shard) and records its
// own figures in Shards.
func (sm *stepMerge) addStatus(i int, p shardOf[Step]) {
	m, s := &sm.m, p.v
	if s.Status != StatusOK && (m.Status == StatusOK || i == 0) {
		m.Status = s.Status
	}
	idx := p.m.Shard.Index
	if s.Error != "" {
		m.Error = joinText(m.Error, fmt.Sprintf("shard %d: %s", idx, s.Error))
	}
	for _, d := range s.Degraded {
		m.Degraded = append(m.Degraded, fmt.Sprintf("shard %d: %s", idx, d))
	}
	m.Shards = append(m.Shards, ShardStep{Shard: idx, RunID: p.m.RunID, Hostname: p.m.Hostname, Status: s.Status,
		Ops: s.Ops, Secs: s.Secs, Rate: s.Rate, HostCPUPct: s.HostCPUPct, HostCPUUsPerOp: s.HostCPUUsPerOp,
		ClientCPUUsPerOp: s.ClientCPUUsPerOp, ClientRSSMB: s.ClientRSSMB, ClientMaxRSSMB: s.ClientMaxRSSMB,
		GBRead: s.GBRead, GBWritten: s.GBWritten, WriteKBPerOp: s.WriteKBPerOp, P99Us: p99(s)})
}

// missing degrades the merged step when fewer than shards shards have a record of it.
func (sm *stepMerge) missing(shards int) {
	m := &sm.m
	if len(sm.ps) < shards {
		m.Degraded = append(m.Degraded, fmt.Sprintf("%d of %d shards have no record of this step", shards-len(sm.ps), shards))
		if m.Status == StatusOK {
			m.Status = StatusDegraded
		}
	}
}

// perOp is total per merged operation (0 without operations).
func (sm *stepMerge) perOp(total float64) float64 {
	if sm.ops == 0 {
		return 0
	}
	return total / sm.ops
}

// rates sets the merged counts and rates: the summed operations over the longest shard's time,
// or the summed rates for a rate the workload defines otherwise, and whether a paced step met
// its summed target.
func (sm *stepMerge) rates() {
	m := &sm.m
	m.Ops, m.Retries, m.Rows = int64(sm.ops), int64(sm.retries), int64(sm.rows)
	if m.Secs > 0 {
		m.Rate, m.CallsPerSec = sm.ops/m.Secs, sm.calls/m.Secs
		m.IPS, m.DPS, m.QPS = sm.ips/m.Secs, sm.dps/m.Secs, sm.qps/m.Secs
	}
	if sm.custom > 0 {
		m.Rate = sm.rate // a rate the workload defines otherwise: the shards' rates add up
	}
	if m.TargetIPS > 0 {
		met := m.IPS >= 0.95*m.TargetIPS
		m.TargetMet = &met
	}
}

// clientFigures sets the client process figures: summed over the shards.
func (sm *stepMerge) clientFigures() {
	var clientCPU, processCPU, rss, maxRSS, obsPct, obsTick float64
	for _, p := range sm.ps {
		s, n := p.v, float64(p.v.Ops)
		clientCPU += s.ClientCPUUsPerOp * n
		processCPU += s.ProcessCPUUsPerOp * n
		rss += s.ClientRSSMB
		maxRSS += s.ClientMaxRSSMB
		obsPct += s.ObserverCPUPct
		obsTick += s.ObserverUsPerTick / float64(len(sm.ps))
	}
	m := &sm.m
	m.ClientCPUUsPerOp, m.ProcessCPUUsPerOp = sm.perOp(clientCPU), sm.perOp(processCPU)
	m.ClientRSSMB, m.ClientMaxRSSMB, m.ObserverCPUPct, m.ObserverUsPerTick = rss, maxRSS, obsPct, obsTick
}

// hostFigures sets the host-wide figures (host CPU, storage I/O, sizes on disk): once per host,
// from the shard that did the most operations on it, summed over hosts.
func (sm *stepMerge) hostFigures() {
	m, ps := &sm.m, sm.ps
	var hostCPUPct, hostCPU, reads, readKB, writes, writeKB, discardKB, flushes, cs float64
	var readMB, writeMB, discardMB, gbRead, gbWritten float64
	var dbBytes, dbApparent, logBytesOnDisk int64
	m.Device = ""
	for _, i := range perHost(ps, func(s Step) float64 { return float64(s.Ops) }) {
		s, n := ps[i].v, float64(ps[i].v.Ops)
		hostCPUPct += s.HostCPUPct
		hostCPU += s.HostCPUUsPerOp * n
		reads += s.ReadsPerOp * n
		readKB += s.ReadKBPerOp * n
		writes += s.WritesPerInsert * s.IPS * s.Secs
		writeKB += s.WriteKBPerOp * n
		discardKB += s.DiscardKBPerOp * n
		flushes += s.FlushesPerOp * n
		cs += s.CSPerOp * n
		readMB, writeMB, discardMB = readMB+s.ReadMBPerSec, writeMB+s.WriteMBPerSec, discardMB+s.DiscardMBPerSec
		gbRead, gbWritten = gbRead+s.GBRead, gbWritten+s.GBWritten
		dbBytes, dbApparent, logBytesOnDisk = dbBytes+s.DBBytes, dbApparent+s.DBApparentBytes, logBytesOnDisk+s.LogBytes
		if s.Device != "" && !strings.Contains(m.Device, s.Device) {
			m.Device = strings.TrimPrefix(m.Device+","+s.Device, ",")
		}
	}
	per := sm.perOp
	m.HostCPUPct, m.HostCPUUsPerOp = hostCPUPct, per(hostCPU)
	m.ReadsPerOp, m.ReadKBPerOp, m.WriteKBPerOp, m.DiscardKBPerOp, m.FlushesPerOp, m.CSPerOp = per(reads), per(readKB), per(writeKB), per(discardKB), per(flushes), per(cs)
	m.WritesPerInsert, m.WriteKBPerInsert = 0, 0
	if sm.writeUnits > 0 {
		m.WritesPerInsert, m.WriteKBPerInsert = writes/sm.writeUnits, writeKB/sm.writeUnits
	}
	m.ReadMBPerSec, m.WriteMBPerSec, m.DiscardMBPerSec, m.GBRead, m.GBWritten = readMB, writeMB, discardMB, gbRead, gbWritten
	m.DBBytes, m.DBApparentBytes, m.LogBytes = dbBytes, dbApparent, logBytesOnDisk
	m.BytesPerRow = 0
	if m.Rows > 0 {
		m.BytesPerRow = float64(m.DBBytes) / float64(m.Rows)
	}
}

// serverFigures sets the shared server's figures: the largest view any shard had of it, per
// merged operation.
func (sm *stepMerge) serverFigures() {
	m := &sm.m
	var serverCPU, logBytes, fsyncs float64
	for i, p := range sm.ps {
		s, n := p.v, float64(p.v.Ops)
		serverCPU = max(serverCPU, s.ServerCPUUsPerOp*n)
		logBytes = max(logBytes, s.LogBytesPerOp*n)
		fsyncs = max(fsyncs, s.ServerFsyncsPerOp*n)
		m.ServerRSSMB, m.ServerPSSMB = max(m.ServerRSSMB, s.ServerRSSMB), max(m.ServerPSSMB, s.ServerPSSMB)
		m.EngineDBBytes = max(m.EngineDBBytes, s.EngineDBBytes)
		m.ServerCounters = maxCounters(m.ServerCounters, s.ServerCounters, i == 0)
		m.EngineCounters = maxCounters(m.EngineCounters, s.EngineCounters, i == 0)
	}
	m.ServerCPUUsPerOp = sm.perOp(serverCPU)
	if m.LogBytesPerOp >= 0 {
		m.LogBytesPerOp = sm.perOp(logBytes)
	}
	if m.ServerFsyncsPerOp >= 0 {
		m.ServerFsyncsPerOp = sm.perOp(fsyncs)
	}
}

// maxCounters returns the largest value of each counter of acc and c (acc is copied first when
// fresh).
func maxCounters(acc, c map[string]int64, fresh bool) map[string]int64 {
	if fresh {
		acc = maps.Clone(acc)
	}
	for k, v := range c {
		if acc == nil {
			acc = map[string]int64{}
		}
		acc[k] = max(acc[k], v)
	}
	return acc
}

// p99 is a step's p99 over the kinds its rate counts (the first such kind with a histogram).
func p99(s Step) float64 {
	for _, l := range s.Latency {
		if slices.Contains(s.RateKinds, l.Kind) {
			return l.P99Us
		}
	}
	return 0
}

// mergeLatency merges each kind's histogram over the shards, in the order the kinds first
// appear.
func mergeLatency(ps []shardOf[Step]) []Latency {
	var kinds []string
	for _, p := range ps {
		for _, l := range p.v.Latency {
			if !slices.Contains(kinds, l.Kind) {
				kinds = append(kinds, l.Kind)
			}
		}
	}
	out := make([]Latency, 0, len(kinds))
	for _, k := range kinds {
		var ls []Latency
		for _, p := range ps {
			for _, l := range p.v.Latency {
				if l.Kind == k {
					ls = append(ls, l)
				}
			}
		}
		out = append(out, MergeLatency(ls))
	}
	return out
}

// MergeLatency merges latency records of one kind: their buckets added exactly, the percentiles
// read from the merged histogram, the mean weighted by counts, the largest maximum. A record
// without buckets (a run recorded before buckets were kept) contributes its count and maximum
// only; its percentiles cannot be merged and the merged ones then cover the others.
func MergeLatency(ls []Latency) Latency {
	var s hist.Snapshot
	out := Latency{Kind: ls[0].Kind}
	var sum float64
	var extra []string
	for _, l := range ls {
		s.AddBuckets(l.Buckets)
		out.Count += l.Count
		sum += l.MeanUs * float64(l.Count)
		out.MaxUs = max(out.MaxUs, l.MaxUs)
		for name := range l.Percentiles {
			if !slices.Contains(extra, name) {
				extra = append(extra, name)
			}
		}
	}
	s.Max = int64(math.Round(out.MaxUs * 1e3))
	if out.Count > 0 {
		out.MeanUs = sum / float64(out.Count)
	}
	us := func(q float64) float64 { return float64(s.Quantile(q)) / 1e3 }
	out.P50Us, out.P90Us, out.P95Us, out.P99Us, out.P999Us = us(0.50), us(0.90), us(0.95), us(0.99), us(0.999)
	sort.Strings(extra)
	for _, name := range extra {
		p, err := strconv.ParseFloat(strings.TrimPrefix(name, "p"), 64)
		if err != nil {
			continue
		}
		if out.Percentiles == nil {
			out.Percentiles = map[string]float64{}
		}
		out.Percentiles[name] = us(p / 100)
	}
	out.Buckets = s.Buckets(nil)
	return out
}

// ivKey identifies an interval: its step record and its tick (the whole second since the step
// start at which it ended).
type ivKey struct {
	stepKey
	tick int64
}

// mergeIntervals sums the shards' intervals tick by tick.
func mergeIntervals(runs []*Run) []Interval {
	var keys []ivKey
	parts := map[ivKey][]shardOf[Interval]{}
	for _, r := range runs {
		for _, iv := range r.Intervals {
			k := ivKey{stepKey{iv.Target, iv.Rep, iv.Step}, int64(math.Round(iv.T))}
			if _, ok := parts[k]; !ok {
				keys = append(keys, k)
			}
			parts[k] = append(parts[k], shardOf[Interval]{r.Manifest, iv})
		}
	}
	out := make([]Interval, 0, len(keys))
	for _, k := range keys {
		ps := parts[k]
		m := ps[0].v
		m.Kinds = slices.Clone(m.Kinds)
		m.ClientCPUPct, m.ObserverCPUPct, m.ClientRSSMB = 0, 0, 0
		m.Rate, m.IPS, m.DPS, m.QPS = 0, 0, 0, 0
		for i, p := range ps {
			iv := p.v
			m.Secs = max(m.Secs, iv.Secs)
			m.Rate, m.IPS, m.DPS, m.QPS = m.Rate+iv.Rate, m.IPS+iv.IPS, m.DPS+iv.DPS, m.QPS+iv.QPS
			m.ClientCPUPct, m.ObserverCPUPct, m.ClientRSSMB = m.ClientCPUPct+iv.ClientCPUPct, m.ObserverCPUPct+iv.ObserverCPUPct, m.ClientRSSMB+iv.ClientRSSMB
			m.ServerCPUPct, m.ServerRSSMB, m.ServerPSSMB = max(m.ServerCPUPct, iv.ServerCPUPct), max(m.ServerRSSMB, iv.ServerRSSMB), max(m.ServerPSSMB, iv.ServerPSSMB)
			if i == 0 {
				continue
			}
			for j := range m.Kinds {
				if kd := iv.Kind(m.Kinds[j].Name); kd != nil {
					m.Kinds[j].Ops += kd.Ops
					m.Kinds[j].Units += kd.Units
					m.Kinds[j].MaxUs = max(m.Kinds[j].MaxUs, kd.MaxUs)
				}
			}
		}
		m.HostCPUPct, m.ReadMBPerSec, m.WriteMBPerSec, m.DiscardMBPerSec, m.DBBytes, m.LogBytes = 0, 0, 0, 0, 0, 0
		for _, i := range perHost(ps, func(iv Interval) float64 { return iv.Rate }) {
			iv := ps[i].v
			m.HostCPUPct += iv.HostCPUPct
			m.ReadMBPerSec, m.WriteMBPerSec, m.DiscardMBPerSec = m.ReadMBPerSec+iv.ReadMBPerSec, m.WriteMBPerSec+iv.WriteMBPerSec, m.DiscardMBPerSec+iv.DiscardMBPerSec
			m.DBBytes += iv.DBBytes
			m.LogBytes += iv.LogBytes
		}
		out = append(out, m)
	}
	return out
}
