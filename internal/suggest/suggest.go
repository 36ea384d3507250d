// Package suggest finds the known names closest to a mistyped one, so that
// an error about an unknown scenario, design or flag says "did you mean
// X?" in one line instead of listing every name there is.
package suggest

import (
	"fmt"
	"strings"
)

// maxSuggestions bounds how many names one hint offers.
const maxSuggestions = 3

// Closest returns the known names nearest to name by edit distance
// (insertions, deletions and substitutions of single characters, ASCII
// case ignored), at most three, in the order known lists them. A name
// qualifies when it is within a third of the typed name's length (at
// least 1, at most 3 edits), or when the typed name is a prefix of it
// ("gc-pause" for "gc-pause-after-check"); nil when none does.
func Closest(name string, known []string) []string {
	typed := strings.ToLower(name)
	limit := min(max(len(typed)/3, 1), 3)
	best := limit + 1
	var out []string
	for _, k := range known {
		d := Distance(typed, strings.ToLower(k))
		if len(typed) >= 3 && strings.HasPrefix(strings.ToLower(k), typed) {
			d = min(d, limit) // a prefix counts as near, never nearer than a true near miss
		}
		switch {
		case d > limit || d > best:
		case d < best:
			best, out = d, []string{k}
		case len(out) < maxSuggestions:
			out = append(out, k)
		}
	}
	return out
}

// Hint is Closest as the end of an error message: " (did you mean X?)",
// " (did you mean X or Y?)", or "" when no known name is near.
func Hint(name string, known []string) string {
	c := Closest(name, known)
	switch len(c) {
	case 0:
		return ""
	case 1:
		return fmt.Sprintf(" (did you mean %s?)", c[0])
	}
	return fmt.Sprintf(" (did you mean %s or %s?)", strings.Join(c[:len(c)-1], ", "), c[len(c)-1])
}

// Distance is the Levenshtein distance between a and b, in bytes.
func Distance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
