package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// asMainEnv makes the test binary run main itself: the disk-full test needs
// a process of its own to put a file-size limit on.
const (
	asMainEnv = "LOCKSIM_TEST_AS_MAIN"
	fsizeEnv  = "LOCKSIM_TEST_FSIZE"
)

// runAsMain is main under the file-size limit fsizeEnv gives (bytes). Go
// ignores SIGXFSZ, so a write past the limit fails with EFBIG, as a write
// to a full disk fails with ENOSPC.
func runAsMain() {
	if v := os.Getenv(fsizeEnv); v != "" {
		n, err := strconv.ParseUint(v, 10, 64)
		if err == nil {
			err = syscall.Setrlimit(syscall.RLIMIT_FSIZE, &syscall.Rlimit{Cur: n, Max: n})
		}
		if err != nil {
			panic(err)
		}
	}
	main()
}

// TestReportThatCannotBeWrittenKeepsTheHistory: when the disk fills up
// while the report is written, the run is exit 3 with one line, leaves no
// run directory that looks complete, and keeps the history in the file the
// line names.
func TestReportThatCannotBeWrittenKeepsTheHistory(t *testing.T) {
	tmp := t.TempDir()
	out := filepath.Join(t.TempDir(), "results")
	// A short run's history is a few KB; check.html alone is over 30 KB.
	cmd := exec.Command(os.Args[0], "run", "--algos", "setpx", "--clients", "1", "--duration", "100ms", "--out", out)
	cmd.Env = append(os.Environ(), asMainEnv+"=1", fsizeEnv+"=24576", "TMPDIR="+tmp)
	b, err := cmd.CombinedOutput()
	output := string(b)
	var ee *exec.ExitError
	require.ErrorAs(t, err, &ee, output)
	assert.Equal(t, exitHarness, ee.ExitCode(), output)
	last := strings.TrimSpace(output)
	last = last[strings.LastIndexByte(last, '\n')+1:]
	assert.Contains(t, last, "file too large")
	m := regexp.MustCompile(`history is kept in (\S+\.jsonl)`).FindStringSubmatch(last)
	require.NotNil(t, m, "the error names where the history is: %s", output)
	assert.Equal(t, tmp, filepath.Dir(m[1]))
	hist, err := os.ReadFile(m[1])
	require.NoError(t, err)
	assert.Contains(t, string(hist), `"kind":"acquire"`, "the kept file is the history")
	runs, _ := filepath.Glob(filepath.Join(out, "locksim", "adhoc", "*"))
	assert.Empty(t, runs, "no run directory, complete-looking or not")
}
