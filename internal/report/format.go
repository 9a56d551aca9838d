package report

import (
	"bufio"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/rumbench/rumbench/internal/input"
	"github.com/rumbench/rumbench/internal/textwrap"
)

// Document is a whole report: sections (one per run, or one comparison), each with heading lines
// and tables.
type Document struct {
	Sections []Section `json:"sections"`
}

// Section is a part of a document: a title, lines of context and tables.
type Section struct {
	Title  string   `json:"title,omitempty"`
	Lines  []string `json:"lines,omitempty"`
	Tables []*Table `json:"tables"`
}

// Formats lists the table formats a Document renders to (Render); "html" and "gobench" are
// produced by HTML and GoBench.
var Formats = []string{"text", "md", "csv", "tsv", "json"}

// Render writes doc in one of Formats.
func Render(w io.Writer, format string, doc *Document) error {
	bw := bufio.NewWriter(w)
	var err error
	switch format {
	case "text":
		err = renderSections(bw, doc, "# ", writeText)
	case "md":
		err = renderSections(bw, doc, "## ", writeMarkdown)
	case "csv":
		err = writeDelimited(bw, doc, ',')
	case "tsv":
		err = writeDelimited(bw, doc, '\t')
	case "json":
		enc := json.NewEncoder(bw)
		enc.SetIndent("", "  ")
		err = enc.Encode(doc)
	default:
		return fmt.Errorf("report: unknown format %q (valid: %s)", format, strings.Join(Formats, ", "))
	}
	if err != nil {
		return err
	}
	return bw.Flush()
}

// renderSections writes each section's title and lines (in text wrapped to textwrap.Width,
// continued indented), then its tables with one renderer.
func renderSections(w io.Writer, doc *Document, mark string, table func(io.Writer, *Table) error) error {
	for i, s := range doc.Sections {
		if i > 0 {
			fmt.Fprintln(w)
		}
		if s.Title != "" {
			fmt.Fprintf(w, "%s%s\n", mark, input.Printable(s.Title))
		}
		for _, l := range s.Lines {
			if mark == "## " {
				fmt.Fprintf(w, "- %s\n", input.Printable(l))
			} else {
				fmt.Fprintln(w, textwrap.Indented(input.Printable(l), textwrap.Width, 2))
			}
		}
		for _, t := range s.Tables {
			if t.Title != "" {
				fmt.Fprintln(w)
			}
			if err := table(w, t); err != nil {
				return err
			}
		}
	}
	return nil
}

// WriteText writes tables as aligned text, one after the other: a "== title (note)" line when
// the table has a title, right-aligned columns, then the footer lines indented.
func WriteText(w io.Writer, tables ...*Table) error {
	for _, t := range tables {
		if err := writeText(w, t); err != nil {
			return err
		}
	}
	return nil
}

