// Package dups finds a value given twice in a list, for the checks of a
// command line's lists (--algos) that both mains and package bench make.
package dups

// First is the first value of xs that an earlier one repeats, in the order
// xs gives them; ok is false when every value is given once.
func First[T comparable](xs []T) (dup T, ok bool) {
	seen := make(map[T]bool, len(xs))
	for _, x := range xs {
		if seen[x] {
			return x, true
		}
		seen[x] = true
	}
	return dup, false
}
