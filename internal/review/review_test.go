package review_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"html"
	"image"
	"image/color"
	"image/png"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/locksim/locksim/internal/bench"
	"github.com/locksim/locksim/internal/matrix"
	"github.com/locksim/locksim/internal/review"
	"github.com/locksim/locksim/scenarios"
	"github.com/locksim/locksim/vtime"
)

// testOut holds the package's shared matrix; TestMain removes it.
var testOut string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "review-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	testOut = dir
	code := m.Run()
	_ = os.RemoveAll(dir)
	if code == 0 {
		if err := goleak.Find(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			code = 1
		}
	}
	os.Exit(code)
}

// tinyMatrix runs one small real matrix for every test of the package, in
// virtual time (a loaded machine cannot change its verdicts): an unsafe
// pair (Kleppmann's pause on setpx), safe ones, naive's deadlocks, and
// naive's race under contention, whose witnesses are more than the page
// shows. The first test that asks hosts its runs' bubbles.
var (
	tinyOnce sync.Once
	tinyDir  string
	tinyErr  error
)

func tinyMatrix(t *testing.T) (string, error) {
	tinyOnce.Do(func() {
		var list []*scenarios.Scenario
		for _, n := range []string{"crash-holder", "gc-pause-after-check", "control-contention"} {
			s, err := scenarios.Lookup(n)
			if err != nil {
				tinyErr = err
				return
			}
			list = append(list, s)
		}
		ctx := vtime.NewContext(context.Background(), vtime.ForTest(t))
		m, err := matrix.Run(ctx, matrix.Config{
			Scenarios: list, Algorithms: []string{"setpx", "naive"}, Runs: 1, Out: testOut,
		})
		tinyDir, tinyErr = m.Dir, err
	})
	return tinyDir, tinyErr
}

func matrixDir(t *testing.T) string {
	t.Helper()
	dir, err := tinyMatrix(t)
	require.NoError(t, err)
	return dir
}

// TestReportFromRealMatrix: the page is self-contained, shows every unsafe
// or deadlocked pair with its timeline inlined, and the Markdown twin
// lists the same pairs.
func TestReportFromRealMatrix(t *testing.T) {
	mdir := matrixDir(t)
	r, err := review.Load(mdir, review.BenchChoice{})
	require.NoError(t, err)
	m := r.Matrix

	var want []string // "scenario/algo" of unsafe or deadlocked cells
	for _, c := range m.Cells {
		for _, run := range c.Runs {
			if run.Verdict == "unsafe" || run.Verdict == "deadlock" {
				want = append(want, c.Scenario+"/"+c.Algorithm)
				break
			}
		}
	}
	require.Contains(t, want, "gc-pause-after-check/setpx", "the matrix has an unsafe pair")
	require.Len(t, r.Findings, len(want))
	for _, f := range r.Findings {
		assert.Empty(t, f.Missing, f.Anchor())
		assert.NotEmpty(t, f.Timeline, f.Anchor())
		assert.NotEmpty(t, f.Summary(), "%s has its witness in words", f.Anchor())
	}

	out := filepath.Join(t.TempDir(), "review", "page.html")
	require.NoError(t, r.Write(out))
	page := read(t, out)
	md := read(t, review.MarkdownPath(out))

	selfContained(t, page)
	wellFormed(t, page)
	// One inlined PNG per finding, each that run's own timeline.
	assert.Equal(t, len(want), strings.Count(page, `src="data:image/png;base64,`))
	for _, f := range r.Findings {
		assert.Contains(t, page, `id="`+f.Anchor()+`"`)
		assert.Contains(t, page, `href="#`+f.Anchor()+`"`, "the matrix cell links its finding")
		assert.Contains(t, page, base64.StdEncoding.EncodeToString(f.Timeline))
	}
	unsafe := findingOf(t, r, "gc-pause-after-check", "setpx")
	assert.Contains(t, page, "Kleppmann", "the scenario's doc")
	assert.Contains(t, page, "ran in virtual time", "the package's matrix runs in virtual time")
	assert.Contains(t, page, "client 0 entered at", "the witness in words")
	assert.Contains(t, page, unsafe.Verdict.Machine)
	assert.Contains(t, page, m.Started.UTC().Format("2006-01-02 15:04"))

	// The Markdown lists the same cells, with timelines that resolve.
	headings := regexp.MustCompile(`(?m)^<a id="([^"]+)"></a>\n#### `).FindAllStringSubmatch(md, -1)
	var got []string
	for _, h := range headings {
		got = append(got, h[1])
	}
	var anchors []string
	for _, f := range r.Findings {
		anchors = append(anchors, f.Anchor())
	}
	assert.Equal(t, anchors, got)
	for _, img := range regexp.MustCompile(`!\[[^\]]*\]\(([^)]+)\)`).FindAllStringSubmatch(md, -1) {
		assert.FileExists(t, filepath.Join(filepath.Dir(out), filepath.FromSlash(img[1])))
	}
	assert.Contains(t, md, "| gc-pause-after-check | [**unsafe**](#"+unsafe.Anchor()+")")
}

