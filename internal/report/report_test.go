package report

import (
	"bytes"
	"context"
	"encoding/xml"
	"errors"
	"flag"
	"image"
	"image/png"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
	"go.yaml.in/yaml/v3"

	"github.com/locksim/locksim/checker"
	"github.com/locksim/locksim/history"
	"github.com/locksim/locksim/vocab"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden.md and write the example run directories")

// Porcupine checks in goroutines; none may outlive a test.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

var allFiles = []string{FileScenario, FileHistory, FileVerdict, FileCheck, FileSVG, FilePNG, FileSummary}

func listDir(t *testing.T, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	require.NoError(t, err)
	var names []string
	for _, e := range es {
		names = append(names, e.Name())
	}
	return names
}

func TestWriteRunWritesEveryFile(t *testing.T) {
	in := gcPauseRun(t)
	require.Equal(t, vocab.Unsafe, in.Check.Verdict, "fixture: %+v", in.Check.Checks)
	parent := t.TempDir()
	dir := filepath.Join(parent, "run")
	require.NoError(t, WriteRun(context.Background(), dir, in))

	got := listDir(t, dir)
	want := slices.Clone(allFiles)
	slices.Sort(want)
	assert.Equal(t, want, got)
	assert.Equal(t, []string{"run"}, listDir(t, parent), "no temporary directory is left beside the run")
	for _, f := range allFiles {
		fi, err := os.Stat(filepath.Join(dir, f))
		require.NoError(t, err)
		assert.NotZero(t, fi.Size(), f)
	}
	fi, err := os.Stat(dir)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o755), fi.Mode().Perm(), "a run directory is readable like any other")

	y, err := os.ReadFile(filepath.Join(dir, FileScenario))
	require.NoError(t, err)
	assert.Equal(t, string(in.ScenarioYAML), string(y), "scenario.yaml is written as given")

	f, err := os.Open(filepath.Join(dir, FileHistory))
	require.NoError(t, err)
	defer f.Close()
	h, err := history.ReadJSONL(f)
	require.NoError(t, err)
	assert.Equal(t, in.History, h, "history.jsonl re-reads as the history")
	// ... and re-checks to the same verdict: the run directory is enough.
	assert.Equal(t, in.Check.Verdict, checker.Check(h, checker.Config{}).Verdict)

	page, err := os.ReadFile(filepath.Join(dir, FileCheck))
	require.NoError(t, err)
	assert.Contains(t, string(page), "<html")
	assert.Contains(t, string(page), "pause-client 0", "check.html carries the fault windows")
}

// Fewer pictures leave out exactly their files, and what is written
// links only to what is there.
func TestWriteRunPictures(t *testing.T) {
	for _, tc := range []struct {
		pictures Pictures
		missing  []string
	}{
		{VectorPictures, []string{FilePNG}},
		{NoPictures, []string{FileCheck, FileSVG, FilePNG}},
	} {
		in := gcPauseRun(t)
		in.Pictures = tc.pictures
		dir := filepath.Join(t.TempDir(), "run")
		require.NoError(t, WriteRun(context.Background(), dir, in))
		var want []string
		for _, f := range allFiles {
			if !slices.Contains(tc.missing, f) {
				want = append(want, f)
			}
		}
		slices.Sort(want)
		assert.Equal(t, want, listDir(t, dir), "pictures %d", tc.pictures)
		for _, f := range []string{FileSummary, FileCheck} {
			b, err := os.ReadFile(filepath.Join(dir, f))
			if f == FileCheck && tc.pictures == NoPictures {
				continue
			}
			require.NoError(t, err)
			for _, gone := range tc.missing {
				assert.False(t, strings.Contains(string(b), "("+gone+")") || strings.Contains(string(b), `href="`+gone+`"`),
					"%s links to %s, which is not written", f, gone)
			}
		}
	}
}

