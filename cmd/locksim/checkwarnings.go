package main

import (
	"fmt"
	"strconv"
	"strings"
)

// perClientKinds are the warnings checker.Warnings says of one client,
// as "client <n> <kind>" and the client's detail.
var perClientKinds = []string{"never acquired the lock", "never tried to acquire the lock"}

// perClientWarning splits a warning about one client into the client's
// number and the warning's kind; ok is false for any other warning. A
// history of a million clients has as many such lines, so they are read
// without a regular expression.
func perClientWarning(w string) (client, kind string, ok bool) {
	rest, found := strings.CutPrefix(w, "client ")
	if !found {
		return "", "", false
	}
	i := 0
	for i < len(rest) && rest[i] >= '0' && rest[i] <= '9' {
		i++
	}
	if i == 0 || i == len(rest) || rest[i] != ' ' {
		return "", "", false
	}
	for _, k := range perClientKinds {
		if strings.HasPrefix(rest[i+1:], k) {
			return rest[:i], k, true
		}
	}
	return "", "", false
}

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
		client, kind, ok := perClientWarning(w)
		if !ok {
			out = append(out, w)
			continue
		}
		g := groups[kind]
		if g == nil {
			g = &group{}
			groups[kind] = g
			kinds = append(kinds, kind)
		}
		g.n++
		switch {
		case g.n <= warningsShown:
			out = append(out, w)
		case g.n == warningsShown+1:
			g.first, g.last = client, client
		default:
			g.last = client
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