func findingOf(t *testing.T, r *review.Review, scenario, algo string) review.Finding {
	t.Helper()
	for _, f := range r.Findings {
		if f.Cell.Scenario == scenario && f.Cell.Algorithm == algo {
			return f
		}
	}
	var cells []string
	for _, c := range r.Matrix.Cells {
		s := c.Scenario + " × " + c.Algorithm + ": " + c.Tally()
		for _, run := range c.Runs {
			if run.Error != "" {
				s += " (" + run.Error + ")"
			}
		}
		cells = append(cells, s)
	}
	t.Fatalf("no finding for %s × %s; the matrix: %s", scenario, algo, strings.Join(cells, "; "))
	return review.Finding{}
}

// benchRun writes a lockbench run directory as lockbench leaves it:
// bench.json (a small sweep) and chart PNGs, one of which the summary does
// not show.
func benchRun(t *testing.T) (string, *bench.Report) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "lockbench", "20260101T000000Z")
	require.NoError(t, os.MkdirAll(dir, 0o755))
	rep := &bench.Report{
		Format:  bench.FormatVersion,
		Machine: bench.Machine{GOOS: "linux", GOARCH: "amd64", Cores: 2, GOMAXPROCS: 2, CPU: "test box <cpu>", Go: "go1.26"},
		Backend: "redis-server 7.0.15", Command: "lockbench --algos setpx,raw", Started: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC),
		WallS:    3.5,
		Settings: bench.Settings{Algorithms: []string{"setpx", "raw"}, Clients: []int{1}, Nodes: []int{1}, DurationS: 1, Rounds: 2, TTLMs: 500, RetryMs: 1, RetryJitterMs: 0.5},
		Results: []bench.Result{
			{Algorithm: "setpx", Kind: bench.KindDesign, Nodes: 1, Clients: 1, Contention: bench.KeyPerClient, Seconds: 1, Cycles: 800, Throughput: 800, VsRaw: 0.89,
				VsRawRounds: bench.Spread{Median: 0.89, Min: 0.85, Max: 0.93, Rounds: 2}, VsRawP99Rounds: bench.Spread{Median: 1.4, Min: 1.2, Max: 1.5, Rounds: 2},
				Acquire: bench.Percentiles{P50: 120, P99: 900}, Cycle: bench.Percentiles{P50: 250, P99: 1500}},
			{Algorithm: "raw", Kind: bench.KindRaw, Nodes: 1, Clients: 1, Contention: bench.KeyPerClient, Seconds: 1, Cycles: 900, Throughput: 900,
				Errors: 1, FirstErr: "i/o timeout | <oops>"},
		},
		Notes: []string{"a note & more"},
	}
	data, err := json.Marshal(rep)
	require.NoError(t, err)
	write(t, filepath.Join(dir, bench.FileJSON), string(data))
	write(t, filepath.Join(dir, bench.FileSummary), rep.Summary())
	for i, name := range []string{"throughput.png", "latency.png", "cdf.png", "extra.png"} {
		write(t, filepath.Join(dir, name), string(tinyPNG(t, uint8(i))))
	}
	return dir, rep
}

