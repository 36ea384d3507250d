package review_test

import (
	"bytes"
	"context"
	"image"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/locksim/locksim/report"
	"github.com/locksim/locksim/review"
	"github.com/locksim/locksim/sim/simtest"
)

// The window the pages are looked at in: a laptop screen, or a projector;
// wholeH is tall enough for the test's whole review page.
const windowW, windowH, wholeH = 1400, 2000, 9000

// TestPagesInBrowser opens a review page (with a bench run) and a run's
// check.html in headless Chromium, as a reviewer would: each must load
// without a console message (a JavaScript error above all), its DOM must
// hold the sections the page promises, and a screenshot of it is kept as
// the test's artifact (go test -artifacts -outputdir DIR keeps them; the
// paths are logged). Chromium missing skips the test, or fails it under
// LOCKSIM_REQUIRE_REDIS=1, as in CI.
func TestPagesInBrowser(t *testing.T) {
	chromium := simtest.RequireTool(t, "apt-get install chromium", "chromium", "chromium-browser", "google-chrome")
	mdir := matrixDir(t)
	benchDir, _ := benchRun(t)
	r, err := review.Load(mdir, review.BenchChoice{Dir: benchDir, Why: "the test's bench run"})
	require.NoError(t, err)
	page := filepath.Join(t.TempDir(), "review.html")
	require.NoError(t, r.Write(page))
	setpx := findingOf(t, r, "gc-pause-after-check", "setpx")
	var folded int
	for _, f := range r.Findings {
		if len(f.Folded()) > 0 {
			folded++
		}
	}
	require.Positive(t, folded, "naive under control-contention leaves more witnesses than the page shows")

	t.Run("console self-check", func(t *testing.T) {
		// The capture of console messages must catch a known error, or a
		// clean result below would prove nothing.
		t.Parallel()
		bad := filepath.Join(t.TempDir(), "bad.html")
		write(t, bad, `<!DOCTYPE html><html><body><p id="ok">x</p><script>noSuchFunction();</script></body></html>`)
		res := openHeadless(t, chromium, "file://"+bad, "bad", windowH, 1)
		assert.Contains(t, res.dom, `<p id="ok">x</p>`)
		require.Len(t, res.console, 1, "the uncaught error is reported: %q", res.stderr)
		assert.Contains(t, res.console[0], "noSuchFunction is not defined")
	})

	t.Run("review page", func(t *testing.T) {
		t.Parallel()
		res := openHeadless(t, chromium, "file://"+page, "review-top", windowH, 20)
		assert.Empty(t, res.console, "console messages")
		dom := res.dom
		for _, want := range []string{
			"<h1>Redis lock designs under failure: design review</h1>",
			`<table class="designs">`,
			`<table class="matrix">`,
			`<div class="verdict notsafe">unsafe</div>`,
			`<div class="verdict">safe</div>`,
			`id="` + setpx.Anchor() + `"`,
			`href="#` + setpx.Anchor() + `"`,
			`<h2 id="bench">Benchmark</h2>`,
			`<h2 id="cost">Safety against cost</h2>`,
			`<figure class="cost">`,
			`<div class="warn"><b>⚠ A partial lockbench run:</b>`,
			`<figure id="chart-throughput">`,
			`<a href="#chart-throughput">throughput</a>`,
			"<h2>Scenarios</h2>",
			"<h2>How to read a verdict</h2>",
		} {
			assert.Contains(t, dom, want)
		}
		// One block per finding, each with its timeline, its witnesses (or
		// the failed liveness check) and its checks folded.
		assert.Equal(t, len(r.Findings), strings.Count(dom, `<div class="finding `), "findings")
		assert.Equal(t, len(r.Findings), strings.Count(dom, `<details class="checks">`), "checks folded per finding")
		assert.Equal(t, len(r.Findings)+4+1, strings.Count(dom, `<img src="data:image/png;base64,`), "timelines, the bench's charts, the safety-vs-cost chart")
		shown := 0
		for _, f := range r.Findings {
			shown += len(f.Shown())
		}
		assert.GreaterOrEqual(t, strings.Count(dom, `<div class="witness">`), shown, "every shown witness")
		assert.Equal(t, folded, strings.Count(dom, `<details class="more">`), "the findings with more witnesses fold them")
		assert.Regexp(t, `<summary>… \d+ more witness(es)?</summary>`, dom)
		// Nothing the parser had to repair into something else: the
		// sections are in the body in the template's order.
		order := []string{"Safety against cost", "What breaks each design", "Verdict matrix", "Findings: unsafe and deadlocked pairs", "Benchmark", "Scenarios", "How to read a verdict"}
		last := -1
		for _, h := range order {
			i := strings.Index(dom, h+"</h2>")
			if assert.Greater(t, i, last, "section %q in order", h) {
				last = i
			}
		}
	})

	t.Run("review page whole", func(t *testing.T) {
		// A window as tall as the page: the whole page in one picture,
		// to look at (a fragment URL does not scroll a headless
		// screenshot).
		t.Parallel()
		res := openHeadless(t, chromium, "file://"+page, "review-whole", wholeH, 20)
		assert.Empty(t, res.console, "console messages")
	})

	t.Run("check.html", func(t *testing.T) {
		t.Parallel()
		check := filepath.Join(setpx.Dir, report.FileCheck)
		require.FileExists(t, check)
		res := openHeadless(t, chromium, "file://"+check, "check", windowH, 20)
		assert.Empty(t, res.console, "console messages (porcupine's visualisation runs JavaScript)")
		// The visualisation draws the history in script: the elements
		// exist only if the script ran.
		assert.Regexp(t, `<div id="canvas"[^>]*>\s*<svg`, res.dom)
		assert.Greater(t, strings.Count(res.dom, `class="history-rect"`), 1, "the history's operations are drawn")
	})
}

