// Package ycsbconf reads YCSB property files (the -P files and -p overrides
// of the YCSB client) and turns them into a typed Config for the core
// workload.
//
// Property names and defaults follow YCSB's site.ycsb.workloads.CoreWorkload
// and site.ycsb.Client, so the six workload files YCSB ships (workloada ..
// workloadf, embedded in this package and returned by Letter) load unchanged.
//
// Build sorts the property names it finds into three groups:
//
//   - properties that shape the workload or the run (the fields of Config,
//     including measurementtype, which is recorded for the report);
//   - known YCSB client, measurement and export settings that have no effect
//     in this benchmark (for example histogram.buckets, status.interval,
//     exporter, dotransactions and the
//     core_workload_insertion_* retry settings): they are accepted and listed
//     in Config.Ignored;
//   - everything else, returned as the unknown list so the caller can warn.
package ycsbconf

import (
	"bufio"
	"bytes"
	"embed"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"sort"
	"strconv"
	"strings"

	"github.com/rumbench/rumbench/internal/input"
	"github.com/rumbench/rumbench/internal/table"
)

// Props holds YCSB properties, name to value, as read from property files
// and -p overrides. Later assignments of a name replace earlier ones.
type Props map[string]string

//go:embed workloads/workload*
var shipped embed.FS

// ReadFile reads the Java properties file at path. See Parse for the syntax.
func ReadFile(path string) (Props, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return Parse(f, path)
}

// Parse reads properties in java.util.Properties syntax from r: one
// property per logical line as "key=value", "key: value" or "key value"
// (whitespace around the separator is dropped), lines whose first
// non-blank character is '#' or '!' are comments, blank lines are skipped,
// a line ending in an odd number of backslashes continues on the next line
// (whose leading whitespace is dropped), and the escapes \t \n \r \f \uXXXX
// and \<char> are decoded. Lines may end in "\n", "\r\n" or "\r". name is
// used in error messages, which give the name and the line number.
func Parse(r io.Reader, name string) (Props, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", name, err)
	}
	data = bytes.ReplaceAll(data, []byte("\r\n"), []byte("\n"))
	data = bytes.ReplaceAll(data, []byte("\r"), []byte("\n"))
	p := Props{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 64*1024), len(data)+1)
	lineNo := 0
	for sc.Scan() {
		lineNo++
		start := lineNo
		line := strings.TrimLeft(sc.Text(), " \t\f")
		if line == "" || line[0] == '#' || line[0] == '!' {
			continue
		}
		for continues(line) {
			line = line[:len(line)-1]
			if !sc.Scan() {
				break
			}
			lineNo++
			line += strings.TrimLeft(sc.Text(), " \t\f")
		}
		key, value, err := splitLine(line)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %v", name, start, err)
		}
		p[key] = value
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %v", name, err)
	}
	return p, nil
}

// continues reports whether line ends in an odd number of backslashes.
func continues(line string) bool {
	n := 0
	for i := len(line) - 1; i >= 0 && line[i] == '\\'; i-- {
		n++
	}
	return n%2 == 1
}

// splitLine splits a logical line (leading whitespace already dropped) into
// its unescaped key and value.
func splitLine(line string) (string, string, error) {
	end := len(line)
	for i := 0; i < len(line); i++ {
		c := line[i]
		if c == '\\' {
			i++
			continue
		}
		if c == '=' || c == ':' || c == ' ' || c == '\t' || c == '\f' {
			end = i
			break
		}
	}
	rest := strings.TrimLeft(line[end:], " \t\f")
	if rest != "" && (rest[0] == '=' || rest[0] == ':') {
		rest = strings.TrimLeft(rest[1:], " \t\f")
	}
	key, err := unescape(line[:end])
	if err != nil {
		return "", "", err
	}
	value, err := unescape(rest)
	if err != nil {
		return "", "", err
	}
	return key, value, nil
}

