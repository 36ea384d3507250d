package adapter

import (
	"strings"
	"testing"
)

// TestGoPinBuildFailsInOneLine: what keeps a pinned version from being
// built is one line naming the version: its pin missing from the source
// tree, or no go command to build it with.
func TestGoPinBuildFailsInOneLine(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir()) // nothing built yet
	_, err := GoPin{Library: "redsync", Version: "v0.0.0", Files: []string{"main.go"}}.build()
	if err == nil || !strings.Contains(err.Error(), "redsync@v0.0.0: its adapter source is missing") || strings.Contains(err.Error(), "\n") {
		t.Errorf("missing pin: %v", err)
	}
	t.Setenv("PATH", "")
	_, err = redsyncPin("v4.18.0").build()
	if err == nil || !strings.Contains(err.Error(), "redsync@v4.18.0: the go command is not on PATH") || strings.Contains(err.Error(), "\n") {
		t.Errorf("no go command: %v", err)
	}
}
