package server

import (
	"bufio"
	"fmt"
	"io"
	"reflect"
	"strings"
	"testing"
	"testing/iotest"
)

// TestReadArrayReadsAsUpstream reads commands whose lines and strings fit
// the reader's buffer, outgrow it and arrive a byte at a time: readLine's
// and the buffered string's paths, and upstream's copies beside them,
// give the same arguments.
func TestReadArrayReadsAsUpstream(t *testing.T) {
	long := strings.Repeat("x", 100)
	cmds := [][]string{
		{"EVALSHA", "0123456789abcdef", "1", "locksim:0", "c0-1", "500"},
		{"SET", long, ""},
		{"GET", "k"},
	}
	var wire strings.Builder
	for _, c := range cmds {
		fmt.Fprintf(&wire, "*%d\r\n", len(c))
		for _, a := range c {
			fmt.Fprintf(&wire, "$%d\r\n%s\r\n", len(a), a)
		}
	}
	fmt.Fprintf(&wire, "*1\r\n+%s\r\n", long) // a line longer than a small buffer
	want := append(cmds, []string{long})
	for _, tc := range []struct {
		name string
		r    func() io.Reader
		size int
	}{
		{"buffered", func() io.Reader { return strings.NewReader(wire.String()) }, 4096},
		{"small buffer", func() io.Reader { return strings.NewReader(wire.String()) }, 16},
		{"a byte at a time", func() io.Reader { return iotest.OneByteReader(strings.NewReader(wire.String())) }, 16},
	} {
		rd := bufio.NewReaderSize(tc.r(), tc.size)
		for i, w := range want {
			got, err := readArray(rd)
			if err != nil || !reflect.DeepEqual(got, w) {
				t.Fatalf("%s: command %d: got %q, %v; want %q", tc.name, i, got, err, w)
			}
		}
		if _, err := readArray(rd); err != io.EOF {
			t.Errorf("%s: after the last command: %v, want EOF", tc.name, err)
		}
	}
}