func TestVerdictRoundTrip(t *testing.T) {
	in := gcPauseRun(t)
	dir := filepath.Join(t.TempDir(), "run")
	require.NoError(t, WriteRun(context.Background(), dir, in))
	v, err := ReadVerdict(filepath.Join(dir, FileVerdict))
	require.NoError(t, err)

	assert.Equal(t, "gc-pause-after-check", v.Scenario)
	assert.Equal(t, "redlock", v.Algorithm)
	assert.Equal(t, vocab.Unsafe, v.Verdict)
	assert.Equal(t, vocab.Unsafe, v.Expected)
	assert.Equal(t, map[string]vocab.Verdict{"exclusion": vocab.Unsafe, "claim": vocab.Safe}, v.ExpectedChecks)
	assert.True(t, v.AsExpected)
	assert.False(t, v.Incomplete)
	assert.True(t, v.SweepAgrees)
	assert.Equal(t, len(in.History.Ops), v.Ops)
	assert.Equal(t, uint64(6), v.Seed)
	assert.True(t, testStarted.Equal(v.Started))
	assert.InDelta(t, 2100, v.WallMS, 1e-9)
	assert.InDelta(t, 3, v.CheckElapsedMS, 1e-9)
	assert.Equal(t, "linux/amd64, 2 cores", v.Machine)
	assert.Equal(t, []string{"fault 3 crash-client 0 (client 0 at before-release #1) never fired"}, v.Notes)

	require.Len(t, v.Checks, 4)
	for _, name := range []string{"exclusion", "claim", "fencing", "liveness"} {
		assert.Equal(t, in.Check.Check(name).Verdict, v.Checks[name].Verdict, name)
		assert.Equal(t, in.Check.Check(name).Detail, v.Checks[name].Detail, name)
	}
	ex := v.Checks["exclusion"]
	require.NotEmpty(t, ex.Witnesses)
	w := ex.Witnesses[0]
	assert.Equal(t, [2]int{1, 0}, [2]int{w.A.Client, w.B.Client}, "client 0 came in while client 1 was inside")
	assert.Equal(t, msd(663), w.B.Start)
	require.NotEmpty(t, w.Faults)
	assert.Equal(t, 1, w.Faults[0].ID)

	assert.Equal(t, "redlock", v.Config.Algorithm)
	assert.Equal(t, "miniredis", v.Config.Backend)
	assert.Equal(t, 5, v.Config.Nodes)
	assert.Equal(t, 3, v.Config.Clients)
	assert.Equal(t, 500*time.Millisecond, v.Config.TTL.D())
	assert.Equal(t, 40*time.Millisecond, v.Config.Hold.D())
	assert.Equal(t, 2*time.Second, v.Config.Duration.D())
	assert.True(t, v.Config.ValidityCheck)
	assert.Nil(t, v.Config.Retries, "no retry bound: until the run ends")

	raw, err := os.ReadFile(filepath.Join(dir, FileVerdict))
	require.NoError(t, err)
	for _, key := range []string{`"as_expected": true`, `"ttl": "500ms"`, `"sweep_agrees": true`, `"incomplete": false`, `"check_elapsed_ms": 3`} {
		assert.Contains(t, string(raw), key)
	}
}

func TestVerdictExpectations(t *testing.T) {
	for _, tc := range []struct {
		name     string
		h        history.History
		expected string
		checks   map[string]vocab.Verdict
		misses   []string // what the caller's comparison found
		verdict  vocab.Verdict
		as       bool
	}{
		{"unsafe expected unsafe", gcPause(), "unsafe", nil, nil, vocab.Unsafe, true},
		{"unsafe with nothing expected", gcPause(), "", nil, []string{"verdict"}, vocab.Unsafe, false},
		{"unsafe, check mismatch", gcPause(), "unsafe", map[string]vocab.Verdict{"claim": "unsafe"}, []string{"claim"}, vocab.Unsafe, false},
		{"fenced safe with nothing expected", fencedPause(), "", nil, nil, vocab.Safe, true},
		{"deadlock expected deadlock", stuck(), "deadlock", map[string]vocab.Verdict{"liveness": "deadlock"}, nil, vocab.Deadlock, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := newRun(t, "s", "redlock", tc.h, 2, tc.expected)
			in.ExpectedChecks, in.Misses = tc.checks, tc.misses
			dir := filepath.Join(t.TempDir(), "run")
			require.NoError(t, WriteRun(context.Background(), dir, in))
			v, err := ReadVerdict(filepath.Join(dir, FileVerdict))
			require.NoError(t, err)
			assert.Equal(t, tc.verdict, v.Verdict)
			assert.Equal(t, vocab.Verdict(tc.expected), v.Expected)
			assert.Equal(t, tc.as, v.AsExpected)
		})
	}
}

