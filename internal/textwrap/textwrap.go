// Package textwrap fits the text rumbench prints for people (help, lists, report headers) to a
// terminal's width.
package textwrap

import (
	"strings"
	"unicode/utf8"
)

// Width is the columns every line rumbench prints for people fits in (tables of figures
// excepted: a row per target cannot wrap).
const Width = 120

// Lines breaks text into lines of at most width columns (characters), at spaces; a word longer
// than width is a line of its own, unbroken. Runs of spaces between words become one; a text of
// only spaces is no line.
func Lines(text string, width int) []string { return lines(text, width, width) }

// lines is Lines with a first line of at most first columns and the others of at most rest.
func lines(text string, first, rest int) []string {
	var out []string
	var line strings.Builder
	n, limit := 0, first
	for _, w := range strings.Fields(text) {
		wn := utf8.RuneCountInString(w)
		if n > 0 && n+1+wn > limit {
			out = append(out, line.String())
			line.Reset()
			n, limit = 0, rest
		}
		if n > 0 {
			line.WriteByte(' ')
			n++
		}
		line.WriteString(w)
		n += wn
	}
	if n > 0 {
		out = append(out, line.String())
	}
	return out
}

// Indented wraps text to width, every line after the first indented by indent spaces (a long
// line of a report's header, its continuation set in). The result has no trailing newline.
func Indented(text string, width, indent int) string {
	ls := lines(text, width, max(width-indent, 20))
	return strings.Join(ls, "\n"+strings.Repeat(" ", indent))
}

// Hang renders text after a first-line prefix of the columns given, wrapped to width with the
// following lines indented by as many spaces as the prefix is long (a hanging indent): the
// meaning column of a list. The result has no trailing newline.
func Hang(prefix, text string, width int) string {
	pad := utf8.RuneCountInString(prefix)
	room := max(width-pad, 20)
	lines := Lines(text, room)
	if len(lines) == 0 {
		return strings.TrimRight(prefix, " ")
	}
	var b strings.Builder
	b.WriteString(prefix)
	b.WriteString(lines[0])
	for _, l := range lines[1:] {
		b.WriteByte('\n')
		b.WriteString(strings.Repeat(" ", pad))
		b.WriteString(l)
	}
	return b.String()
}

// Fill wraps each paragraph of text (paragraphs are separated by blank lines; the line breaks
// inside one are not kept) to width.
func Fill(text string, width int) string {
	var paras []string
	for _, p := range strings.Split(text, "\n\n") {
		paras = append(paras, strings.Join(Lines(p, width), "\n"))
	}
	return strings.Join(paras, "\n\n")
}
