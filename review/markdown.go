package review

import (
	"fmt"
	"html"
	"regexp"
	"strings"
)

// mdRenderer turns the Markdown that locksim and lockbench write
// (summary.md files) into HTML: ATX headings, paragraphs, "-" lists, pipe
// tables, fenced code; inline code, **bold**, *emphasis*, links and images.
// It is not a general Markdown implementation, and needs not be: its input
// is our own files.
type mdRenderer struct {
	// shift demotes headings: "#" becomes h(1+shift), at most h6.
	shift int
	// image returns an img src for a Markdown image target; "" leaves the
	// image out, with its alt text.
	image func(target string) string
	// link returns an href for a link target; "" keeps only the text.
	link func(target string) string
}

var (
	headingRE = regexp.MustCompile(`^(#{1,6})\s+(.*)$`)
	listRE    = regexp.MustCompile(`^\s{0,3}[-*+]\s+(.*)$`)
	orderedRE = regexp.MustCompile(`^\s{0,3}\d+[.)]\s+(.*)$`)
	tableSep  = regexp.MustCompile(`^\s*\|?\s*:?-{2,}:?\s*(\|\s*:?-{2,}:?\s*)*\|?\s*$`)
)

// html renders a whole document.
func (r mdRenderer) html(src string) string {
	lines := strings.Split(strings.ReplaceAll(src, "\r\n", "\n"), "\n")
	var b strings.Builder
	for i := 0; i < len(lines); {
		line := lines[i]
		trimmed := strings.TrimSpace(line)
		switch {
		case trimmed == "":
			i++
		case strings.HasPrefix(trimmed, "```"):
			j := i + 1
			for j < len(lines) && !strings.HasPrefix(strings.TrimSpace(lines[j]), "```") {
				j++
			}
			fmt.Fprintf(&b, "<pre>%s</pre>\n", html.EscapeString(strings.Join(lines[i+1:min(j, len(lines))], "\n")))
			i = j + 1
		case headingRE.MatchString(trimmed):
			m := headingRE.FindStringSubmatch(trimmed)
			level := min(len(m[1])+r.shift, 6)
			fmt.Fprintf(&b, "<h%d>%s</h%d>\n", level, r.inline(strings.TrimRight(m[2], "# ")), level)
			i++
		case strings.HasPrefix(trimmed, "|") && i+1 < len(lines) && tableSep.MatchString(lines[i+1]):
			j := i + 2
			for j < len(lines) && strings.HasPrefix(strings.TrimSpace(lines[j]), "|") {
				j++
			}
			r.table(&b, lines[i], lines[i+1], lines[i+2:j])
			i = j
		case listRE.MatchString(line) || orderedRE.MatchString(line):
			re, tag := listRE, "ul"
			if !listRE.MatchString(line) {
				re, tag = orderedRE, "ol"
			}
			fmt.Fprintf(&b, "<%s>", tag)
			for i < len(lines) && re.MatchString(lines[i]) {
				item := re.FindStringSubmatch(lines[i])[1]
				i++
				// Continuation lines: indented, not a new item.
				for i < len(lines) && strings.HasPrefix(lines[i], "  ") && strings.TrimSpace(lines[i]) != "" && !re.MatchString(lines[i]) {
					item += " " + strings.TrimSpace(lines[i])
					i++
				}
				fmt.Fprintf(&b, "<li>%s</li>", r.inline(item))
			}
			fmt.Fprintf(&b, "</%s>\n", tag)
		default:
			var para []string
			for i < len(lines) {
				t := strings.TrimSpace(lines[i])
				if t == "" || headingRE.MatchString(t) || strings.HasPrefix(t, "```") || listRE.MatchString(lines[i]) ||
					(strings.HasPrefix(t, "|") && i+1 < len(lines) && tableSep.MatchString(lines[i+1])) {
					break
				}
				para = append(para, t)
				i++
			}
			fmt.Fprintf(&b, "<p>%s</p>\n", r.inline(strings.Join(para, " ")))
		}
	}
	return b.String()
}