func TestIncompleteRunIsNeverAsExpected(t *testing.T) {
	in := newRun(t, "s", "redlock", fencedPause(), 2, "safe")
	in.Incomplete = true
	dir := filepath.Join(t.TempDir(), "run")
	require.NoError(t, WriteRun(context.Background(), dir, in))
	v, err := ReadVerdict(filepath.Join(dir, FileVerdict))
	require.NoError(t, err)
	assert.Equal(t, vocab.Safe, v.Verdict)
	assert.True(t, v.Incomplete)
	assert.False(t, v.AsExpected, "a partial history passes nothing")
	sum, err := os.ReadFile(filepath.Join(dir, FileSummary))
	require.NoError(t, err)
	assert.Contains(t, string(sum), "**incomplete run — not a verdict.**")
}

func TestSummaryTellsTheWitness(t *testing.T) {
	in := gcPauseRun(t)
	var b bytes.Buffer
	require.NoError(t, writeSummary(&b, in))
	s := b.String()
	for _, want := range []string{
		"# gc-pause-after-check — redlock",
		"**Verdict: unsafe** · expected unsafe and 2 check verdict(s) ✓ as expected",
		"| exclusion | **unsafe** | unsafe ✓ |",
		"| claim | safe | safe ✓ |",
		"client 0 entered at 663 ms while client 1 was inside since 660 ms (it left at 760 ms); overlap 663–760 ms",
		"; 1 ms after fault 1 pause-client 0 (client 0 at after-check #1, for 1s, until client 1 at after-enter #1) ended (453–662 ms)",
		"⚠ **fault 3 crash-client 0 (client 0 at before-release #1) never fired** — an unfired trigger",
		"acquires 20 ok / 7 fail / 0 unknown",
		"[timeline.png](timeline.png)",
		"[check.html](check.html)",
		"linux/amd64, 2 cores",
	} {
		assert.Contains(t, s, want)
	}
	assert.NotContains(t, s, "incomplete")
	assert.LessOrEqual(t, strings.Count(s, "\n"), 40, "summary.md fits on one screen")

	golden := filepath.Join("testdata", "gc-pause.golden.md")
	if *update {
		require.NoError(t, os.MkdirAll("testdata", 0o755))
		require.NoError(t, os.WriteFile(golden, b.Bytes(), 0o644))
	}
	want, err := os.ReadFile(golden)
	require.NoError(t, err, "run go test -update to create it")
	assert.Equal(t, string(want), s, "summary.md changed; review and run go test -update")
}

func TestSummaryMismatchAndDeadlock(t *testing.T) {
	in := newRun(t, "crash-between-setnx-expire", "setnx-expire", stuck(), 2, "safe")
	in.Misses = []string{"verdict"}
	var b bytes.Buffer
	require.NoError(t, writeSummary(&b, in))
	s := b.String()
	assert.Contains(t, s, "**Verdict: deadlock** · expected safe ✗ **not as expected**")
	assert.Contains(t, s, "| liveness | **deadlock** |")
	assert.Contains(t, s, "acquires 0 ok / 2 fail / 1 unknown")
	assert.Contains(t, s, "F1 crash-client 0 (client 0 at between-setnx-and-expire #1): at 2 ms")
	assert.NotContains(t, s, "## Witnesses", "a deadlock has no overlap to tell")
}

func TestTimelinePNG(t *testing.T) {
	for _, tc := range []struct {
		name    string
		h       history.History
		clients int
		framed  bool // a red witness frame is drawn
	}{
		{"unsafe", gcPause(), 3, true},
		{"safe", fencedPause(), 2, false},
		{"deadlock", stuck(), 2, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := newRun(t, "s", "redlock", tc.h, tc.clients, "")
			dir := filepath.Join(t.TempDir(), "run")
			require.NoError(t, WriteRun(context.Background(), dir, in))
			f, err := os.Open(filepath.Join(dir, FilePNG))
			require.NoError(t, err)
			defer f.Close()
			img, err := png.Decode(f)
			require.NoError(t, err)
			tl, err := newTimeline(context.Background(), in)
			require.NoError(t, err)
			assert.Equal(t, image.Pt(1400, int(math.Round(float64(tl.h)*dpi/72))), img.Bounds().Size())
			assert.Equal(t, tc.framed, len(tl.panels) == 2, "a witness gets a zoomed panel")
			frame := countColor(img, red, 0)
			if tc.framed {
				assert.Greater(t, frame, 200, "the witness is framed in red")
			} else if tc.name == "safe" {
				// the rejected write's cross is the only red
				assert.Less(t, frame, 200, "no witness frame on a safe run")
			} else {
				assert.Zero(t, frame, "nothing red on a run without witnesses or rejected writes")
			}
		})
	}
}