// TestReportWithBench: the bench section is bench.json told in the words
// and tables of summary.md, every chart inlined; the Markdown twin points
// at the bench's files.
func TestReportWithBench(t *testing.T) {
	mdir := matrixDir(t)
	dir, rep := benchRun(t)

	r, err := review.Load(mdir, review.GivenBench(dir))
	require.NoError(t, err)
	require.NotNil(t, r.Bench.Report)
	assert.Empty(t, r.Bench.Note)
	out := filepath.Join(t.TempDir(), "page.html")
	require.NoError(t, r.Write(out))
	page, md := read(t, out), read(t, review.MarkdownPath(out))
	selfContained(t, page)
	wellFormed(t, page)
	assert.Contains(t, page, "<h3>lockbench</h3>")
	assert.Contains(t, page, "<h4>One key per client: no contention</h4>")
	assert.Contains(t, page, `<td style="text-align: right">800</td>`)
	assert.Contains(t, page, `<td style="text-align: right">0.89`)
	assert.Contains(t, page, "<td><strong>raw</strong></td>")
	assert.Contains(t, page, "<code>lockbench --algos setpx,raw</code>")
	assert.Contains(t, page, "test box &lt;cpu&gt;")
	assert.Contains(t, page, "first: i/o timeout | &lt;oops&gt;")
	assert.Contains(t, page, "a note &amp; more")
	assert.Contains(t, page, `<a href="#chart-throughput">throughput</a>: lock cycles per second against clients`)
	for _, name := range []string{"throughput.png", "latency.png", "cdf.png", "extra.png"} {
		assert.Contains(t, page, base64.StdEncoding.EncodeToString([]byte(read(t, filepath.Join(dir, name)))), name)
	}
	assert.Equal(t, len(r.Findings)+4, strings.Count(page, `src="data:image/png;base64,`), "findings, bench charts")
	assert.NotContains(t, page, "No lockbench run")
	// Every table cell of the summary is on the page.
	for _, s := range rep.Doc().Sections {
		if s.Table == nil {
			continue
		}
		for _, row := range s.Table.Rows {
			for _, c := range row {
				assert.Contains(t, page, html.EscapeString(c.String()))
			}
		}
	}

	// The twin has summary.md's words, headings under its own, and links
	// that resolve.
	assert.Contains(t, md, "### lockbench\n")
	assert.Contains(t, md, "#### How it was measured")
	assert.Contains(t, md, "| **raw** | 1 | 1 | 900 |")
	for _, img := range regexp.MustCompile(`\]\(([^)#]+)\)`).FindAllStringSubmatch(md, -1) {
		if strings.HasPrefix(img[1], "http") || strings.HasSuffix(img[1], ".svg") {
			continue
		}
		assert.FileExists(t, filepath.Join(filepath.Dir(out), filepath.FromSlash(img[1])))
	}
	assert.Contains(t, md, "extra.png", "a chart the summary does not show is added")

	// The grid, the cost table and the sentences come first. Both designs
	// ran crash-holder and gc-pause-after-check (the control has no fault
	// and is not in the common set): setpx came through one.
	assert.Less(t, strings.Index(page, `<h2 id="grid">`), strings.Index(page, `<h2 id="cost">`))
	assert.Less(t, strings.Index(page, `<h2 id="cost">`), strings.Index(page, `<h2 id="sentences">`))
	assert.Less(t, strings.Index(page, `<h2 id="sentences">`), strings.Index(page, "<h2>What breaks each design</h2>"))
	assert.Contains(t, page, "the 2 fault scenarios all 2 designs ran")
	assert.Contains(t, md, "| design | nodes | safe in the 2 fault scenarios all 2 designs ran | cycles/s ÷ raw, 1 client |")
	assert.Contains(t, md, "| **setpx** | 1 | 1/2 | 0.89 (2 round(s): no spread) | not measured | not measured | 1.40 (2 round(s): no spread) |")
	assert.Contains(t, md, "| **naive** | – | 0/2 | not measured |")
	assert.Contains(t, page, "setpx has no ratio to raw at 16 and 64 client(s)")
	assert.Contains(t, page, "2 round(s) per cell: a ratio needs 3 for a spread")
	assert.Contains(t, page, "Raw on 1 node: 900 at 1 clients, cycles/s.")
	// Chart names link to their figures.
	for _, name := range []string{"throughput", "latency", "cdf", "extra"} {
		assert.Contains(t, page, `<a href="#chart-`+name+`">`+name)
		assert.Contains(t, page, `<figure id="chart-`+name+`">`)
	}
}

