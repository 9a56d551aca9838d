package ycsbconf

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// TestShipped loads each of YCSB's shipped workload files from disk and
// checks the values they set.
func TestShipped(t *testing.T) {
	type mix struct{ read, update, insert, scan, rmw float64 }
	tests := []struct {
		letter  string
		mix     mix
		reqdist string
		check   func(t *testing.T, c Config)
	}{
		{"a", mix{read: 0.5, update: 0.5}, "zipfian", nil},
		{"b", mix{read: 0.95, update: 0.05}, "zipfian", nil},
		{"c", mix{read: 1}, "zipfian", nil},
		{"d", mix{read: 0.95, insert: 0.05}, "latest", nil},
		{"e", mix{scan: 0.95, insert: 0.05}, "zipfian", func(t *testing.T, c Config) {
			if c.MaxScanLength != 100 || c.MinScanLength != 1 || c.ScanLengthDistribution != "uniform" {
				t.Errorf("scan lengths %d..%d %s, want 1..100 uniform", c.MinScanLength, c.MaxScanLength, c.ScanLengthDistribution)
			}
		}},
		{"f", mix{read: 0.5, rmw: 0.5}, "zipfian", nil},
	}
	for _, tt := range tests {
		t.Run(tt.letter, func(t *testing.T) {
			p, err := ReadFile(filepath.Join("workloads", "workload"+tt.letter))
			if err != nil {
				t.Fatal(err)
			}
			c, unknown, err := Build(p)
			if err != nil {
				t.Fatal(err)
			}
			if len(unknown) != 0 || len(c.Ignored) != 0 {
				t.Errorf("unknown %v, ignored %v; want none", unknown, c.Ignored)
			}
			want := [5]float64{tt.mix.read, tt.mix.update, tt.mix.insert, tt.mix.scan, tt.mix.rmw}
			if got := c.Proportions(); got != want {
				t.Errorf("proportions %v, want %v", got, want)
			}
			if c.RequestDistribution != tt.reqdist {
				t.Errorf("requestdistribution %q, want %q", c.RequestDistribution, tt.reqdist)
			}
			if c.RecordCount != 1000 || c.OperationCount != 1000 || c.InsertCount != 1000 {
				t.Errorf("recordcount %d operationcount %d insertcount %d, want 1000 each", c.RecordCount, c.OperationCount, c.InsertCount)
			}
			if c.Workload != CoreWorkloadClass || !c.ReadAllFields {
				t.Errorf("workload %q readallfields %v", c.Workload, c.ReadAllFields)
			}
			if c.FieldCount != 10 || c.FieldLength != 100 || c.Table != "usertable" {
				t.Errorf("defaults changed: %+v", c)
			}
			if tt.check != nil {
				tt.check(t, c)
			}
		})
	}
}

// TestLetter checks that Letter returns the embedded copies (equal to the
// files read from disk), accepts upper case and refuses other letters.
func TestLetter(t *testing.T) {
	for _, l := range []string{"a", "b", "c", "d", "e", "f", "A", "F", " c "} {
		p, err := Letter(l)
		if err != nil {
			t.Fatalf("Letter(%q): %v", l, err)
		}
		disk, err := ReadFile(filepath.Join("workloads", "workload"+strings.ToLower(strings.TrimSpace(l))))
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(p, disk) {
			t.Errorf("Letter(%q) = %v, want %v", l, p, disk)
		}
	}
	for _, l := range []string{"g", "", "ab", "workloada", "1"} {
		_, err := Letter(l)
		if err == nil || !strings.Contains(err.Error(), "a, b, c, d, e, f") || strings.Contains(err.Error(), "\n") {
			t.Errorf("Letter(%q) error %v, want one line listing a..f", l, err)
		}
	}
}