func (r mdRenderer) table(b *strings.Builder, header, sep string, rows []string) {
	aligns := splitRow(sep)
	for k, a := range aligns {
		a = strings.TrimSpace(a)
		switch {
		case strings.HasPrefix(a, ":") && strings.HasSuffix(a, ":"):
			aligns[k] = "center"
		case strings.HasSuffix(a, ":"):
			aligns[k] = "right"
		default:
			aligns[k] = ""
		}
	}
	cell := func(tag string, k int, text string) {
		style := ""
		if k < len(aligns) && aligns[k] != "" {
			style = fmt.Sprintf(` style="text-align: %s"`, aligns[k])
		}
		fmt.Fprintf(b, "<%s%s>%s</%s>", tag, style, r.inline(strings.TrimSpace(text)), tag)
	}
	b.WriteString(`<table class="md"><thead><tr>`)
	for k, h := range splitRow(header) {
		cell("th", k, h)
	}
	b.WriteString("</tr></thead><tbody>\n")
	for _, row := range rows {
		b.WriteString("<tr>")
		for k, c := range splitRow(row) {
			cell("td", k, c)
		}
		b.WriteString("</tr>\n")
	}
	b.WriteString("</tbody></table>\n")
}

// splitRow splits a table row on the pipes that are not escaped.
func splitRow(line string) []string {
	line = strings.TrimSpace(line)
	line = strings.TrimPrefix(line, "|")
	if strings.HasSuffix(line, "|") && !strings.HasSuffix(line, `\|`) {
		line = line[:len(line)-1]
	}
	var cells []string
	var cur strings.Builder
	for i := 0; i < len(line); i++ {
		switch {
		case line[i] == '\\' && i+1 < len(line) && line[i+1] == '|':
			cur.WriteString(`\|`) // inline() unescapes it
			i++
		case line[i] == '|':
			cells = append(cells, cur.String())
			cur.Reset()
		default:
			cur.WriteByte(line[i])
		}
	}
	return append(cells, cur.String())
}

// inline renders one line's inline markup.
func (r mdRenderer) inline(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == '\\' && i+1 < len(s) && strings.ContainsRune("\\`*_{}[]()#+-.!|<>", rune(s[i+1])):
			b.WriteString(html.EscapeString(s[i+1 : i+2]))
			i += 2
		case c == '`':
			if j := strings.IndexByte(s[i+1:], '`'); j >= 0 {
				fmt.Fprintf(&b, "<code>%s</code>", html.EscapeString(s[i+1:i+1+j]))
				i += j + 2
				continue
			}
			b.WriteString("`")
			i++
		case c == '!' && strings.HasPrefix(s[i:], "!["):
			if text, target, n, ok := linkAt(s[i+1:]); ok {
				src := ""
				if r.image != nil {
					src = r.image(target)
				}
				if src != "" {
					fmt.Fprintf(&b, `<img src="%s" alt="%s"/>`, html.EscapeString(src), html.EscapeString(text))
				} else {
					fmt.Fprintf(&b, "<em>[%s]</em>", html.EscapeString(text))
				}
				i += 1 + n
				continue
			}
			b.WriteString("!")
			i++
		case c == '[':
			if text, target, n, ok := linkAt(s[i:]); ok {
				href := ""
				if r.link != nil {
					href = r.link(target)
				}
				if href != "" {
					fmt.Fprintf(&b, `<a href="%s">%s</a>`, html.EscapeString(href), r.inline(text))
				} else {
					b.WriteString(r.inline(text))
				}
				i += n
				continue
			}
			b.WriteString("[")
			i++
		case c == '*' && strings.HasPrefix(s[i:], "**"):
			if j := strings.Index(s[i+2:], "**"); j > 0 {
				fmt.Fprintf(&b, "<strong>%s</strong>", r.inline(s[i+2:i+2+j]))
				i += j + 4
				continue
			}
			b.WriteString("**")
			i += 2
		case c == '*' && i+1 < len(s) && s[i+1] != ' ':
			if j := strings.IndexByte(s[i+1:], '*'); j > 0 {
				fmt.Fprintf(&b, "<em>%s</em>", r.inline(s[i+1:i+1+j]))
				i += j + 2
				continue
			}
			b.WriteString("*")
			i++
		default:
			b.WriteString(html.EscapeString(s[i : i+1]))
			i++
		}
	}
	return b.String()
}

// linkAt parses "[text](target)" at the start of s and returns the text,
// the target and the length consumed.
func linkAt(s string) (text, target string, n int, ok bool) {
	if !strings.HasPrefix(s, "[") {
		return "", "", 0, false
	}
	depth := 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case '[':
			depth++
		case ']':
			depth--
			if depth == 0 {
				if i+1 >= len(s) || s[i+1] != '(' {
					return "", "", 0, false
				}
				end := strings.IndexByte(s[i+2:], ')')
				if end < 0 {
					return "", "", 0, false
				}
				return s[1:i], strings.TrimSpace(s[i+2 : i+2+end]), i + 3 + end, true
			}
		}
	}
	return "", "", 0, false
}
