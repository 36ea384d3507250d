package suggest

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestDistance(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want int
	}{
		{"", "", 0},
		{"setpx", "setpx", 0},
		{"setpz", "setpx", 1},
		{"redlokc", "redlock", 2},
		{"", "abc", 3},
		{"kitten", "sitting", 3},
	} {
		assert.Equal(t, tc.want, Distance(tc.a, tc.b), "%q %q", tc.a, tc.b)
		assert.Equal(t, tc.want, Distance(tc.b, tc.a), "%q %q", tc.b, tc.a)
	}
}

func TestClosest(t *testing.T) {
	designs := []string{"setnx-expire", "setnx-getset", "setpx", "redlock", "fenced", "redsync"}
	scens := []string{"gc-pause-after-check", "gc-pause-before-check", "crash-holder", "clock-jump"}
	for _, tc := range []struct {
		name  string
		known []string
		want  []string
	}{
		{"setpz", designs, []string{"setpx"}},
		{"SETPX", designs, []string{"setpx"}},
		{"redlokc", designs, []string{"redlock"}},
		{"redsinc", designs, []string{"redsync"}},
		{"paxos", designs, nil},
		{"nosuch", scens, nil},
		{"crash-holdr", scens, []string{"crash-holder"}},
		{"gc-pause", scens, []string{"gc-pause-after-check", "gc-pause-before-check"}},
		{"x", designs, nil},
		{"algo", []string{"algos", "nodes", "clients"}, []string{"algos"}},
		{"worker", []string{"parallel", "runs"}, nil},
	} {
		assert.Equal(t, tc.want, Closest(tc.name, tc.known), tc.name)
	}
}

func TestClosestAtMostThree(t *testing.T) {
	assert.Equal(t, []string{"ab1", "ab2", "ab3"}, Closest("abc", []string{"ab1", "ab2", "ab3", "ab4"}))
}

func TestHint(t *testing.T) {
	assert.Equal(t, " (did you mean setpx?)", Hint("setpz", []string{"setpx", "redlock"}))
	assert.Equal(t, " (did you mean ab1, ab2 or ab3?)", Hint("abc", []string{"ab1", "ab2", "ab3"}))
	assert.Equal(t, " (did you mean ab1 or ab2?)", Hint("abc", []string{"ab1", "ab2", "zzz"}))
	assert.Equal(t, "", Hint("paxos", []string{"setpx", "redlock"}))
}
