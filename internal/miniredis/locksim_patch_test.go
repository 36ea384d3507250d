package miniredis

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"testing"
)

// TestPatchIsTheOnlyChange checks that locksim.patch, applied to the
// upstream files it was made against (upstream/<file>.orig, imports
// rewritten to this path), gives this copy's files: the patch says exactly
// what locksim changed, and update.sh can apply it to a new release.
func TestPatchIsTheOnlyChange(t *testing.T) {
	bin, err := exec.LookPath("patch")
	if err != nil {
		if os.Getenv("LOCKSIM_REQUIRE_REDIS") == "1" {
			t.Fatal("patch is missing (apt-get install patch)")
		}
		t.Skip("skipping: patch is missing (apt-get install patch)")
	}
	p, err := os.ReadFile("locksim.patch")
	if err != nil {
		t.Fatal(err)
	}
	files := patchedFiles(p)
	if len(files) == 0 {
		t.Fatal("locksim.patch names no file")
	}
	dir := t.TempDir()
	for _, f := range files {
		orig, err := os.ReadFile(filepath.Join("upstream", f+".orig"))
		if err != nil {
			t.Fatalf("locksim.patch changes %s, but its upstream copy is missing: %v", f, err)
		}
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, f)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, f), orig, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	patchFile, err := filepath.Abs("locksim.patch")
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "--quiet", "-p1", "-d", dir, "-i", patchFile)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("locksim.patch does not apply to upstream/*.orig: %v\n%s", err, b)
	}
	for _, f := range files {
		got, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil {
			t.Fatal(err)
		}
		want, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != string(want) {
			t.Errorf("upstream/%s.orig + locksim.patch differs from %s: regenerate the patch as LOCKSIM.md says", f, f)
		}
	}
}

// patchedFiles are the files a unified diff changes, in its order.
func patchedFiles(patch []byte) []string {
	var files []string
	for _, m := range regexp.MustCompile(`(?m)^\+\+\+ b/(\S+)`).FindAllSubmatch(patch, -1) {
		files = append(files, string(m[1]))
	}
	return files
}