// TestParseForms checks the java.util.Properties forms Parse accepts.
func TestParseForms(t *testing.T) {
	in := "# comment\n" +
		"! another comment\n" +
		"   # indented comment\n" +
		"\n" +
		"a=1\n" +
		"b = 2\n" +
		"c: 3\n" +
		"d 4\n" +
		"  e\t=\t five words  \r\n" +
		"f=one, \\\n" +
		"    two\n" +
		"g=x=y\n" +
		"h=\n" +
		"i\n" +
		"j\\ k=tab\\there \\u0041\n" +
		"l=ends in backslash \\\\\n" +
		"a=override\r" +
		"m=last"
	p, err := Parse(strings.NewReader(in), "test")
	if err != nil {
		t.Fatal(err)
	}
	want := Props{
		"a": "override", "b": "2", "c": "3", "d": "4", "e": "five words  ",
		"f": "one, two", "g": "x=y", "h": "", "i": "", "j k": "tab\there A",
		"l": `ends in backslash \`, "m": "last",
	}
	if !reflect.DeepEqual(p, want) {
		t.Errorf("got %q\nwant %q", p, want)
	}
}

// TestParseError checks that a parse error names the file and line.
func TestParseError(t *testing.T) {
	_, err := Parse(strings.NewReader("a=1\n\nb=\\u00zz\n"), "wl")
	if err == nil || !strings.HasPrefix(err.Error(), "wl:3: ") {
		t.Errorf("error %v, want one starting wl:3:", err)
	}
	_, err = ReadFile(filepath.Join(t.TempDir(), "missing"))
	if err == nil {
		t.Error("ReadFile of a missing file: no error")
	}
}

// TestSet checks -p overrides: they win over the file, and a string
// without '=' is refused.
func TestSet(t *testing.T) {
	path := filepath.Join(t.TempDir(), "wl")
	if err := os.WriteFile(path, []byte("readproportion=0.5\nupdateproportion=0.5\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	p, err := ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, kv := range []string{"readproportion=0.9", " updateproportion = 0.1 ", "fieldnameprefix=f=x"} {
		if err := p.Set(kv); err != nil {
			t.Fatalf("Set(%q): %v", kv, err)
		}
	}
	if p["fieldnameprefix"] != "f=x" {
		t.Errorf("fieldnameprefix=f=x set %q, want f=x (the value is all after the first =)", p["fieldnameprefix"])
	}
	if _, _, err := Build(p); err == nil || !strings.Contains(err.Error(), "fieldnameprefix=f=x: field name 0") {
		t.Errorf("Build with fieldnameprefix f=x: %v, want the field name refused", err)
	}
	if err := p.Set("fieldnameprefix=col_"); err != nil {
		t.Fatal(err)
	}
	c, _, err := Build(p)
	if err != nil {
		t.Fatal(err)
	}
	if c.ReadProportion != 0.9 || c.UpdateProportion != 0.1 || c.FieldNamePrefix != "col_" {
		t.Errorf("read %v update %v prefix %q, want 0.9 0.1 col_", c.ReadProportion, c.UpdateProportion, c.FieldNamePrefix)
	}
	for _, kv := range []string{"readproportion", "", "=1"} {
		err := p.Set(kv)
		if err == nil || !strings.Contains(err.Error(), "key=value") {
			t.Errorf("Set(%q) error %v, want one naming key=value", kv, err)
		}
	}
}

// TestNames checks that the names that reach SQL text and documents (table, the field names)
// are refused unless they are plain identifiers, with the property named.
func TestNames(t *testing.T) {
	for _, tc := range []struct {
		props Props
		want  string
	}{
		{Props{"table": "t1 (x int); CREATE TABLE pwned (y int); CREATE TABLE usertable"}, "table: \"t1 (x int); CREATE TABLE pwned (y int); CREATE TABLE usertab…(62 bytes)\": character ' ' at 2"},
		{Props{"table": "user"}, "table: user: a reserved word"},
		{Props{"table": "a.b"}, "character '.' at 1"},
		{Props{"fieldnameprefix": "f; DROP TABLE usertable; --"}, "fieldnameprefix=f; DROP TABLE usertable; --: field name 0"},
		{Props{"fieldnameprefix": "$set."}, "character '$' at 0"},
		{Props{"fieldnameprefix": ""}, "field name 0: \"0\": character '0' at 0"},
		{Props{"fieldnameprefix": strings.Repeat("f", 62), "fieldcount": "11"}, "field name 10"},
	} {
		_, _, err := Build(tc.props)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Build(%v) = %v, want an error with %q", tc.props, err, tc.want)
		}
	}
	if _, _, err := Build(Props{"table": "UserTable_2", "fieldnameprefix": "col_"}); err != nil {
		t.Errorf("plain names refused: %v", err)
	}
}

// TestDefaults checks Build of no properties against YCSB's defaults.
func TestDefaults(t *testing.T) {
	c, unknown, err := Build(Props{})
	if err != nil || unknown != nil {
		t.Fatal(err, unknown)
	}
	if !reflect.DeepEqual(c, Default()) {
		t.Errorf("Build(empty) = %+v, want Default() %+v", c, Default())
	}
	want := Config{
		Workload: "site.ycsb.workloads.CoreWorkload", Table: "usertable", ThreadCount: 1,
		MeasurementType: "hdrhistogram", FieldCount: 10, FieldLength: 100, MinFieldLength: 1,
		FieldLengthDistribution: "constant", FieldNamePrefix: "field", ReadAllFields: true,
		ReadProportion: 0.95, UpdateProportion: 0.05, RequestDistribution: "uniform",
		HotspotDataFraction: 0.2, HotspotOpnFraction: 0.8, ExponentialPercentile: 95,
		ExponentialFrac: 0.8571428571, ZeroPadding: 1, InsertOrder: "hashed",
		MinScanLength: 1, MaxScanLength: 1000, ScanLengthDistribution: "uniform",
	}
	if !reflect.DeepEqual(c, want) {
		t.Errorf("defaults %+v\nwant %+v", c, want)
	}
}

// TestBuildValues checks that every property reaches its field.
func TestBuildValues(t *testing.T) {
	p := Props{
		"workload": LegacyCoreWorkloadClass, "table": "t", "recordcount": "500",
		"operationcount": "7", "threadcount": "4", "target": "100", "measurementtype": "raw",
		"fieldcount": "3", "fieldlength": "64", "minfieldlength": "8",
		"fieldlengthdistribution": "zipfian", "fieldnameprefix": "col",
		"readallfields": "FALSE", "readallfieldsbyname": "true", "writeallfields": "True",
		"readproportion": "0.1", "updateproportion": "0.2", "insertproportion": "0.3",
		"scanproportion": "0.25", "readmodifywriteproportion": "0.15",
		"requestdistribution": "hotspot", "hotspotdatafraction": "0.1", "hotspotopnfraction": "0.9",
		"exponential.percentile": "50", "exponential.frac": "0.5", "zeropadding": "12",
		"insertorder": "ordered", "insertstart": "100", "minscanlength": "5",
		"maxscanlength": "50", "scanlengthdistribution": "zipfian",
	}
	c, unknown, err := Build(p)
	if err != nil || len(unknown) != 0 {
		t.Fatal(err, unknown)
	}
	want := Config{
		Workload: LegacyCoreWorkloadClass, Table: "t", RecordCount: 500, OperationCount: 7,
		ThreadCount: 4, Target: 100, MeasurementType: "raw", FieldCount: 3, FieldLength: 64,
		MinFieldLength: 8, FieldLengthDistribution: "zipfian", FieldNamePrefix: "col",
		ReadAllFieldsByName: true, WriteAllFields: true,
		ReadProportion: 0.1, UpdateProportion: 0.2, InsertProportion: 0.3, ScanProportion: 0.25,
		ReadModifyWriteProportion: 0.15, RequestDistribution: "hotspot",
		HotspotDataFraction: 0.1, HotspotOpnFraction: 0.9, ExponentialPercentile: 50,
		ExponentialFrac: 0.5, ZeroPadding: 12, InsertOrder: "ordered", InsertStart: 100,
		InsertCount: 400, MinScanLength: 5, MaxScanLength: 50, ScanLengthDistribution: "zipfian",
	}
	if !reflect.DeepEqual(c, want) {
		t.Errorf("got  %+v\nwant %+v", c, want)
	}
}

// TestBuildUnknownIgnored checks that unknown names come back sorted and
// known-but-inert YCSB settings land in Config.Ignored.
func TestBuildUnknownIgnored(t *testing.T) {
	p := Props{
		"zeta": "1", "alpha": "2", "mongodb.url": "x", "readproportion": "1",
		"measurementtype": "histogram", "histogram.buckets": "1000", "status.interval": "5",
		"dotransactions": "true", "exporter": "site.ycsb.measurements.exporter.TextMeasurementsExporter",
	}
	c, unknown, err := Build(p)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"alpha", "mongodb.url", "zeta"}; !reflect.DeepEqual(unknown, want) {
		t.Errorf("unknown %v, want %v", unknown, want)
	}
	if want := []string{"dotransactions", "exporter", "histogram.buckets", "status.interval"}; !reflect.DeepEqual(c.Ignored, want) {
		t.Errorf("ignored %v, want %v", c.Ignored, want)
	}
	if c.MeasurementType != "histogram" {
		t.Errorf("measurementtype %q", c.MeasurementType)
	}
}

// TestBuildErrors checks that malformed or inconsistent values are refused
// with one line naming the property and value.
func TestBuildErrors(t *testing.T) {
	tests := []struct {
		props Props
		want  string
	}{
		{Props{"readproportion": "abc"}, "readproportion=abc: not a number (want 0..1)"},
		{Props{"readproportion": "1.5"}, "readproportion=1.5: out of range (want 0..1)"},
		{Props{"updateproportion": "-0.1"}, "updateproportion=-0.1: out of range"},
		{Props{"readproportion": "0", "updateproportion": "0"}, "want at least one > 0"},
		{Props{"fieldcount": "0"}, "fieldcount=0: out of range"},
		{Props{"fieldlength": "x"}, "fieldlength=x: not an integer"},
		{Props{"fieldlengthdistribution": "histogram"}, "fieldlengthdistribution=histogram: not a valid choice (want constant | uniform | zipfian)"},
		{Props{"fieldlengthdistribution": "uniform", "minfieldlength": "200"}, "minfieldlength=200"},
		{Props{"dataintegrity": "true", "fieldlengthdistribution": "uniform"}, "dataintegrity=true: needs fieldlengthdistribution=constant"},
		{Props{"dataintegrity": "yes"}, "dataintegrity=yes: not a boolean"},
		{Props{"requestdistribution": "pareto"}, "requestdistribution=pareto: not a valid choice"},
		{Props{"scanlengthdistribution": "latest"}, "scanlengthdistribution=latest"},
		{Props{"insertorder": "random"}, "insertorder=random"},
		{Props{"minscanlength": "10", "maxscanlength": "5"}, "minscanlength=10: more than maxscanlength=5"},
		{Props{"recordcount": "100", "insertstart": "50", "insertcount": "60"}, "beyond recordcount=100"},
		{Props{"threadcount": "0"}, "threadcount=0: out of range"},
		{Props{"target": "-1"}, "target=-1"},
		{Props{"operationcount": "1e3"}, "operationcount=1e3: not an integer"},
		{Props{"hotspotdatafraction": "2"}, "hotspotdatafraction=2"},
		{Props{"exponential.percentile": "100"}, "exponential.percentile=100"},
		{Props{"exponential.frac": "0"}, "exponential.frac=0"},
		{Props{"measurementtype": "csv"}, "measurementtype=csv"},
		{Props{"workload": "site.ycsb.workloads.TimeSeriesWorkload"}, "only the core workload is supported"},
		{Props{"maxexecutiontime": "1000000000000"}, "maxexecutiontime=1000000000000: out of range (want seconds 0..604800, a week; 0 for no limit)"},
		{Props{"zeropadding": "252"}, "zeropadding=252: out of range (want digits 0..251"},
		{Props{"recordcount": strings.Repeat("9", 300)}, "recordcount=" + strings.Repeat("9", 60) + "…(300 bytes): not an integer"},
	}
	for _, tt := range tests {
		_, _, err := Build(tt.props)
		if err == nil || !strings.Contains(err.Error(), tt.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("Build(%v) error %v, want one line containing %q", tt.props, err, tt.want)
		}
	}
}

// TestWorkloadNames: the core workload under YCSB's name, its pre-0.13 name and go-ycsb's.
func TestWorkloadNames(t *testing.T) {
	for _, name := range []string{CoreWorkloadClass, LegacyCoreWorkloadClass, GoYCSBCoreWorkload} {
		c, _, err := Build(Props{"workload": name})
		if err != nil || c.Workload != name {
			t.Errorf("workload=%s: %+v, %v", name, c.Workload, err)
		}
	}
}