// headless is what Chromium saw of a page.
type headless struct {
	dom     string   // the DOM after the page's scripts ran
	console []string // the page's console messages, uncaught errors included
	stderr  string
}

// consoleLine is how Chromium logs a console message with
// --enable-logging=stderr: `[...:INFO:CONSOLE:1] "message", source: ...`.
var consoleLine = regexp.MustCompile(`(?m)^\[[^\]]*:CONSOLE[^\]]*\] (.*)$`)

// openHeadless loads url in headless Chromium in a window windowW wide and
// height tall, dumps its DOM, collects its console messages and saves a
// screenshot named name.png in the test's artifact directory, which it
// checks has at least minColours colours (a blank window has one).
func openHeadless(t *testing.T, chromium, url, name string, height, minColours int) headless {
	t.Helper()
	shot := filepath.Join(t.ArtifactDir(), name+".png")
	ctx, cancel := context.WithTimeout(context.Background(), simtest.HangGuard)
	defer cancel()
	cmd := exec.CommandContext(ctx, chromium, "--headless", "--disable-gpu", "--no-sandbox",
		"--no-first-run", "--user-data-dir="+t.TempDir(), "--hide-scrollbars",
		"--enable-logging=stderr", "--v=0",
		"--window-size="+strconv.Itoa(windowW)+","+strconv.Itoa(height), "--screenshot="+shot, "--dump-dom", url)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	require.NoError(t, cmd.Run(), "chromium: %s", stderr.String())
	res := headless{dom: stdout.String(), stderr: stderr.String()}
	for _, m := range consoleLine.FindAllStringSubmatch(res.stderr, -1) {
		res.console = append(res.console, m[1])
	}
	require.Contains(t, res.dom, "</html>", "chromium dumped the DOM")

	data, err := os.ReadFile(shot)
	require.NoError(t, err, "chromium wrote the screenshot")
	img, err := png.Decode(bytes.NewReader(data))
	require.NoError(t, err)
	assert.Equal(t, image.Rect(0, 0, windowW, height), img.Bounds())
	assert.GreaterOrEqual(t, colours(img), minColours, "%s shows something", shot)
	t.Logf("screenshot: %s", shot)
	return res
}

// colours counts the distinct colours of a sample of img's pixels.
func colours(img image.Image) int {
	seen := map[[4]uint32]bool{}
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y += 7 {
		for x := b.Min.X; x < b.Max.X; x += 7 {
			r, g, bl, a := img.At(x, y).RGBA()
			seen[[4]uint32{r, g, bl, a}] = true
		}
	}
	return len(seen)
}
