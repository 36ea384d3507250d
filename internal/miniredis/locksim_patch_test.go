package miniredis

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestPatchIsTheOnlyChange checks that locksim.patch, applied to the
// upstream file it was made against (upstream/cmd_scripting.go.orig,
// imports rewritten to this path), gives this copy's cmd_scripting.go:
// the patch says exactly what locksim changed, and update.sh can apply it
// to a new release.
func TestPatchIsTheOnlyChange(t *testing.T) {
	bin, err := exec.LookPath("patch")
	if err != nil {
		if os.Getenv("LOCKSIM_REQUIRE_REDIS") == "1" {
			t.Fatal("patch is missing (apt-get install patch)")
		}
		t.Skip("skipping: patch is missing (apt-get install patch)")
	}
	out := filepath.Join(t.TempDir(), "cmd_scripting.go")
	cmd := exec.Command(bin, "--quiet", "-o", out, "upstream/cmd_scripting.go.orig", "locksim.patch")
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("locksim.patch does not apply to upstream/cmd_scripting.go.orig: %v\n%s", err, b)
	}
	got, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile("cmd_scripting.go")
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != string(want) {
		t.Fatal("upstream/cmd_scripting.go.orig + locksim.patch differs from cmd_scripting.go: regenerate the patch with\n" +
			"  diff -u --label a/cmd_scripting.go --label b/cmd_scripting.go upstream/cmd_scripting.go.orig cmd_scripting.go > locksim.patch")
	}
}
