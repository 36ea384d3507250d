package scenarios

import (
	"testing"

	"github.com/locksim/locksim/vocab"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestBackendReasonFirst: the reason a (scenario, design) pair is refused
// is the first that applies in a fixed order: what the backend cannot do
// (on --addrs: process control; on another backend: what the file needs
// of its own), then what the design cannot take or the scenario skips it
// for; a refusal names the design asked for, never another the file
// covers. Checked on the external backend and on a --backend override.
func TestBackendReasonFirst(t *testing.T) {
	addrs := []string{"192.0.2.1:6379", "192.0.2.2:6379", "192.0.2.3:6379"}
	// Two nodes killed for good: redlock, the only design the file
	// names, could never reach a majority.
	const twoDown = "nodes: 3\nduration: 300ms\nfaults:\n  - {kind: kill-node, node: 0, at: 10ms}\n  - {kind: kill-node, node: 1, at: 10ms}\n"
	onlyRedlock := "name: only\nalgorithm: redlock\n" + twoDown
	skipRedlock := "name: skipping\nalgorithm: [redlock, setpx]\n" + twoDown + "expect: {redlock: {verdict: skip, reason: no majority}, setpx: any}\n"
	// Every design but redlock expected as skip, for a reason of the
	// scenario's own; persistence needs the redis backend.
	fsync := "name: fsync\nbackend: redis\npersistence: always\nnodes: 3\nexpect: {redlock: any, \"*\": {verdict: skip, reason: a Redlock scenario}}\n"
	for _, tc := range []struct {
		name, yaml, algo string
		o                Servers
		backend          string // --backend
		want             []string
		not              []string // reasons that must not hide it
		skipped          string   // none wanted: the design is skipped with this reason
	}{
		{"external: process control, not the file's design", onlyRedlock, "setpx", Servers{Addrs: addrs}, "",
			[]string{"kill-node", "process control", "external backend"}, []string{"redlock", "majority"}, ""},
		{"external: process control before the design's refusal", onlyRedlock, "redlock", Servers{Addrs: addrs}, "",
			[]string{"kill-node", "process control"}, []string{"majority"}, ""},
		{"external: process control before an expected skip", skipRedlock, "redlock", Servers{Addrs: addrs}, "",
			[]string{"kill-node", "process control"}, []string{"no majority"}, ""},
		{"own backend: the design given takes the file", onlyRedlock, "setpx", Servers{}, "", nil, nil, ""},
		{"own backend: the design's refusal names it", onlyRedlock, "redlock", Servers{}, "",
			[]string{"redlock can never reach a majority"}, nil, ""},
		{"own backend: the expected skip", skipRedlock, "redlock", Servers{}, "", nil, nil, "no majority"},
		{"--backend miniredis: persistence before an expected skip", fsync, "setpx", Servers{}, "miniredis",
			[]string{"persistence", "backend: redis"}, []string{"a Redlock scenario"}, ""},
		{"own backend redis: the expected skip", fsync, "setpx", Servers{}, "", nil, nil, "a Redlock scenario"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := Parse(tc.name+".yaml", []byte(tc.yaml))
			require.NoError(t, err, "the file loads whatever design will run it")
			if tc.backend != "" {
				require.NoError(t, s.Override(Overrides{Backend: tc.backend}))
			}
			refused := s.BackendRefuses(tc.algo, tc.o)
			if exp, ok := s.Expect(tc.algo); !ok || exp.Verdict != vocab.Skip {
				_, err := s.RunConfig(tc.algo, tc.o)
				if refused == nil {
					refused = err
				}
				assert.Equal(t, refused, err, "RunConfig gives the backend's reason first")
			} else {
				// Plan refuses before it would skip, and skips
				// before anything runs.
				p, err := s.Plan(tc.algo, Servers{Addrs: tc.o.Addrs})
				assert.Equal(t, refused, err)
				assert.Equal(t, tc.skipped, p.Skipped)
			}
			if tc.want == nil {
				assert.NoError(t, refused)
				return
			}
			require.Error(t, refused)
			var e *Error
			assert.ErrorAs(t, refused, &e, "one line naming the field")
			for _, w := range tc.want {
				assert.Contains(t, refused.Error(), w)
			}
			for _, n := range tc.not {
				assert.NotContains(t, refused.Error(), n)
			}
		})
	}
}