func writeText(w io.Writer, t *Table) error {
	if t.Title != "" {
		if t.Note != "" {
			fmt.Fprintf(w, "== %s (%s)\n", input.Printable(t.Title), input.Printable(t.Note))
		} else {
			fmt.Fprintf(w, "== %s\n", input.Printable(t.Title))
		}
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	for i, c := range t.Columns {
		if i > 0 {
			fmt.Fprint(tw, "\t")
		}
		fmt.Fprint(tw, input.Printable(c.Name))
	}
	fmt.Fprintln(tw, "\t")
	for _, row := range t.Rows {
		for i, c := range row {
			if i > 0 {
				fmt.Fprint(tw, "\t")
			}
			fmt.Fprint(tw, input.Printable(c.Text))
		}
		fmt.Fprintln(tw, "\t")
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, l := range t.Footer { // a long note goes on over lines indented under its start
		fmt.Fprintln(w, "  "+strings.ReplaceAll(textwrap.Indented(input.Printable(l), textwrap.Width-2, 2), "\n", "\n  "))
	}
	return nil
}

// writeMarkdown writes a GitHub-flavoured Markdown table: numeric columns right-aligned.
func writeMarkdown(w io.Writer, t *Table) error {
	if t.Title != "" {
		fmt.Fprintf(w, "### %s\n\n", mdEscape(t.Title))
	}
	if t.Note != "" {
		fmt.Fprintf(w, "%s\n\n", mdEscape(t.Note))
	}
	fmt.Fprint(w, "|")
	for _, c := range t.Columns {
		fmt.Fprintf(w, " %s |", mdEscape(c.Name))
	}
	fmt.Fprint(w, "\n|")
	for i := range t.Columns {
		if numericColumn(t, i) {
			fmt.Fprint(w, "---:|")
		} else {
			fmt.Fprint(w, "---|")
		}
	}
	fmt.Fprintln(w)
	for _, row := range t.Rows {
		fmt.Fprint(w, "|")
		for _, c := range row {
			fmt.Fprintf(w, " %s |", mdEscape(c.Text))
		}
		fmt.Fprintln(w)
	}
	if len(t.Footer) > 0 {
		fmt.Fprintln(w)
		for _, l := range t.Footer {
			fmt.Fprintf(w, "- %s\n", mdEscape(l))
		}
	}
	return nil
}

// mdEscape writes s for a Markdown table: '|' escaped, and what could drive a terminal
// (input.Printable).
func mdEscape(s string) string { return strings.ReplaceAll(input.Printable(s), "|", `\|`) }

// numericColumn says whether every present cell of column i is a number.
func numericColumn(t *Table, i int) bool {
	found := false
	for _, row := range t.Rows {
		if i >= len(row) || row[i].Missing {
			continue
		}
		if !row[i].Numeric {
			return false
		}
		found = true
	}
	return found
}

// writeDelimited writes every table as a block of CSV (sep ',') or TSV (sep '\t') records: a
// header record "table,<columns>", then one record per row starting with the table's title (and,
// for relative tables, the base);
// blocks are separated by an empty line (which CSV readers skip). Numbers are written at full
// precision, "inf" for an infinite ratio, an empty field for a missing figure.
func writeDelimited(w io.Writer, doc *Document, sep rune) error {
	cw := csv.NewWriter(w)
	cw.Comma = sep
	first := true
	clean := func(s string) string {
		s = input.Printable(s)
		if sep == '\t' {
			return strings.NewReplacer("\t", " ", "\n", " ").Replace(s)
		}
		return s
	}
	for _, s := range doc.Sections {
		for _, t := range s.Tables {
			if !first {
				cw.Flush()
				fmt.Fprintln(w)
			}
			first = false
			title := t.Title
			if title == "" {
				title = t.Key
			}
			if t.Kind == Relative && t.Note != "" {
				title += " (" + t.Note + ")" // the base: not a column of a relative table
			}
			if s.Title != "" {
				title = s.Title + " " + title
			}
			// A column with intervals (repeated runs) is followed by its bounds, a relative
			// column of repeated runs by the p-value of its difference from the base.
			bounds, pvals := make([]bool, len(t.Columns)), make([]bool, len(t.Columns))
			for _, row := range t.Rows {
				for j, c := range row {
					bounds[j] = bounds[j] || c.Interval != nil
					pvals[j] = pvals[j] || c.P > 0
				}
			}
			rec := []string{"table"}
			for j, c := range t.Columns {
				rec = append(rec, clean(c.Name))
				if bounds[j] {
					rec = append(rec, clean(c.Name)+"_lo", clean(c.Name)+"_hi", clean(c.Name)+"_n")
				}
				if pvals[j] {
					rec = append(rec, clean(c.Name)+"_p")
				}
			}
			if err := cw.Write(rec); err != nil {
				return err
			}
			for _, row := range t.Rows {
				rec = append(rec[:0], clean(strings.TrimSpace(title)))
				for j, c := range row {
					rec = append(rec, clean(c.machine()))
					if bounds[j] {
						if iv := c.Interval; iv != nil {
							rec = append(rec, fmt.Sprint(iv.Lo), fmt.Sprint(iv.Hi), fmt.Sprint(iv.N))
						} else {
							rec = append(rec, "", "", "")
						}
					}
					if pvals[j] {
						if c.P > 0 {
							rec = append(rec, fmt.Sprint(c.P))
						} else {
							rec = append(rec, "")
						}
					}
				}
				if err := cw.Write(rec); err != nil {
					return err
				}
			}
		}
	}
	cw.Flush()
	return cw.Error()
}

// MarshalJSON writes a numeric cell as a number ("inf" for an infinite ratio), a text cell as a
// string and a missing figure as null.
func (c Cell) MarshalJSON() ([]byte, error) {
	if c.Interval != nil || c.P > 0 {
		// A repeated figure: {"value": median, "lo", "hi", "n", "conf"}; a ratio of repeated
		// runs adds "p" and "significant".
		doc := map[string]any{"value": jsonNumber(c)}
		if iv := c.Interval; iv != nil {
			doc["lo"], doc["hi"], doc["n"], doc["conf"] = finiteOr(iv.Lo), finiteOr(iv.Hi), iv.N, iv.Conf
		}
		if c.P > 0 {
			doc["p"], doc["significant"] = c.P, c.Verdict != "~"
		}
		return json.Marshal(doc)
	}
	switch {
	case c.Missing:
		return []byte("null"), nil
	case c.Numeric && !math.IsInf(c.Value, 0) && !math.IsNaN(c.Value):
		return json.Marshal(c.Value)
	case c.Numeric:
		return json.Marshal(c.machine())
	}
	return json.Marshal(c.Text)
}

// jsonNumber is a numeric cell's value for JSON: the number, or "inf" for an infinite ratio, or
// nil when missing.
func jsonNumber(c Cell) any {
	if c.Missing || math.IsNaN(c.Value) {
		return nil
	}
	if math.IsInf(c.Value, 0) {
		return c.machine()
	}
	return c.Value
}

// finiteOr is v, or its text for an infinite value (JSON has no infinity).
func finiteOr(v float64) any {
	if math.IsInf(v, 0) || math.IsNaN(v) {
		return strconv.FormatFloat(v, 'g', -1, 64)
	}
	return v
}
