package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// moduleRoot is the module's root, two levels above this package.
func moduleRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs("../..")
	require.NoError(t, err)
	return root
}

func goTool(t *testing.T, dir string, env []string, args ...string) string {
	t.Helper()
	cmd := exec.Command("go", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "go %s in %s:\n%s", strings.Join(args, " "), dir, out)
	return string(out)
}

// TestGoInstall: `go install ./cmd/...` puts both binaries into GOBIN, and
// go.mod has no replace directive, which would make `go install
// github.com/locksim/locksim/cmd/...@version` refuse the module.
func TestGoInstall(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: builds the binaries")
	}
	root := moduleRoot(t)
	mod, err := os.ReadFile(filepath.Join(root, "go.mod"))
	require.NoError(t, err)
	assert.NotContains(t, string(mod), "replace", "a replace directive breaks go install ...@version")
	bin := t.TempDir()
	goTool(t, root, []string{"GOBIN=" + bin}, "install", "./cmd/...")
	for _, name := range []string{"locksim", "lockbench"} {
		fi, err := os.Stat(filepath.Join(bin, name))
		require.NoError(t, err, "go install wrote %s", name)
		assert.NotZero(t, fi.Mode()&0o111, "%s is executable", name)
	}
	out, err := exec.Command(filepath.Join(bin, "locksim"), "algos").CombinedOutput()
	require.NoError(t, err, "%s", out)
	assert.Contains(t, string(out), "setpx")
}

// TestImportingModuleGetsThePatchedMiniredis: a module that imports
// locksim builds, and the miniredis it links is locksim's own copy (with
// the Lua-state change), never upstream's.
func TestImportingModuleGetsThePatchedMiniredis(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: builds a module")
	}
	root := moduleRoot(t)
	dir := t.TempDir()
	sum, err := os.ReadFile(filepath.Join(root, "go.sum"))
	require.NoError(t, err)
	files := map[string]string{
		"go.mod": "module example.com/uses-locksim\n\ngo 1.26\n\nrequire github.com/locksim/locksim v0.0.0\n\nreplace github.com/locksim/locksim => " + root + "\n",
		"go.sum": string(sum),
		"main.go": `package main

import (
	"fmt"

	"github.com/locksim/locksim/scenarios"
)

func main() {
	s, err := scenarios.Lookup("crash-holder")
	fmt.Println(s.Name, err)
}
`,
	}
	for name, body := range files {
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644))
	}
	env := []string{"GOFLAGS=-mod=mod"}
	goTool(t, dir, env, "build", "-o", filepath.Join(dir, "uses"), ".")
	deps := goTool(t, dir, env, "list", "-deps", ".")
	assert.Contains(t, deps, "github.com/locksim/locksim/internal/miniredis\n")
	assert.NotContains(t, deps, "github.com/alicebob/miniredis")
}
