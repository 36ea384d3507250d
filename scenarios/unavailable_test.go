package scenarios

import (
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/locksim/locksim/lock"
)

// missingLib is a pinned library whose runtime this machine never has, as
// a process design on a machine without its interpreter or packages.
const missingLib = "missing-runtime"

var registerMissing = sync.OnceFunc(func() {
	if err := lock.RegisterPinned(lock.Pinned{
		Library:  missingLib,
		Versions: []string{"1.0.0", "2.0.0"},
		New: func(v string) lock.Info {
			return lock.Info{
				Name:        missingLib + "@" + v,
				Process:     true,
				Unavailable: func() string { return "its packages are not installed" },
			}
		},
	}); err != nil {
		panic(err)
	}
})

const onlyMissing = `name: only-missing
doc: Names only designs whose runtime this machine lacks.
algorithm: [missing-runtime@1.0.0, missing-runtime@2.0.0]
clients: 2
duration: 1s
faults:
  - kind: pause-client
    client: 0
    when: {point: after-acquire}
    for: 1500ms
expect:
  missing-runtime@1.0.0: unsafe
  missing-runtime@2.0.0: %s
`

// TestFileOfUnavailableDesignsParses: a file that names only designs this
// machine cannot run is the same file on a machine that can, so it parses
// (locksim list and the catalogue's tests work on a fresh clone before
// npm ci); its designs are then skipped as unavailable, with the reason.
// A file whose every design is expected as skip is still refused.
func TestFileOfUnavailableDesignsParses(t *testing.T) {
	registerMissing()
	s, err := Parse("only-missing.yaml", []byte(fmt.Sprintf(onlyMissing, "safe")))
	require.NoError(t, err)
	assert.Contains(t, s.cannotRun(missingLib+"@1.0.0"), "its packages are not installed")

	_, err = Parse("only-missing.yaml", []byte(fmt.Sprintf(onlyMissing, `{verdict: skip, reason: "not this version"}`)))
	require.NoError(t, err, "one design left to run on a machine that has it")

	all := fmt.Sprintf(onlyMissing, `{verdict: skip, reason: "not this version"}`)
	all = strings.Replace(all, "missing-runtime@1.0.0: unsafe", `missing-runtime@1.0.0: {verdict: skip, reason: "not this version"}`, 1)
	_, err = Parse("only-missing.yaml", []byte(all))
	require.ErrorContains(t, err, "nothing would run")
}
