// Package openmetrics writes the OpenMetrics text format (version 1.0.0): metric families with
// their TYPE, UNIT and HELP lines, samples with labels and optional timestamps, and the closing
// "# EOF". It is the format a Prometheus server scrapes and the one `promtool tsdb
// create-blocks-from openmetrics` loads. It knows nothing of rumbench's metrics.
package openmetrics

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
)

// ContentType is the media type of a scrape's answer.
const ContentType = "application/openmetrics-text; version=1.0.0; charset=utf-8"

// Type is a metric family's type.
type Type string

// The family types rumbench writes.
const (
	Counter   Type = "counter"
	Gauge     Type = "gauge"
	Histogram Type = "histogram"
	Info      Type = "info"
)

// Label is one label of a sample. Its name is a metric name's characters ([a-zA-Z_][a-zA-Z0-9_]*,
// the caller's constant); its value any text, escaped as it is written.
type Label struct {
	Name, Value string
}

// Writer writes one exposition. Its methods remember the first write error, which End returns.
type Writer struct {
	w   *bufio.Writer
	err error
	buf []byte
}

// NewWriter returns a Writer on w.
func NewWriter(w io.Writer) *Writer { return &Writer{w: bufio.NewWriterSize(w, 32<<10)} }

// Family starts a metric family: name (without a counter's "_total" or an info's "_info"), its
// type, its unit ("seconds", "bytes"; "" for none: a family with a unit must end in "_" + unit)
// and one line of help. Every sample of the family must follow before the next Family.
func (w *Writer) Family(name string, t Type, unit, help string) {
	if unit != "" && !strings.HasSuffix(name, "_"+unit) && w.err == nil {
		w.err = fmt.Errorf("openmetrics: family %s has unit %s but does not end in _%s", name, unit, unit)
	}
	w.printf("# TYPE %s %s\n", name, t)
	if unit != "" {
		w.printf("# UNIT %s %s\n", name, unit)
	}
	w.printf("# HELP %s %s\n", name, escapeHelp(help))
}

// Sample writes one sample: the family's name plus suffix ("_total", "_bucket", "_count",
// "_sum", "_info", or "" for a gauge), its labels, its value; extra labels (a bucket's "le")
// follow labels.
func (w *Writer) Sample(name string, labels []Label, value float64, extra ...Label) {
	w.sample(name, labels, extra, value, false, 0)
}

// SampleAt is Sample with a timestamp, in milliseconds since the Unix epoch (written in
// seconds, as OpenMetrics has it).
func (w *Writer) SampleAt(name string, labels []Label, value float64, unixMs int64, extra ...Label) {
	w.sample(name, labels, extra, value, true, unixMs)
}

func (w *Writer) sample(name string, labels, extra []Label, value float64, stamped bool, unixMs int64) {
	if w.err != nil {
		return
	}
	b := append(w.buf[:0], name...)
	if len(labels)+len(extra) > 0 {
		b = append(b, '{')
		first := true
		for _, set := range [2][]Label{labels, extra} {
			for _, l := range set {
				if !first {
					b = append(b, ',')
				}
				first = false
				b = append(b, l.Name...)
				b = append(b, '=', '"')
				b = appendEscaped(b, l.Value)
				b = append(b, '"')
			}
		}
		b = append(b, '}')
	}
	b = append(b, ' ')
	b = AppendFloat(b, value)
	if stamped {
		b = append(b, ' ')
		b = appendSeconds(b, unixMs)
	}
	b = append(b, '\n')
	w.buf = b
	_, w.err = w.w.Write(b)
}

// End writes "# EOF", flushes and returns the first error of the exposition.
func (w *Writer) End() error {
	w.printf("# EOF\n")
	if w.err != nil {
		return w.err
	}
	return w.w.Flush()
}

func (w *Writer) printf(format string, args ...any) {
	if w.err == nil {
		_, w.err = fmt.Fprintf(w.w, format, args...)
	}
}

// AppendFloat appends v as OpenMetrics writes a number: an integer without a fraction or an
// exponent (below 2^53), "+Inf", "-Inf", "NaN", else Go's shortest representation.
func AppendFloat(b []byte, v float64) []byte {
	switch {
	case math.IsInf(v, 1):
		return append(b, "+Inf"...)
	case math.IsInf(v, -1):
		return append(b, "-Inf"...)
	case math.IsNaN(v):
		return append(b, "NaN"...)
	case v == math.Trunc(v) && math.Abs(v) < 1<<53:
		return strconv.AppendInt(b, int64(v), 10)
	}
	return strconv.AppendFloat(b, v, 'g', -1, 64)
}

// FormatFloat is AppendFloat as a string (a bucket's "le" value).
func FormatFloat(v float64) string { return string(AppendFloat(nil, v)) }

// appendSeconds appends a Unix time in ms as seconds with three decimals.
func appendSeconds(b []byte, ms int64) []byte {
	if ms < 0 {
		b = append(b, '-')
		ms = -ms
	}
	b = strconv.AppendInt(b, ms/1000, 10)
	frac := ms % 1000
	b = append(b, '.', byte('0'+frac/100), byte('0'+frac/10%10), byte('0'+frac%10))
	return b
}

// appendEscaped appends a label value with '\\', '"' and line feeds escaped.
func appendEscaped(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '\\':
			b = append(b, '\\', '\\')
		case '"':
			b = append(b, '\\', '"')
		case '\n':
			b = append(b, '\\', 'n')
		default:
			b = append(b, c)
		}
	}
	return b
}

// helpEscaper escapes a help text as OpenMetrics wants it ('\\', '"' and line feeds).
var helpEscaper = strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`)

func escapeHelp(s string) string { return helpEscaper.Replace(s) }
