package bench

import (
	"fmt"
	"strings"
)

// Doc is a run's summary as data: the words and tables of summary.md.
// Report.Doc builds it once; Doc.Markdown writes it as summary.md (and into
// the review page's Markdown twin), and package review draws the same Doc
// as HTML, so the two never say different things and nothing parses
// Markdown back.
type Doc struct {
	Title string
	// Facts are the lines under the title: when, where, how started.
	Facts    []Text
	Sections []Section
}

// Section is one part of the summary; its pieces come in this order:
// paragraphs, the table, the list, the charts. A section without a title
// continues the one before (or the facts).
type Section struct {
	Title  string
	Paras  []Text
	Table  *Table
	Items  []Text
	Charts []Chart
}

// Table is a table of the summary. Right marks the columns aligned right
// (the numbers); it may be shorter than Head.
type Table struct {
	Head  []string
	Right []bool
	Rows  [][]Text
}

// Chart is a chart beside the summary: Name.svg and Name.png in the run's
// directory.
type Chart struct {
	Name    string // e.g. ChartThroughput
	Caption string // what it shows
}

// SVG and PNG are the chart's file names.
func (c Chart) SVG() string { return c.Name + ".svg" }
func (c Chart) PNG() string { return c.Name + ".png" }

// Text is a run of spans: plain words, code and bold.
type Text []Span

// Span is a piece of Text in one style.
type Span struct {
	S     string `json:"s"`
	Style Style  `json:"style,omitempty"`
}

// Style is how a span is set.
type Style int

const (
	Plain Style = iota
	Code
	Bold
)

// Words is plain text.
func Words(s string) Text { return Text{{S: s}} }

// Wordsf is plain formatted text.
func Wordsf(format string, args ...any) Text { return Words(fmt.Sprintf(format, args...)) }

// Then appends spans in a style.
func (t Text) Then(st Style, s string) Text { return append(t, Span{S: s, Style: st}) }

// String is the text without its styles.
func (t Text) String() string {
	var b strings.Builder
	for _, s := range t {
		b.WriteString(s.S)
	}
	return b.String()
}

// Markdown writes the summary as Markdown with the title at heading level
// level (1 in summary.md; deeper when it is part of a larger page). file
// turns a file of the run's directory (a chart's .svg or .png) into the
// link target to write; nil keeps the bare name, as summary.md beside
// them wants.
func (d Doc) Markdown(level int, file func(name string) string) string {
	if file == nil {
		file = func(name string) string { return name }
	}
	var b strings.Builder
	heading := func(extra int, title string) {
		fmt.Fprintf(&b, "%s %s\n\n", strings.Repeat("#", min(level+extra, 6)), title)
	}
	heading(0, d.Title)
	for _, f := range d.Facts {
		fmt.Fprintf(&b, "- %s\n", f.Markdown())
	}
	if len(d.Facts) > 0 {
		b.WriteString("\n")
	}
	for _, s := range d.Sections {
		if s.Title != "" {
			heading(1, s.Title)
		}
		for _, p := range s.Paras {
			fmt.Fprintf(&b, "%s\n\n", p.Markdown())
		}
		if t := s.Table; t != nil {
			t.markdown(&b)
		}
		for _, it := range s.Items {
			fmt.Fprintf(&b, "- %s\n", it.Markdown())
		}
		if len(s.Items) > 0 {
			b.WriteString("\n")
		}
		for _, c := range s.Charts {
			fmt.Fprintf(&b, "- [%s](%s): %s\n", c.SVG(), file(c.SVG()), c.Caption)
		}
		if len(s.Charts) > 0 {
			b.WriteString("\n")
		}
		for _, c := range s.Charts {
			fmt.Fprintf(&b, "![%s](%s)\n\n", c.Name, file(c.PNG()))
		}
	}
	return b.String()
}

func (t *Table) markdown(b *strings.Builder) {
	b.WriteString("| " + strings.Join(t.Head, " | ") + " |\n|")
	for i := range t.Head {
		if i < len(t.Right) && t.Right[i] {
			b.WriteString("---:|")
		} else {
			b.WriteString("---|")
		}
	}
	b.WriteString("\n")
	for _, row := range t.Rows {
		b.WriteString("|")
		for _, c := range row {
			b.WriteString(" " + strings.ReplaceAll(c.Markdown(), "|", `\|`) + " |")
		}
		b.WriteString("\n")
	}
	b.WriteString("\n")
}

// Markdown writes the text with its styles; free text is kept on one line.
func (t Text) Markdown() string {
	var b strings.Builder
	for _, s := range t {
		v := strings.ReplaceAll(s.S, "\n", " ")
		switch s.Style {
		case Code:
			b.WriteString("`" + strings.ReplaceAll(v, "`", "'") + "`")
		case Bold:
			b.WriteString("**" + v + "**")
		default:
			b.WriteString(v)
		}
	}
	return b.String()
}
