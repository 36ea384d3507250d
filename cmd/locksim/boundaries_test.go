package main

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// boundaries are the imports a package must never reach, directly or
// not: the checker, the history and the report writer read a run's data
// and link no Redis, network or simulator code; the vocabulary is a leaf;
// the scenario loader does not draw.
var boundaries = map[string][]string{
	"vocab":           {modulePath},
	"history":         {redisCode, modulePath + "/sim", modulePath + "/lock"},
	"checker":         {redisCode, modulePath + "/sim", modulePath + "/lock"},
	"internal/report": {redisCode, modulePath + "/sim", modulePath + "/lock"},
	"scenarios":       {modulePath + "/internal/report", modulePath + "/run"},
	"sim/node":        {modulePath + "/sim"},
	"sim/network":     {modulePath + "/sim", modulePath + "/sim/node"},
	"sim/recorder":    {modulePath + "/sim", modulePath + "/sim/node", modulePath + "/sim/network"},
}

const (
	modulePath = "github.com/locksim/locksim"
	// redisCode stands for the Redis and network code: miniredis, toxiproxy
	// and go-redis.
	redisCode = "redis+network"
)

// reaches reports whether dep is banned by b: b itself or a package
// under it (its own subpackages aside when b is the package itself).
func reaches(dep, b, self string) bool {
	if b == redisCode {
		return strings.Contains(dep, "miniredis") || strings.Contains(dep, "toxiproxy") || strings.Contains(dep, "go-redis")
	}
	if b == modulePath {
		return strings.HasPrefix(dep, modulePath+"/") && dep != self
	}
	return dep == b || (strings.HasPrefix(dep, b+"/") && !strings.HasPrefix(self, b+"/") && !strings.HasPrefix(dep, self))
}

// TestPackageBoundaries lists each package's dependencies with go list
// and wants none of what it must not reach.
func TestPackageBoundaries(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("go command not on PATH")
	}
	for pkg, banned := range boundaries {
		out, err := exec.Command("go", "list", "-deps", "../../"+pkg).CombinedOutput()
		require.NoError(t, err, string(out))
		self := modulePath + "/" + pkg
		for _, dep := range strings.Split(strings.TrimSpace(string(out)), "\n") {
			for _, b := range banned {
				assert.False(t, reaches(dep, b, self), "%s depends on %s", pkg, dep)
			}
		}
	}
}