// countColor counts pixels within tol of c on every channel.
func countColor(img image.Image, c interface{ RGBA() (r, g, b, a uint32) }, tol int) int {
	wr, wg, wb, _ := c.RGBA()
	n := 0
	b := img.Bounds()
	near := func(x, y uint32) bool { d := int(x>>8) - int(y>>8); return d <= tol && d >= -tol }
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bb, _ := img.At(x, y).RGBA()
			if near(r, wr) && near(g, wg) && near(bb, wb) {
				n++
			}
		}
	}
	return n
}

func TestTimelineSVGIsXML(t *testing.T) {
	in := gcPauseRun(t)
	dir := filepath.Join(t.TempDir(), "run")
	require.NoError(t, WriteRun(context.Background(), dir, in))
	b, err := os.ReadFile(filepath.Join(dir, FileSVG))
	require.NoError(t, err)
	dec := xml.NewDecoder(bytes.NewReader(b))
	var root string
	var texts []string
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		require.NoError(t, err, "timeline.svg is well-formed XML")
		switch tok := tok.(type) {
		case xml.StartElement:
			if root == "" {
				root = tok.Name.Local
			}
		case xml.CharData:
			texts = append(texts, string(tok))
		}
	}
	assert.Equal(t, "svg", root)
	all := strings.Join(texts, "")
	for _, want := range []string{"verdict: UNSAFE", "client 0", "client 2", "liveness probe", "F1 pause-client 0", "witness 1: overlap client 1 / client 0"} {
		assert.Contains(t, all, want, "timeline.svg text")
	}
}

func TestWriteRunFromFlagsWritesConfigYAML(t *testing.T) {
	in := newRun(t, "flags", "redlock", fencedPause(), 2, "")
	in.Setup.Retries = &[]int{3}[0]
	in.Setup.Faults = []string{"pause-client 0 (at 100ms, for 1s)"}
	dir := filepath.Join(t.TempDir(), "run")
	require.NoError(t, WriteRun(context.Background(), dir, in))
	b, err := os.ReadFile(filepath.Join(dir, FileScenario))
	require.NoError(t, err)
	var back map[string]any
	require.NoError(t, yaml.Unmarshal(b, &back), "scenario.yaml is YAML:\n%s", b)
	assert.Equal(t, "redlock", back["algorithm"])
	assert.Equal(t, 5, back["nodes"])
	opts, _ := back["options"].(map[string]any)
	assert.Equal(t, "500ms", opts["ttl"])
	assert.Equal(t, 3, opts["retries"], "retries counts attempts after the first")
	assert.Contains(t, string(b), "#   - pause-client 0 (at 100ms, for 1s)")

	v, err := ReadVerdict(filepath.Join(dir, FileVerdict))
	require.NoError(t, err)
	assert.Equal(t, []string{"pause-client 0 (at 100ms, for 1s)"}, v.Config.Faults)
	require.NotNil(t, v.Config.Retries)
	assert.Equal(t, 3, *v.Config.Retries)
}

// A failed step leaves neither the run directory nor its temporary twin.
func TestWriteRunIsAtomic(t *testing.T) {
	for _, step := range allFiles {
		t.Run("fail at "+step, func(t *testing.T) {
			defer func(old func(string) error) { beforeWrite = old }(beforeWrite)
			beforeWrite = func(name string) error {
				if name == step {
					return errors.New("disk full")
				}
				return nil
			}
			parent := t.TempDir()
			dir := filepath.Join(parent, "run")
			err := WriteRun(context.Background(), dir, gcPauseRun(t))
			require.Error(t, err)
			assert.Contains(t, err.Error(), step)
			assert.Empty(t, listDir(t, parent), "nothing is left after a failed write")
		})
	}
}

