package scenarios

import (
	"errors"
	"io/fs"
	"strings"
	"testing"
)

// FuzzParse: no input makes Parse panic, every failure is one *Error on
// one line, and a parsed file resolves for at least one design it covers
// unless each of them lacks what it needs. The seed corpus (run by plain go test) is the test inputs
// and the catalogue.
func FuzzParse(f *testing.F) {
	f.Add([]byte(good))
	f.Add([]byte("name: x\nfaults: [{kind: pause-client, client: 0, when: {point: after-check}, until: {point: after-enter}}]\n"))
	f.Add([]byte("name: x\nexpect: {setpx: {verdict: skip, reason: r}, \"*\": any}\n"))
	f.Add([]byte("name: x\nhold: &h 10ms\nthink: *h\n"))
	f.Add([]byte("{name: x, algorithm: [setpx, ~], options: ~, faults: ~, expect: ~}"))
	f.Add([]byte("name: !!binary aGVsbG8=\nnodes: 0x10\nseed: 1_000\n"))
	f.Add([]byte("? [a, b]\n: c\n"))
	f.Add([]byte("name: x\ngroups: [[1, 2]]\n"))
	files, _ := fs.Glob(catalogue, "catalogue/*.yaml")
	for _, p := range files {
		data, _ := catalogue.ReadFile(p)
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := Parse("fuzz.yaml", data)
		if err != nil {
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("error of type %T: %v", err, err)
			}
			if strings.Contains(err.Error(), "\n") {
				t.Fatalf("error on more than one line: %q", err)
			}
			return
		}
		// A file loads when a design it covers takes it, or when each
		// refuses it for what that design lacks (checkDesign), which is
		// said when the design is resolved for a run: --algos may name
		// another. A refusal is one line naming the field.
		resolved, designRefused := 0, 0
		for _, algo := range s.Algorithms() {
			if s.checkDesign(algo) != nil {
				designRefused++
			}
			_, err := s.Resolved(algo)
			if err == nil {
				resolved++
				continue
			}
			var e *Error
			if !errors.As(err, &e) || strings.Contains(err.Error(), "\n") {
				t.Fatalf("parsed, but Resolved(%s) fails with %T on more than one line: %v", algo, err, err)
			}
		}
		if resolved == 0 && designRefused < len(s.Algorithms()) {
			t.Fatalf("parsed, but no design it covers resolves, and not every one lacks what it needs")
		}
	})
}