// TestReportWithOldBench: a run without bench.json (an older lockbench)
// or with a damaged one still gives a page: its charts, and a note where
// the tables would be.
func TestReportWithOldBench(t *testing.T) {
	mdir := matrixDir(t)
	for _, tc := range []struct {
		name, json, note string
	}{
		{"no bench.json", "", "has no bench.json"},
		{"damaged bench.json", `{"results": [`, "bench.json could not be read"},
		{"newer bench.json", `{"format": 99, "backend": "x"}`, "written by a newer lockbench (format 99"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "20250101T000000Z")
			require.NoError(t, os.MkdirAll(dir, 0o755))
			write(t, filepath.Join(dir, "summary.md"), "# lockbench\n\n![throughput](throughput.png)\n")
			write(t, filepath.Join(dir, "throughput.png"), string(tinyPNG(t, 1)))
			if tc.json != "" {
				write(t, filepath.Join(dir, "bench.json"), tc.json)
			}
			r, err := review.Load(mdir, review.GivenBench(dir))
			require.NoError(t, err)
			out := filepath.Join(t.TempDir(), "page.html")
			require.NoError(t, r.Write(out))
			page, md := read(t, out), read(t, review.MarkdownPath(out))
			wellFormed(t, page)
			selfContained(t, page)
			assert.Contains(t, page, tc.note)
			assert.Contains(t, md, tc.note)
			assert.Contains(t, page, base64.StdEncoding.EncodeToString(tinyPNG(t, 1)), "the charts are still shown")
		})
	}
}

// TestReportWithoutBench: the bench section says in one line that there
// is no run, on the page and in the twin.
func TestReportWithoutBench(t *testing.T) {
	r, err := review.Load(matrixDir(t), review.GivenBench(""))
	require.NoError(t, err)
	out := filepath.Join(t.TempDir(), "page.html")
	require.NoError(t, r.Write(out))
	page, md := read(t, out), read(t, review.MarkdownPath(out))
	assert.Contains(t, page, `<h2 id="bench">Benchmark</h2>`+"\n"+`<div class="nobench">No lockbench run: left out with --bench &#34;&#34;.</div>`)
	assert.Regexp(t, "## Benchmark\n\nNo lockbench run: [^\n]+\n\n## Scenarios", md)
}