// An interrupted run can have an empty history; its report still says
// what there is.
func TestWriteRunEmptyIncompleteHistory(t *testing.T) {
	in := newRun(t, "s", "redlock", history.History{}, 2, "safe")
	in.Incomplete = true
	dir := filepath.Join(t.TempDir(), "run")
	require.NoError(t, WriteRun(context.Background(), dir, in))
	assert.Len(t, listDir(t, dir), len(allFiles))
	v, err := ReadVerdict(filepath.Join(dir, FileVerdict))
	require.NoError(t, err)
	assert.False(t, v.AsExpected)
	assert.Equal(t, []string{}, v.Notes)
}

func TestWriteRunParentIsAFile(t *testing.T) {
	parent := t.TempDir()
	file := filepath.Join(parent, "file")
	require.NoError(t, os.WriteFile(file, []byte("x"), 0o644))
	err := WriteRun(context.Background(), filepath.Join(file, "run"), gcPauseRun(t))
	require.Error(t, err)
	assert.Equal(t, []string{"file"}, listDir(t, parent))
}

func TestWriteRunWithoutVerboseCheckFails(t *testing.T) {
	in := gcPauseRun(t)
	in.Check = checker.Check(in.History, checker.Config{}) // no linearization info
	parent := t.TempDir()
	err := WriteRun(context.Background(), filepath.Join(parent, "run"), in)
	require.Error(t, err, "check.html cannot be drawn")
	assert.Contains(t, err.Error(), "check.html")
	assert.Empty(t, listDir(t, parent))
}

func TestWriteRunUnusableResourceLog(t *testing.T) {
	h := gcPause()
	var first, second int // the resource's first two operations
	for i, op := range h.Ops {
		if op.Seq == 1 {
			first = i
		}
		if op.Seq == 2 {
			second = i
		}
	}
	h.Ops[second].Seq = h.Ops[first].Seq // two operations with one seq: the checker cannot judge exclusion
	in := newRun(t, "s", "redlock", h, 3, "")
	require.Equal(t, vocab.Unknown, in.Check.Check("exclusion").Verdict)
	dir := filepath.Join(t.TempDir(), "run")
	require.NoError(t, WriteRun(context.Background(), dir, in), "the runs that cannot be judged are the ones whose files matter most")
	page, err := os.ReadFile(filepath.Join(dir, FileCheck))
	require.NoError(t, err)
	assert.Contains(t, string(page), "No porcupine visualization")
	assert.Contains(t, string(page), "two operations with seq")
}

func TestWriteRunRefusesAnExistingDir(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "run")
	require.NoError(t, os.Mkdir(dir, 0o755)) // empty: rename(2) would replace it
	err := WriteRun(context.Background(), dir, gcPauseRun(t))
	require.Error(t, err)
	assert.Empty(t, listDir(t, dir), "the existing directory is untouched")
	assert.Equal(t, []string{"run"}, listDir(t, filepath.Dir(dir)))
}

func TestRunDir(t *testing.T) {
	root := t.TempDir()
	started := time.Date(2025, 3, 14, 10, 26, 53, 0, time.FixedZone("CET", 3600))
	first := runDir(t, root, "gc-pause-after-check", "setpx", started, 6)
	assert.Equal(t, filepath.Join(root, "locksim", "gc-pause-after-check", "20250314T092653Z-setpx-s6"), first, "stamped in UTC, named by the design")
	require.NoError(t, WriteRun(context.Background(), first, gcPauseRun(t)))
	second := runDir(t, root, "gc-pause-after-check", "setpx", started, 6)
	assert.Equal(t, first+"-2", second)
	require.NoError(t, os.MkdirAll(second, 0o755))
	assert.Equal(t, first+"-3", runDir(t, root, "gc-pause-after-check", "setpx", started, 6))
	assert.Equal(t, filepath.Join(root, "locksim", "gc-pause-after-check", "20250314T092653Z-redlock-s6"),
		runDir(t, root, "gc-pause-after-check", "redlock", started, 6), "another design, another name")
	assert.Equal(t, filepath.Join(root, "locksim", "gc-pause-after-check", "20250314T092654Z-setpx-s6"),
		runDir(t, root, "gc-pause-after-check", "setpx", started.Add(time.Second), 6))
	assert.Regexp(t, `/locksim/a_b/20250314T092653Z-x-y-[0-9a-f]{8}-s7$`, runDir(t, root, "a/b", "x/y", started, 7), "a name stays one path element")
	assert.Equal(t, filepath.Join(root, "locksim", "unnamed", "20250314T092653Z-s7"), runDir(t, root, "..", "", started, 7), "no design, no design in the name")
}

