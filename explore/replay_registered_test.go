package explore

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/locksim/locksim/lock"
	"github.com/locksim/locksim/vocab"
)

var registeredSetnx bool

// registerSetnxOnce registers setnx-expire under a name locksim's own
// binary does not know, as a lock author's module would register theirs.
func registerSetnxOnce(t *testing.T) string {
	const name = "explore-test-setnx-expire"
	if !registeredSetnx {
		info, err := lock.Lookup("setnx-expire")
		require.NoError(t, err)
		info.Name = name
		require.NoError(t, lock.Register(info))
		registeredSetnx = true
	}
	return name
}

// A design registered outside locksim gets a replay instruction that
// works where it is registered (explore.Replay in a go test), not
// `locksim run`, which does not know it; Replay then plays the file and
// passes while the failure it expects is still there. A built-in design's
// instruction is `locksim run`.
func TestReplayOfARegisteredDesign(t *testing.T) {
	algo := registerSetnxOnce(t)
	require.False(t, lock.Builtin(algo))
	require.True(t, lock.Builtin("setnx-expire"))
	out := t.TempDir()
	rep, err := Explore(hostCtx(t), Config{Algorithm: algo, Kinds: []vocab.Kind{"crash-client"}, Runs: 200, MaxFaults: 3,
		Duration: time.Second, MaxShrink: 1, Out: out})
	require.NoError(t, err)
	require.NotEmpty(t, rep.Causes, "%+v", rep.Violations)
	c := rep.Causes[0]
	require.NotEmpty(t, c.Scenario)
	assert.Equal(t, `explore.Replay(t, "`+c.Scenario+`")`, c.Replay)
	summary, err := os.ReadFile(filepath.Join(out, FileSummary))
	require.NoError(t, err)
	assert.NotContains(t, string(summary), "`locksim run ")
	assert.Contains(t, string(summary), "in a go test of the program that registers "+algo)
	assert.Contains(t, strings.Join(rep.Lines(), "\n"), "replay: explore.Replay(t, \"FILE\") in a go test of the program that registers "+algo)

	o := Replay(t, c.Scenario)
	assert.True(t, o.AsExpected, "%+v", o)
	assert.DirExists(t, o.Dir)

	assert.Equal(t, "locksim run /x/a.yaml", replayOf("setnx-expire", "/x/a.yaml"))
}
