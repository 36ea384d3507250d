package main

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// perClientWarning matches the warnings checker.Warnings says of one
// client; the rest of the line is the client's detail.
var perClientWarning = regexp.MustCompile(`^client (\d+) (never acquired the lock|never tried to acquire the lock)`)

// warningsShown is how many warnings of one per-client kind are printed
// before the rest are counted in one line.
const warningsShown = 3

// aggregateWarnings keeps the warnings that are not about one client,
// and of each per-client kind the first warningsShown, followed by one
// line that counts the rest and names their first and last client:
// "997 more clients never acquired the lock (clients 3 to 999)". A
// history of many clients that never got the lock then prints a few
// lines, not one per client.
func aggregateWarnings(ws []string) []string {
	type group struct {
		n           int
		first, last string
	}
	groups := map[string]*group{}
	var kinds []string
	var out []string
	for _, w := range ws {
		m := perClientWarning.FindStringSubmatch(w)
		if m == nil {
			out = append(out, w)
			continue
		}
		g := groups[m[2]]
		if g == nil {
			g = &group{}
			groups[m[2]] = g
			kinds = append(kinds, m[2])
		}
		g.n++
		switch {
		case g.n <= warningsShown:
			out = append(out, w)
		case g.n == warningsShown+1:
			g.first, g.last = m[1], m[1]
		default:
			g.last = m[1]
		}
	}
	for _, k := range kinds {
		g := groups[k]
		if more := g.n - warningsShown; more > 0 {
			clients := "client " + g.first
			if more > 1 {
				clients = "clients " + g.first + " to " + g.last
			}
			out = append(out, fmt.Sprintf("%s more %s %s (%s)", thousands(more), pluralNoun(more, "client"), k, clients))
		}
	}
	return out
}

func pluralNoun(n int, noun string) string {
	if n == 1 {
		return noun
	}
	return noun + "s"
}

// thousands writes n with commas between groups of three digits.
func thousands(n int) string {
	s := strconv.Itoa(n)
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}