func runDir(t *testing.T, root, scenario, design string, started time.Time, seed uint64) string {
	t.Helper()
	dir, err := RunDir(root, scenario, design, started, seed)
	require.NoError(t, err)
	return dir
}

// TestRunDirFailsOnAPermanentError: a root under a file (ENOTDIR on every
// name) ends the search with that error instead of trying names forever.
func TestRunDirFailsOnAPermanentError(t *testing.T) {
	file := filepath.Join(t.TempDir(), "file")
	require.NoError(t, os.WriteFile(file, []byte("x"), 0o644))
	done := make(chan error, 1)
	go func() {
		_, err := RunDir(filepath.Join(file, "x"), "s", "setpx", time.Now(), 1)
		done <- err
	}()
	select {
	case err := <-done:
		require.Error(t, err)
		assert.ErrorIs(t, err, syscall.ENOTDIR)
	case <-time.After(20 * time.Second):
		t.Fatal("RunDir still looking for a name after 20 s")
	}
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	in := gcPauseRun(t)
	_, err := WriteNewRun(context.Background(), filepath.Join(file, "x"), "s", time.Now(), 1, in)
	assert.ErrorIs(t, err, syscall.ENOTDIR)
	assertHistoryKept(t, err, tmp, in)
}

// assertHistoryKept: err names a file in dir that holds in's history.
func assertHistoryKept(t *testing.T, err error, dir string, in Run) {
	t.Helper()
	require.Error(t, err)
	kept, _ := filepath.Glob(filepath.Join(dir, "locksim-history-*.jsonl"))
	require.Len(t, kept, 1, "the history is kept: %v", err)
	assert.Contains(t, err.Error(), "history is kept in "+kept[0])
	var want bytes.Buffer
	require.NoError(t, in.History.WriteJSONL(&want))
	got, rerr := os.ReadFile(kept[0])
	require.NoError(t, rerr)
	assert.Equal(t, want.String(), string(got))
}

// TestFailedReportKeepsTheHistory: a report that fails midway (a full
// disk) leaves no run directory, and the history is saved where the error
// says.
func TestFailedReportKeepsTheHistory(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	root := t.TempDir()
	defer func(f func(string) error) { beforeWrite = f }(beforeWrite)
	beforeWrite = func(name string) error {
		if name == FilePNG {
			return syscall.ENOSPC
		}
		return nil
	}
	in := gcPauseRun(t)
	dir, err := WriteNewRun(context.Background(), root, "s", time.Now(), 1, in)
	assert.ErrorIs(t, err, syscall.ENOSPC)
	assert.Empty(t, dir)
	assertHistoryKept(t, err, tmp, in)
	left, _ := filepath.Glob(filepath.Join(root, "locksim", "s", "*"))
	assert.Empty(t, left, "no half-written run directory")
}

// TestWriteNewRunConcurrent: runs that pick the same name at the same time
// (same scenario, seed and second) each get a directory of their own.
func TestWriteNewRunConcurrent(t *testing.T) {
	root := t.TempDir()
	started := time.Date(2025, 3, 14, 10, 26, 53, 0, time.UTC)
	in := gcPauseRun(t)
	const n = 4
	dirs := make([]string, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			dirs[i], errs[i] = WriteNewRun(context.Background(), root, "same", started, 1, in)
		}()
	}
	wg.Wait()
	seen := map[string]bool{}
	for i := range n {
		require.NoError(t, errs[i])
		assert.False(t, seen[dirs[i]], "directory %s given twice", dirs[i])
		seen[dirs[i]] = true
		assert.FileExists(t, filepath.Join(dirs[i], FileVerdict))
	}
	assert.Len(t, listDir(t, filepath.Join(root, "locksim", "same")), n, "no temporary directory left")
}

