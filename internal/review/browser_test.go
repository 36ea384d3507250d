package review_test

import (
	"bytes"
	"context"
	"encoding/json"
	"html"
	"image"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/locksim/locksim/internal/bench"
	"github.com/locksim/locksim/internal/report"
	"github.com/locksim/locksim/internal/review"
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
			`<h2 id="grid">Safety by fault family</h2>`,
			`<h2 id="cost">Cost against the raw Redis limit</h2>`,
			`<h2 id="sentences">Each design in one sentence</h2>`,
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
		assert.Equal(t, len(r.Findings)+4, strings.Count(dom, `<img src="data:image/png;base64,`), "timelines, the bench's charts")
		shown := 0
		for _, f := range r.Findings {
			shown += len(f.Shown())
		}
		assert.GreaterOrEqual(t, strings.Count(dom, `<div class="witness">`), shown, "every shown witness")
		assert.Equal(t, folded, strings.Count(dom, `<details class="more">`), "the findings with more witnesses fold them")
		assert.Regexp(t, `<summary>… \d+ more witness(es)?</summary>`, dom)
		// Nothing the parser had to repair into something else: the
		// sections are in the body in the template's order.
		order := []string{"Safety by fault family", "Cost against the raw Redis limit", "Each design in one sentence", "What breaks each design", "Verdict matrix", "Findings: unsafe and deadlocked pairs", "Benchmark", "Scenarios", "How to read a verdict"}
		last := -1
		for _, h := range order {
			i := strings.Index(dom, h+"</h2>")
			if assert.Greater(t, i, last, "section %q in order", h) {
				last = i
			}
		}
	})

	t.Run("review page top", func(t *testing.T) {
		// The first screen, probed in the page itself: nothing covers the
		// heading, no ratio beyond raw's goes without its noise note, and
		// every grid cell has a denominator or says n/a.
		t.Parallel()
		fair := fairBenchRun(t)
		rf, err := review.Load(mdir, review.BenchChoice{Dir: fair, Why: "the test's sweep", OwnSweep: true})
		require.NoError(t, err)
		top := filepath.Join(t.TempDir(), "review.html")
		require.NoError(t, rf.Write(top))
		res := openHeadless(t, chromium, "file://"+withProbe(t, top), "review-first-screen", 1000, 20)
		assert.Empty(t, res.console, "console messages")
		p := probeResult(t, res.dom)
		assert.Empty(t, p.Covered, "heading elements covered by another element")
		assert.Empty(t, p.NoNoise, "ratios beyond raw's without the noise note")
		assert.Empty(t, p.BadCells, "grid cells without a denominator or n/a")
		assert.GreaterOrEqual(t, p.Heading, 3, "the heading's elements were probed: h1, meta, headline")
		assert.Equal(t, len(rf.Grid.Rows)*len(rf.Grid.Designs), p.GridCells, "every grid cell was probed")
		assert.Equal(t, 2*len(review.CostClients), p.Ratios, "setpx's six measured ratios were probed")
		assert.Positive(t, p.Beyond, "the fixture has ratios beyond raw's, so the noise check was exercised")
	})

	t.Run("probe self-check", func(t *testing.T) {
		// The probe must see a covered heading, a bare ratio above 1.0
		// and a cell without a denominator, or its clean result above
		// would prove nothing.
		t.Parallel()
		bad := filepath.Join(t.TempDir(), "bad.html")
		write(t, bad, `<!DOCTYPE html><html><body><h1>Title</h1><p class="meta">m</p><p class="headline">h</p>`+
			`<div style="position: fixed; top: 0; left: 0; width: 100%; height: 60px; background: #fff">legend</div>`+
			`<table class="grid"><tr><td class="g">3</td><td class="g">n/a</td><td class="g">2/4</td></tr></table>`+
			`<table class="cost"><tr><td class="r" data-median="1.0800" data-lower-better="false"><span class="m">1.08</span></td>`+
			`<td class="r" data-median="0.9000" data-lower-better="true"><span class="m">0.90</span></td>`+
			`<td class="r" data-median="0.9000" data-lower-better="false"><span class="m">0.90</span></td></tr></table></body></html>`)
		res := openHeadless(t, chromium, "file://"+withProbe(t, bad), "probe-bad", windowH, 1)
		p := probeResult(t, res.dom)
		assert.Contains(t, p.Covered, "h1", "the fixed bar covers the h1")
		assert.Len(t, p.NoNoise, 2, "1.08 of a throughput and 0.90 of a latency, both beyond raw, without the note")
		assert.Equal(t, []string{"3"}, p.BadCells)
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

// fairBenchRun writes a lockbench sweep as locksim review measures one:
// setpx and raw at 1, 16 and 64 clients on per-client keys in four
// rounds, setpx measured beyond raw at 16 clients (noise: a lock cannot
// beat raw) and faster than raw's p99 at 64.
func fairBenchRun(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "lockbench", "20260301T000000Z")
	require.NoError(t, os.MkdirAll(dir, 0o755))
	rep := &bench.Report{
		Format: bench.FormatVersion, Backend: "redis-server 7.0.15", Command: "locksim review",
		Machine:  bench.Machine{GOOS: "linux", GOARCH: "amd64", Cores: 2, GOMAXPROCS: 2, Go: "go1.26"},
		Started:  time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC),
		Settings: bench.Settings{Algorithms: []string{"setpx", "naive", "raw"}, Clients: review.CostClients, Nodes: []int{1}, Contention: []bench.Contention{bench.KeyPerClient}, DurationS: 2.4, Rounds: 4},
	}
	tp := map[int]bench.Spread{1: {Median: 0.93, Min: 0.91, Max: 0.95, Rounds: 4}, 16: {Median: 1.04, Min: 0.97, Max: 1.08, Rounds: 4}, 64: {Median: 0.9, Min: 0.86, Max: 0.99, Rounds: 4}}
	p99 := map[int]bench.Spread{1: {Median: 1.3, Min: 1.2, Max: 1.4, Rounds: 4}, 16: {Median: 1.1, Min: 1.02, Max: 1.2, Rounds: 4}, 64: {Median: 0.97, Min: 0.9, Max: 1.05, Rounds: 4}}
	for _, k := range review.CostClients {
		rep.Results = append(rep.Results,
			bench.Result{Algorithm: "setpx", Kind: bench.KindDesign, Nodes: 1, Clients: k, Contention: bench.KeyPerClient, Seconds: 2.4, Cycles: 2400, Throughput: 1000,
				RoundThroughput: []float64{1000, 1000, 1000, 1000}, VsRaw: tp[k].Median, VsRawRounds: tp[k], VsRawP99Rounds: p99[k]},
			bench.Result{Algorithm: "raw", Kind: bench.KindRaw, Nodes: 1, Clients: k, Contention: bench.KeyPerClient, Seconds: 2.4, Cycles: 2400, Throughput: 1000,
				RoundThroughput: []float64{1000, 1000, 1000, 1000}})
	}
	data, err := json.Marshal(rep)
	require.NoError(t, err)
	write(t, filepath.Join(dir, bench.FileJSON), string(data))
	write(t, filepath.Join(dir, bench.FileSummary), rep.Summary())
	return dir
}

