package dups

import "testing"

func TestFirst(t *testing.T) {
	for _, tc := range []struct {
		in   []string
		want string
		ok   bool
	}{
		{nil, "", false},
		{[]string{"setpx"}, "", false},
		{[]string{"setpx", "redlock"}, "", false},
		{[]string{"setpx", "redlock", "setpx"}, "setpx", true},
		// the first value repeated, not the first value that has a repeat
		{[]string{"a", "b", "b", "a"}, "b", true},
		// an empty value given twice is a repeat too
		{[]string{"", ""}, "", true},
	} {
		got, ok := First(tc.in)
		if got != tc.want || ok != tc.ok {
			t.Errorf("First(%q) = %q, %v; want %q, %v", tc.in, got, ok, tc.want, tc.ok)
		}
	}
	if got, ok := First([]int{1, 4, 16, 4}); got != 4 || !ok {
		t.Errorf("First of ints = %d, %v; want 4, true", got, ok)
	}
}