func TestUpdateLatest(t *testing.T) {
	scen := t.TempDir()
	for _, d := range []string{"a", "b"} {
		require.NoError(t, os.Mkdir(filepath.Join(scen, d), 0o755))
	}
	link := filepath.Join(scen, LatestLink)
	require.NoError(t, UpdateLatest(scen, "a"))
	target, err := os.Readlink(link)
	require.NoError(t, err)
	assert.Equal(t, "a", target, "relative")

	require.NoError(t, UpdateLatest(scen, filepath.Join(scen, "b")), "an absolute path is made relative")
	target, err = os.Readlink(link)
	require.NoError(t, err)
	assert.Equal(t, "b", target, "the link was replaced")
	assert.ElementsMatch(t, []string{"a", "b", LatestLink}, listDir(t, scen), "no temporary link is left")

	assert.Error(t, UpdateLatest(scen, "missing"), "a link to nothing is refused")
	target, _ = os.Readlink(link)
	assert.Equal(t, "b", target, "a refused update keeps the old link")

	require.NoError(t, os.Remove(link))
	require.NoError(t, os.Mkdir(link, 0o755))
	assert.Error(t, UpdateLatest(scen, "a"), "a real directory named latest is not replaced")

	assert.Equal(t, "latest-setpx", LatestFor("setpx"))
	assert.Regexp(t, `^latest-a-b-[0-9a-f]{8}$`, LatestFor("a/b"), "one path element")
	require.NoError(t, UpdateLink(scen, LatestFor("setpx"), "a"))
	target, err = os.Readlink(filepath.Join(scen, "latest-setpx"))
	require.NoError(t, err)
	assert.Equal(t, "a", target)
}

// TestExample writes run directories for the hand-made histories, to look
// at (dir holds the GC pause; dir-fenced, dir-deadlock and dir-busy the
// others):
//
//	LOCKSIM_REPORT_EXAMPLE=/tmp/example go test -run TestExample ./report/
//	go test -run TestExample -update ./report/   (into $TMPDIR/locksim-report-example)
func TestExample(t *testing.T) {
	dir := os.Getenv("LOCKSIM_REPORT_EXAMPLE")
	if dir == "" && *update {
		dir = filepath.Join(os.TempDir(), "locksim-report-example")
	}
	if dir == "" {
		t.Skip("set LOCKSIM_REPORT_EXAMPLE=dir or -update to write the example run directory")
	}
	require.NoError(t, os.RemoveAll(dir))
	require.NoError(t, WriteRun(context.Background(), dir, gcPauseRun(t)))
	for _, x := range []struct {
		name, algo string
		h          history.History
		clients    int
	}{
		{"fenced", "fenced", fencedPause(), 2},
		{"deadlock", "setnx-expire", stuck(), 2},
		{"busy", "redlock", busy(), 6},
	} {
		require.NoError(t, os.RemoveAll(dir+"-"+x.name))
		require.NoError(t, WriteRun(context.Background(), dir+"-"+x.name, newRun(t, "example-"+x.name, x.algo, x.h, x.clients, "")))
	}
	t.Logf("wrote %s", dir)
}

// TestDesignElem: a process:CMD design's run directory has a name without
// spaces, colons or slashes; two commands that slug alike keep apart, and
// a long command is cut.
func TestDesignElem(t *testing.T) {
	assert.Equal(t, "setpx", designElem("setpx"))
	py := designElem("process:/usr/bin/python3 adapter/redis-py/adapter.py")
	assert.Regexp(t, `^process-usr-bin-python3-adapter-redis-py-adapter.py-[0-9a-f]{8}$`, py)
	assert.NotEqual(t, designElem("process:a b"), designElem("process:a/b"), "distinct commands, distinct names")
	long := designElem("process:" + strings.Repeat("x/", 100))
	assert.LessOrEqual(t, len(long), maxDesignElem)
	assert.Equal(t, "unnamed", designElem(" :/ "))
	dir, err := RunDir(t.TempDir(), "crash-holder", "process:/bin/sh my adapter.sh", time.Unix(0, 0), 1)
	require.NoError(t, err)
	assert.NotContains(t, filepath.Base(dir), " ")
	assert.NotContains(t, filepath.Base(dir), ":")
}

// A report that fails for a run of a scenario whose name is longer than a
// file name may be still keeps the history: the kept file's name does not
// grow with the scenario's or the design's.
func TestKeptHistoryNameIsBounded(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	in := gcPauseRun(t)
	in.Scenario = strings.Repeat("n", 300)
	in.Algorithm = "process:" + strings.Repeat("/very/long/path", 30)
	err := withKeptHistory(errors.New("write report: no space left on device"), in)
	assertHistoryKept(t, err, tmp, in)
	kept, _ := filepath.Glob(filepath.Join(tmp, "locksim-history-*.jsonl"))
	assert.LessOrEqual(t, len(filepath.Base(kept[0])), 160)
}