// probe is what the page-top probe (probeScript) found.
type probe struct {
	Covered   []string `json:"covered"`  // heading elements another element covers
	NoNoise   []string `json:"noNoise"`  // ratios beyond raw's without "within noise"
	BadCells  []string `json:"badCells"` // grid cells that are neither "n/m" nor "n/a"
	Heading   int      `json:"heading"`
	GridCells int      `json:"gridCells"`
	Ratios    int      `json:"ratios"`
	Beyond    int      `json:"beyond"`
}

// probeScript checks the first screen from inside the page: every point
// of the heading's elements (h1, the meta lines, the headline) is theirs
// (document.elementFromPoint finds them or a child, not something laid
// over them); a measured ratio beyond raw's (a throughput above 1, a
// latency below 1) carries "within noise"; a grid cell reads n/m or n/a.
const probeScript = `<script>
(function () {
  var out = {covered: [], noNoise: [], badCells: [], heading: 0, gridCells: 0, ratios: 0, beyond: 0};
  var heads = document.querySelectorAll("h1, p.meta, p.headline");
  heads.forEach(function (el) {
    out.heading++;
    var r = el.getBoundingClientRect();
    var xs = [r.left + 2, r.left + r.width / 2, r.right - 2], ys = [r.top + 2, r.top + r.height / 2, r.bottom - 2];
    var bad = false;
    xs.forEach(function (x) { ys.forEach(function (y) {
      if (x < 0 || y < 0 || x >= innerWidth || y >= innerHeight) { return; }
      var hit = document.elementFromPoint(x, y);
      if (hit !== el && !el.contains(hit)) { bad = true; }
    }); });
    if (bad) { out.covered.push(el.tagName.toLowerCase() + (el.className ? "." + el.className : "")); }
  });
  document.querySelectorAll("td.r[data-median]").forEach(function (td) {
    out.ratios++;
    var m = parseFloat(td.dataset.median), lower = td.dataset.lowerBetter === "true";
    if (lower ? m < 1 : m > 1) {
      out.beyond++;
      if (td.textContent.indexOf("within noise") < 0) { out.noNoise.push(td.textContent); }
    }
  });
  document.querySelectorAll("table.grid td.g").forEach(function (td) {
    out.gridCells++;
    var t = td.textContent.trim();
    if (!/^\d+\/\d+$/.test(t) && t !== "n/a") { out.badCells.push(t); }
  });
  var pre = document.createElement("pre");
  pre.id = "probe";
  pre.textContent = JSON.stringify(out);
  document.body.appendChild(pre);
})();
</script>`

// withProbe writes a copy of page with probeScript at the end of its body
// and returns the copy's path.
func withProbe(t *testing.T, page string) string {
	t.Helper()
	data, err := os.ReadFile(page)
	require.NoError(t, err)
	i := strings.LastIndex(string(data), "</body>")
	require.Positive(t, i, "the page has a body")
	probed := filepath.Join(t.TempDir(), "probed-"+filepath.Base(page))
	write(t, probed, string(data[:i])+probeScript+string(data[i:]))
	return probed
}

var probeRE = regexp.MustCompile(`<pre id="probe">([^<]*)</pre>`)

// probeResult reads the probe's findings out of the dumped DOM.
func probeResult(t *testing.T, dom string) probe {
	t.Helper()
	m := probeRE.FindStringSubmatch(dom)
	require.NotNil(t, m, "the probe ran and left its result")
	var p probe
	require.NoError(t, json.Unmarshal([]byte(html.UnescapeString(m[1])), &p))
	return p
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