// The page shows the newest full lockbench run by default, says which
// newer partial runs it passed over, and falls back to the newest partial
// run only when there is no full one, saying so.
func TestNewestFullBench(t *testing.T) {
	root := filepath.Join(t.TempDir(), "lockbench")
	c, err := review.NewestFullBench(root)
	require.NoError(t, err)
	assert.Empty(t, c.Dir, "no lockbench directory: no bench")
	assert.Contains(t, c.Why, "No lockbench run: there is none under "+root)

	full := `{"backend": "redis-server 7.0.15", "settings": ` + fullSettings(t) + `}`
	quick := `{"backend": "redis-server 7.0.15", "settings": {"algorithms": ["setpx"], "clients": [1], "nodes": [1], "duration_s": 0.6, "rounds": 4}}`
	for name, data := range map[string]string{
		"20260101T000000Z": quick, "20260201T000000Z": quick,
		".20260401T000000Z.partial-1": full, // still being written
		"notes":                       full,
	} {
		require.NoError(t, os.MkdirAll(filepath.Join(root, name), 0o755))
		write(t, filepath.Join(root, name, "summary.md"), "# x\n")
		write(t, filepath.Join(root, name, "bench.json"), data)
	}
	c, err = review.NewestFullBench(root)
	require.NoError(t, err)
	assert.Equal(t, filepath.Join(root, "20260201T000000Z"), c.Dir, "only partial runs: the newest of them")
	assert.Contains(t, c.Why, "no full run under "+root+", so the newest sweep there, which is partial")

	// A newer run under a scenario is never the sweep, full or not.
	under := `{"backend": "redis-server 7.0.15", "under": {"scenario": "gc-pause-after-check"}, "settings": ` + fullSettings(t) + `}`
	require.NoError(t, os.MkdirAll(filepath.Join(root, "20260250T000000Z"), 0o755))
	write(t, filepath.Join(root, "20260250T000000Z", "summary.md"), "# x\n")
	write(t, filepath.Join(root, "20260250T000000Z", "bench.json"), under)
	c, err = review.NewestFullBench(root)
	require.NoError(t, err)
	assert.Equal(t, filepath.Join(root, "20260201T000000Z"), c.Dir, "the --under run is passed over")
	only := filepath.Join(t.TempDir(), "lockbench")
	require.NoError(t, os.MkdirAll(filepath.Join(only, "20260250T000000Z"), 0o755))
	write(t, filepath.Join(only, "20260250T000000Z", "summary.md"), "# x\n")
	write(t, filepath.Join(only, "20260250T000000Z", "bench.json"), under)
	c, err = review.NewestFullBench(only)
	require.NoError(t, err)
	assert.Empty(t, c.Dir, "only a run under a scenario: no sweep to show")
	assert.Contains(t, c.Why, "No lockbench sweep")

	require.NoError(t, os.MkdirAll(filepath.Join(root, "20260301T000000Z"), 0o755))
	write(t, filepath.Join(root, "20260301T000000Z", "summary.md"), "# x\n")
	write(t, filepath.Join(root, "20260301T000000Z", "bench.json"), full)
	require.NoError(t, os.MkdirAll(filepath.Join(root, "20260501T000000Z"), 0o755)) // empty: a failed run
	for _, name := range []string{"20260601T000000Z", "20260701T000000Z"} {
		require.NoError(t, os.MkdirAll(filepath.Join(root, name), 0o755))
		write(t, filepath.Join(root, name, "summary.md"), "# x\n")
		write(t, filepath.Join(root, name, "bench.json"), quick)
	}
	c, err = review.NewestFullBench(root)
	require.NoError(t, err)
	assert.Equal(t, filepath.Join(root, "20260301T000000Z"), c.Dir)
	assert.Contains(t, c.Why, "the newest full run under "+root)
	assert.Contains(t, c.Why, "2 newer run(s) that are partial, under a scenario or unreadable left out (20260701T000000Z, 20260601T000000Z)")
}

// fullSettings are the settings of lockbench without flags, as bench.json
// records them.
func fullSettings(t *testing.T) string {
	t.Helper()
	cfg, err := bench.Config{}.Resolve()
	require.NoError(t, err)
	var contention []string
	for _, c := range cfg.Contention {
		contention = append(contention, string(c))
	}
	data, err := json.Marshal(map[string]any{
		"algorithms": cfg.Algorithms, "clients": cfg.Clients, "nodes": cfg.Nodes, "contention": contention,
		"duration_s": cfg.Duration.Seconds(), "rounds": cfg.Rounds,
	})
	require.NoError(t, err)
	return string(data)
}