// unescape decodes the backslash escapes of java.util.Properties.
func unescape(s string) (string, error) {
	if !strings.Contains(s, `\`) {
		return s, nil
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' || i+1 == len(s) {
			b.WriteByte(c)
			continue
		}
		i++
		switch s[i] {
		case 't':
			b.WriteByte('\t')
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 'f':
			b.WriteByte('\f')
		case 'u':
			if i+5 > len(s) {
				return "", fmt.Errorf("malformed \\u escape in %q (want \\uXXXX, 4 hex digits)", input.Short(s))
			}
			v, err := strconv.ParseUint(s[i+1:i+5], 16, 16)
			if err != nil {
				return "", fmt.Errorf("malformed \\u escape in %q (want \\uXXXX, 4 hex digits)", input.Short(s))
			}
			b.WriteRune(rune(v))
			i += 4
		default:
			b.WriteByte(s[i])
		}
	}
	return b.String(), nil
}

// Set applies one -p override of the form "key=value" (key and value
// trimmed of surrounding whitespace; the value may be empty and may itself
// contain '='), replacing any earlier value of key.
func (p Props) Set(kv string) error {
	k, v, ok := strings.Cut(kv, "=")
	k = strings.TrimSpace(k)
	if !ok || k == "" {
		return fmt.Errorf("property override %q: want key=value", input.Short(kv))
	}
	p[k] = strings.TrimSpace(v)
	return nil
}

// Letters lists the shipped workloads Letter accepts.
const Letters = "a, b, c, d, e, f"

// Letter returns the properties of YCSB's shipped workload file for the
// shorthand l ("a" .. "f", either case; "a" is workloads/workloada). Each
// call returns a fresh map the caller may modify.
func Letter(l string) (Props, error) {
	s := strings.ToLower(strings.TrimSpace(l))
	if len(s) != 1 || s[0] < 'a' || s[0] > 'f' {
		return nil, fmt.Errorf("unknown YCSB workload %q: want one of %s", l, Letters)
	}
	name := "workloads/workload" + s
	data, err := shipped.ReadFile(name)
	if err != nil {
		return nil, err
	}
	return Parse(bytes.NewReader(data), name)
}

// Workload class names accepted for the "workload" property.
const (
	CoreWorkloadClass       = "site.ycsb.workloads.CoreWorkload"
	LegacyCoreWorkloadClass = "com.yahoo.ycsb.workloads.CoreWorkload"
	// GoYCSBCoreWorkload is go-ycsb's name for the core workload (its workload files say
	// workload=core).
	GoYCSBCoreWorkload = "core"
)

// Config is the typed core-workload configuration. Field comments give the
// YCSB property name and its default. Counts are numbers of records or
// operations; lengths are bytes (fields) or records (scans).
type Config struct {
	// Workload is the workload class ("workload"; default
	// CoreWorkloadClass; only CoreWorkloadClass, LegacyCoreWorkloadClass and
	// GoYCSBCoreWorkload are accepted).
	Workload string

	// Table is the table name ("table"; default "usertable").
	Table string
	// RecordCount is the number of records loaded ("recordcount"; default
	// 0, which YCSB's core workload treats as 2^31-1 when choosing keys).
	RecordCount int64
	// OperationCount is the number of operations in the run phase
	// ("operationcount"; default 0, which YCSB reads as no limit).
	OperationCount int64
	// ThreadCount is the number of client threads ("threadcount"; default 1).
	ThreadCount int
	// MaxExecutionTime ends the run phase after this many seconds
	// ("maxexecutiontime"; default 0, no limit).
	MaxExecutionTime int64
	// Target is the total throughput target in operations per second
	// ("target"; default 0, unthrottled).
	Target int
	// MeasurementType is recorded for the report ("measurementtype";
	// default "hdrhistogram"; one of histogram, hdrhistogram, timeseries,
	// raw).
	MeasurementType string

	// FieldCount is the number of fields per record ("fieldcount";
	// default 10; > 0).
	FieldCount int64
	// FieldLength is the length of a field in bytes, the maximum for
	// non-constant distributions ("fieldlength"; default 100; > 0).
	FieldLength int
	// MinFieldLength is the minimum field length in bytes for the uniform
	// and zipfian field length distributions ("minfieldlength"; default 1).
	MinFieldLength int
	// FieldLengthDistribution is "constant", "uniform" or "zipfian"
	// ("fieldlengthdistribution"; default "constant"). YCSB's "histogram"
	// is refused.
	FieldLengthDistribution string
	// FieldNamePrefix prefixes the field number in field names
	// ("fieldnameprefix"; default "field").
	FieldNamePrefix string
	// ReadAllFields reads all fields rather than one ("readallfields";
	// default true).
	ReadAllFields bool
	// ReadAllFieldsByName names every field in reads that read all fields
	// ("readallfieldsbyname"; default false).
	ReadAllFieldsByName bool
	// WriteAllFields writes all fields in updates rather than one
	// ("writeallfields"; default false).
	WriteAllFields bool
	// DataIntegrity derives values from keys and checks them on read
	// ("dataintegrity"; default false; needs the constant field length
	// distribution).
	DataIntegrity bool

	// ReadProportion, UpdateProportion, InsertProportion, ScanProportion and
	// ReadModifyWriteProportion are the operation mix ("readproportion"
	// 0.95, "updateproportion" 0.05, "insertproportion" 0, "scanproportion"
	// 0, "readmodifywriteproportion" 0). Each is in [0,1] and at least one
	// is > 0; as in YCSB they are weights, normalised by their sum.
	ReadProportion            float64
	UpdateProportion          float64
	InsertProportion          float64
	ScanProportion            float64
	ReadModifyWriteProportion float64

	// RequestDistribution chooses the keys operations use: "uniform",
	// "zipfian", "latest", "hotspot", "sequential" or "exponential"
	// ("requestdistribution"; default "uniform").
	RequestDistribution string
	// HotspotDataFraction is the fraction of keys in the hot set
	// ("hotspotdatafraction"; default 0.2; in [0,1]).
	HotspotDataFraction float64
	// HotspotOpnFraction is the fraction of operations that go to the hot
	// set ("hotspotopnfraction"; default 0.8; in [0,1]).
	HotspotOpnFraction float64
	// ExponentialPercentile is the percentage of operations falling in the
	// first ExponentialFrac of the keys ("exponential.percentile"; default
	// 95; in (0,100)).
	ExponentialPercentile float64
	// ExponentialFrac is that fraction of the keys ("exponential.frac";
	// default 0.8571428571; > 0).
	ExponentialFrac float64

	// ZeroPadding is the minimum number of digits in key numbers
	// ("zeropadding"; default 1; >= 0).
	ZeroPadding int
	// InsertOrder is "hashed" or "ordered" ("insertorder"; default
	// "hashed").
	InsertOrder string
	// InsertStart is the first key number this client inserts
	// ("insertstart"; default 0; >= 0).
	InsertStart int64
	// InsertCount is the number of records this client inserts
	// ("insertcount"; default RecordCount - InsertStart, or 0 when that is
	// negative). When RecordCount > 0, InsertStart+InsertCount must not
	// exceed it.
	InsertCount int64

	// MinScanLength and MaxScanLength bound the number of records a scan
	// reads ("minscanlength" default 1, "maxscanlength" default 1000;
	// 1 <= min <= max).
	MinScanLength int
	MaxScanLength int
	// ScanLengthDistribution is "uniform" or "zipfian"
	// ("scanlengthdistribution"; default "uniform").
	ScanLengthDistribution string

	// Ignored lists, sorted, the properties present that YCSB knows but
	// that have no effect here (see the package comment).
	Ignored []string
}

// Proportions returns the operation mix in the order read, update, insert,
// scan, read-modify-write.
func (c Config) Proportions() [5]float64 {
	return [5]float64{c.ReadProportion, c.UpdateProportion, c.InsertProportion,
		c.ScanProportion, c.ReadModifyWriteProportion}
}

// Default returns the configuration YCSB's core workload uses when no
// property is set.
func Default() Config {
	return Config{
		Workload:                CoreWorkloadClass,
		Table:                   "usertable",
		ThreadCount:             1,
		MeasurementType:         "hdrhistogram",
		FieldCount:              10,
		FieldLength:             100,
		MinFieldLength:          1,
		FieldLengthDistribution: "constant",
		FieldNamePrefix:         "field",
		ReadAllFields:           true,
		ReadProportion:          0.95,
		UpdateProportion:        0.05,
		RequestDistribution:     "uniform",
		HotspotDataFraction:     0.2,
		HotspotOpnFraction:      0.8,
		ExponentialPercentile:   95,
		ExponentialFrac:         0.8571428571,
		ZeroPadding:             1,
		InsertOrder:             "hashed",
		MinScanLength:           1,
		MaxScanLength:           1000,
		ScanLengthDistribution:  "uniform",
	}
}

// ignoredProps are YCSB client, measurement, export and core-workload
// settings that have no effect in this benchmark.
var ignoredProps = map[string]bool{
	"db": true, "dotransactions": true, "exporter": true, "exportfile": true,
	"label": true, "status": true,
	"status.interval": true, "measurement.interval": true,
	"measurement.trackjvm": true, "measurement.histogram.verbose": true,
	"measurement.raw.output_file": true, "measurement.raw.no_summary": true,
	"histogram.buckets": true, "hdrhistogram.percentiles": true,
	"hdrhistogram.fileoutput": true, "hdrhistogram.output.path": true,
	"timeseries.granularity": true, "spin.sleep": true,
	"reportlatencyforeacherror": true, "latencytrackederrors": true,
	"fieldlengthhistogram":                        true,
	"core_workload_insertion_retry_limit":         true,
	"core_workload_insertion_retry_interval":      true,
	"core_workload_insertion_keep_going_on_error": true,
}

// builder accumulates the first error while reading properties.
type builder struct {
	p    Props
	used map[string]bool
	err  error
}

func (b *builder) get(name string) (string, bool) {
	b.used[name] = true
	v, ok := b.p[name]
	return strings.TrimSpace(v), ok
}

func (b *builder) fail(name, value, format string, args ...any) {
	if b.err == nil {
		b.err = fmt.Errorf("%s=%s: %s", name, input.Short(value), fmt.Sprintf(format, args...))
	}
}

func (b *builder) str(name string, dst *string) {
	if v, ok := b.get(name); ok {
		*dst = v
	}
}

func (b *builder) choice(name string, dst *string, valid ...string) {
	v, ok := b.get(name)
	if !ok {
		return
	}
	for _, s := range valid {
		if v == s {
			*dst = v
			return
		}
	}
	b.fail(name, v, "not a valid choice (want %s)", strings.Join(valid, " | "))
}

func (b *builder) boolean(name string, dst *bool) {
	v, ok := b.get(name)
	if !ok {
		return
	}
	switch strings.ToLower(v) {
	case "true":
		*dst = true
	case "false":
		*dst = false
	default:
		b.fail(name, v, "not a boolean (want true or false)")
	}
}

func (b *builder) int64(name string, dst *int64, min int64, want string) {
	v, ok := b.get(name)
	if !ok {
		return
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		b.fail(name, v, "not an integer (want %s)", want)
		return
	}
	if n < min {
		b.fail(name, v, "out of range (want %s)", want)
		return
	}
	*dst = n
}

func (b *builder) int(name string, dst *int, min int64, want string) {
	n := int64(*dst)
	b.int64(name, &n, min, want)
	if n > math.MaxInt32 {
		b.fail(name, strconv.FormatInt(n, 10), "out of range (want %s)", want)
		return
	}
	*dst = int(n)
}

// float reads a number within [lo,hi], or (lo,hi) when open.
func (b *builder) float(name string, dst *float64, lo, hi float64, open bool, want string) {
	v, ok := b.get(name)
	if !ok {
		return
	}
	f, err := strconv.ParseFloat(v, 64)
	if err != nil || math.IsNaN(f) {
		b.fail(name, v, "not a number (want %s)", want)
		return
	}
	if f < lo || f > hi || (open && (f == lo || f == hi)) {
		b.fail(name, v, "out of range (want %s)", want)
		return
	}
	*dst = f
}

// Build turns p into a Config, starting from Default. It returns the
// config, the sorted names of properties it does not know (neither in
// Config nor in Config.Ignored), and an error naming the property, its
// value and what is valid when a value is malformed or the values are
// inconsistent (the checks follow CoreWorkload's where it has them).
func Build(p Props) (Config, []string, error) {
	c := Default()
	b := &builder{p: p, used: map[string]bool{}}

	if v, ok := b.get("workload"); ok {
		if v != CoreWorkloadClass && v != LegacyCoreWorkloadClass && v != GoYCSBCoreWorkload {
			return Config{}, nil, fmt.Errorf("workload=%s: only the core workload is supported (want %s, %s or go-ycsb's %s)", v, CoreWorkloadClass, LegacyCoreWorkloadClass, GoYCSBCoreWorkload)
		}
		c.Workload = v
	}

	b.str("table", &c.Table)
	b.int64("recordcount", &c.RecordCount, 0, "an integer >= 0")
	b.int64("operationcount", &c.OperationCount, 0, "an integer >= 0")
	b.int("threadcount", &c.ThreadCount, 1, "an integer >= 1")
	b.int64("maxexecutiontime", &c.MaxExecutionTime, 0, "seconds 0..604800, 0 for no limit")
	b.int("target", &c.Target, 0, "operations per second >= 0, 0 for unthrottled")
	b.choice("measurementtype", &c.MeasurementType, "histogram", "hdrhistogram", "timeseries", "raw")

	b.int64("fieldcount", &c.FieldCount, 1, "an integer >= 1")
	b.int("fieldlength", &c.FieldLength, 1, "bytes >= 1")
	b.int("minfieldlength", &c.MinFieldLength, 1, "bytes >= 1")
	b.choice("fieldlengthdistribution", &c.FieldLengthDistribution, "constant", "uniform", "zipfian")
	b.str("fieldnameprefix", &c.FieldNamePrefix)
	b.boolean("readallfields", &c.ReadAllFields)
	b.boolean("readallfieldsbyname", &c.ReadAllFieldsByName)
	b.boolean("writeallfields", &c.WriteAllFields)
	b.boolean("dataintegrity", &c.DataIntegrity)

	const prop = "0..1"
	b.float("readproportion", &c.ReadProportion, 0, 1, false, prop)
	b.float("updateproportion", &c.UpdateProportion, 0, 1, false, prop)
	b.float("insertproportion", &c.InsertProportion, 0, 1, false, prop)
	b.float("scanproportion", &c.ScanProportion, 0, 1, false, prop)
	b.float("readmodifywriteproportion", &c.ReadModifyWriteProportion, 0, 1, false, prop)

	b.choice("requestdistribution", &c.RequestDistribution,
		"uniform", "zipfian", "latest", "hotspot", "sequential", "exponential")
	b.float("hotspotdatafraction", &c.HotspotDataFraction, 0, 1, false, prop)
	b.float("hotspotopnfraction", &c.HotspotOpnFraction, 0, 1, false, prop)
	b.float("exponential.percentile", &c.ExponentialPercentile, 0, 100, true, "a percentage strictly between 0 and 100")
	b.float("exponential.frac", &c.ExponentialFrac, 0, math.MaxFloat64, true, "a fraction of the records > 0")

	b.int("zeropadding", &c.ZeroPadding, 0, "digits 0..251")
	b.choice("insertorder", &c.InsertOrder, "hashed", "ordered")
	b.int64("insertstart", &c.InsertStart, 0, "an integer >= 0")
	c.InsertCount = max(c.RecordCount-c.InsertStart, 0)
	b.int64("insertcount", &c.InsertCount, 0, "an integer >= 0")

	b.int("minscanlength", &c.MinScanLength, 1, "records >= 1")
	b.int("maxscanlength", &c.MaxScanLength, 1, "records >= 1")
	b.choice("scanlengthdistribution", &c.ScanLengthDistribution, "uniform", "zipfian")

	if b.err != nil {
		return Config{}, nil, b.err
	}
	if err := c.check(); err != nil {
		return Config{}, nil, err
	}

	var unknown []string
	for k := range p {
		switch {
		case b.used[k]:
		case ignoredProps[k]:
			c.Ignored = append(c.Ignored, k)
		default:
			unknown = append(unknown, k)
		}
	}
	sort.Strings(c.Ignored)
	sort.Strings(unknown)
	return c, unknown, nil
}

// Bounds of properties YCSB leaves unbounded.
const (
	// MaxExecutionSecs bounds maxexecutiontime: a week.
	MaxExecutionSecs = 7 * 24 * 3600
	// MaxZeroPadding bounds zeropadding: a key ("user" and the padded number) fits the key
	// column's 255 bytes (YCSB's JDBC binding declares VARCHAR(255)).
	MaxZeroPadding = 255 - len("user")
)

// check applies the checks that involve more than one property, and the name checks: the
// table and every field name (fieldnameprefix then 0..fieldcount-1) must be names that
// table.CheckIdent accepts, since they go into SQL text and documents as they are.
func (c *Config) check() error {
	if err := table.CheckIdent(c.Table); err != nil {
		return fmt.Errorf("table: %w", err)
	}
	if c.FieldCount >= 1 {
		for _, f := range []int64{0, c.FieldCount - 1} {
			if err := table.CheckIdent(c.FieldNamePrefix + strconv.FormatInt(f, 10)); err != nil {
				return fmt.Errorf("fieldnameprefix=%s: field name %d: %w", input.Short(c.FieldNamePrefix), f, err)
			}
		}
	}
	var sum float64
	for _, f := range c.Proportions() {
		sum += f
	}
	if sum <= 0 {
		return errors.New("readproportion, updateproportion, insertproportion, scanproportion, readmodifywriteproportion: all 0 (want at least one > 0)")
	}
	if c.FieldLengthDistribution != "constant" && c.MinFieldLength > c.FieldLength {
		return fmt.Errorf("minfieldlength=%d: more than fieldlength=%d (want minfieldlength <= fieldlength)", c.MinFieldLength, c.FieldLength)
	}
	if c.DataIntegrity && c.FieldLengthDistribution != "constant" {
		return fmt.Errorf("dataintegrity=true: needs fieldlengthdistribution=constant (have %s)", c.FieldLengthDistribution)
	}
	if c.MaxExecutionTime > MaxExecutionSecs {
		return fmt.Errorf("maxexecutiontime=%d: out of range (want seconds 0..%d, a week; 0 for no limit)", c.MaxExecutionTime, MaxExecutionSecs)
	}
	if c.ZeroPadding > MaxZeroPadding {
		return fmt.Errorf("zeropadding=%d: out of range (want digits 0..%d: a key is \"user\" and its digits, at most 255 bytes)", c.ZeroPadding, MaxZeroPadding)
	}
	if c.MinScanLength > c.MaxScanLength {
		return fmt.Errorf("minscanlength=%d: more than maxscanlength=%d (want minscanlength <= maxscanlength)", c.MinScanLength, c.MaxScanLength)
	}
	if c.RecordCount > 0 && c.InsertStart+c.InsertCount > c.RecordCount {
		return fmt.Errorf("insertstart=%d, insertcount=%d: beyond recordcount=%d (want insertstart+insertcount <= recordcount)", c.InsertStart, c.InsertCount, c.RecordCount)
	}
	return nil
}