// A partial run is said to be partial on the page and in the twin, with
// how it falls short; a full one is not.
func TestPartialBenchSaid(t *testing.T) {
	mdir := matrixDir(t)
	dir, rep := benchRun(t)
	require.NotEmpty(t, rep.Partial())
	r, err := review.Load(mdir, review.BenchChoice{Dir: dir, Why: "the newest run"})
	require.NoError(t, err)
	out := filepath.Join(t.TempDir(), "page.html")
	require.NoError(t, r.Write(out))
	page, md := read(t, out), read(t, review.MarkdownPath(out))
	assert.Contains(t, page, "<b>⚠ A partial lockbench run:</b> "+html.EscapeString(strings.Join(rep.Partial(), "; ")))
	top := `<div class="warn top">⚠ A partial lockbench run: ` + html.EscapeString(strings.Join(rep.Partial(), "; "))
	if assert.Contains(t, page, top, "the warning is next to the cost table") {
		assert.Less(t, strings.Index(page, top), strings.Index(page, `<table class="cost">`))
		assert.Greater(t, strings.Index(page, top), strings.Index(page, `<h2 id="cost">`))
	}
	assert.Contains(t, md, "> **⚠ A partial lockbench run:** "+strings.Join(rep.Partial(), "; "))
	assert.Contains(t, page, "Run shown: <code>"+dir+"</code> (the newest run).")

	var full map[string]any
	data, err := os.ReadFile(filepath.Join(dir, "bench.json"))
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(data, &full))
	require.NoError(t, json.Unmarshal([]byte(fullSettings(t)), new(map[string]any)))
	var settings map[string]any
	require.NoError(t, json.Unmarshal([]byte(fullSettings(t)), &settings))
	full["settings"], full["backend"] = settings, "redis-server 7.2.4"
	data, err = json.Marshal(full)
	require.NoError(t, err)
	write(t, filepath.Join(dir, "bench.json"), string(data))
	r, err = review.Load(mdir, review.GivenBench(dir))
	require.NoError(t, err)
	require.NoError(t, r.Write(out))
	assert.NotContains(t, read(t, out), "partial lockbench run")
	assert.Contains(t, read(t, out), "(given with --bench)")
}

func TestLoadErrors(t *testing.T) {
	_, err := review.Load(filepath.Join(t.TempDir(), "nope"), review.BenchChoice{})
	assert.ErrorIs(t, err, os.ErrNotExist)
	_, err = review.Load(matrixDir(t), review.GivenBench(t.TempDir()))
	assert.ErrorContains(t, err, "does not look like a lockbench run")
}

// selfContained: nothing in the page is fetched from elsewhere.
func selfContained(t *testing.T, page string) {
	t.Helper()
	assert.NotContains(t, page, `src="http`)
	assert.NotContains(t, page, "<link")
	assert.NotContains(t, page, "@import")
	assert.NotContains(t, page, "url(")
	for _, m := range regexp.MustCompile(`src="([^"]*)"`).FindAllStringSubmatch(page, -1) {
		assert.True(t, strings.HasPrefix(m[1], "data:image/png;base64,"), "src %.60s", m[1])
	}
}

func wellFormed(t *testing.T, page string) {
	t.Helper()
	d := xml.NewDecoder(strings.NewReader(page))
	d.Strict, d.Entity = true, xml.HTMLEntity
	for {
		_, err := d.Token()
		if errors.Is(err, io.EOF) {
			return
		}
		require.NoError(t, err, "well-formed HTML")
	}
}

func read(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	return string(b)
}

func write(t *testing.T, path, s string) {
	t.Helper()
	require.NoError(t, os.WriteFile(path, []byte(s), 0o644))
}

func tinyPNG(t *testing.T, shade uint8) []byte {
	img := image.NewRGBA(image.Rect(0, 0, 4, 3))
	img.Set(1, 1, color.RGBA{shade, 100, 200, 255})
	var b bytes.Buffer
	require.NoError(t, png.Encode(&b, img))
	return b.Bytes()
}

// A review that swept every single fault states each design's bound, on
// the page and in the twin.
func TestReportStatesTheSweep(t *testing.T) {
	r, err := review.Load(matrixDir(t), review.GivenBench(""))
	require.NoError(t, err)
	r.Swept = []string{"fenced: no violation under any single pause-client or delay fault at any of its 8 points (300 schedules; 2 clients, 1 node, ttl 500ms)"}
	out := filepath.Join(t.TempDir(), "page.html")
	require.NoError(t, r.Write(out))
	page, md := read(t, out), read(t, review.MarkdownPath(out))
	assert.Contains(t, page, `<h2 id="sweep">Every single fault</h2>`+"\n"+`<ul><li>fenced: no violation under any single pause-client or delay fault at any of its 8 points (300 schedules; 2 clients, 1 node, ttl 500ms)</li></ul>`)
	assert.Contains(t, md, "## Every single fault\n\n- fenced: no violation under any single pause-client or delay fault")
}
