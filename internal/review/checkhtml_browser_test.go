package review_test

import (
	"encoding/base64"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/locksim/locksim/internal/report"
	"github.com/locksim/locksim/sim/simtest"
)

// TestCheckHTMLReadable opens every check.html of the package's matrix in
// headless Chromium with a probe script appended to a copy of the page;
// the probe measures the page after porcupine drew it and writes what it
// found into the DOM. Each page must keep locksim's heading (title,
// verdict, links, how to read) clear of every other element, porcupine's
// legend above all; every box's label must be readable in the box (inside
// it, under no box painted later) or in the tooltip its box shows on
// hover; and a page whose exclusion check is unsafe has a link, at the
// top, to an element drawn at the first overlap, which brings that element
// into the window from anywhere on the page.
func TestCheckHTMLReadable(t *testing.T) {
	chromium := simtest.RequireTool(t, "apt-get install chromium", "chromium", "chromium-browser", "google-chrome")
	mdir := matrixDir(t)
	var pages []string
	require.NoError(t, filepath.WalkDir(mdir, func(path string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() && d.Name() == report.FileCheck {
			pages = append(pages, path)
		}
		return err
	}))
	require.GreaterOrEqual(t, len(pages), 4, "the matrix's runs write check.html")
	var long bool
	var ops int // operation boxes on every page
	for _, page := range pages {
		name, err := filepath.Rel(mdir, filepath.Dir(page))
		require.NoError(t, err)
		t.Run(name, func(t *testing.T) {
			p := probeCheckHTML(t, chromium, page, strings.NewReplacer("/", "_").Replace(name))
			assert.Empty(t, p.console, "console messages")
			require.Empty(t, p.Errors, "the probe ran")

			assert.GreaterOrEqual(t, p.Heading, 5, "heading elements measured (title, verdict, links, how to read)")
			assert.Empty(t, p.Covered, "heading elements covered by another element")
			assert.Empty(t, p.UnderLegend, "heading elements under porcupine's legend")

			assert.Positive(t, p.Ops+p.Annotations, "boxes drawn")
			ops += p.Ops
			assert.Empty(t, p.Unreadable, "boxes whose label is neither whole in the box nor in its hover tooltip")
			t.Logf("%d heading elements, %d operation and %d annotation boxes, %d labelled on hover only: %v",
				p.Heading, p.Ops, p.Annotations, len(p.HoverOnly), p.HoverOnly)
			if p.Wide {
				long = true
			}

			if verdictOf(t, filepath.Dir(page), "exclusion") != "unsafe" {
				return
			}
			require.NotNil(t, p.Link, "an unsafe page links its first overlap")
			assert.True(t, p.Link.Target, "the link %q names an element of the page", p.Link.Href)
			assert.True(t, p.Link.InView, "following the link from the page's far end brings %q into the window", p.Link.Href)
		})
	}
	assert.Positive(t, ops, "the pages draw operations")
	assert.True(t, long, "some check.html is wider than the window, so the jump is tested on a long history")
}

// probe is what the probe script found in one check.html.
type checkProbe struct {
	Errors      []string // the probe's own failures (no canvas, an exception)
	Heading     int      // heading elements measured
	Covered     []string // heading elements another element covers, and by what
	UnderLegend []string // heading elements porcupine's legend intersects
	Ops         int      // operation boxes
	Annotations int      // annotation boxes (leases, faults)
	Unreadable  []string // labels readable neither in the box nor on hover
	HoverOnly   []string // labels readable on hover only
	Wide        bool     // the page is wider than the window
	Link        *struct {
		Href   string
		Target bool // the fragment names an element that exists
		InView bool // after a click from the far end, the element is in the window
	}
	console []string
}

// checkProbeScript measures check.html as drawn; it must run after porcupine's
// render and locksim's additions (it is appended at the end of the body)
// and leaves its findings, as base64 JSON, in body[data-probe].
const checkProbeScript = `<script>
(function () {
  const out = {Errors: [], Heading: 0, Covered: [], UnderLegend: [], Ops: 0, Annotations: 0, Unreadable: [], HoverOnly: [], Wide: false, Link: null}
  const name = (el) => !el ? 'nothing' : el.tagName.toLowerCase() + (el.id ? '#' + el.id : '') + (el.getAttribute('class') ? '.' + el.getAttribute('class') : '') + ' "' + (el.textContent || '').trim().slice(0, 40) + '"'
  const meets = (a, b) => a.left < b.right - 0.5 && b.left < a.right - 0.5 && a.top < b.bottom - 0.5 && b.top < a.bottom - 0.5
  try {
    window.scrollTo(0, 0)
    const legend = document.getElementById('legend')
    const lr = legend && legend.getBoundingClientRect()
    for (const el of document.querySelectorAll('#locksim h1, #locksim p, #locksim summary, #locksim li')) {
      const r = el.getBoundingClientRect()
      out.Heading++
      if (r.width < 4 || r.height < 4) { out.Covered.push(name(el) + ' has no box'); continue }
      const points = [[r.left + 2, r.top + 2], [r.right - 2, r.top + 2], [r.left + 2, r.bottom - 2], [r.right - 2, r.bottom - 2], [(r.left + r.right) / 2, (r.top + r.bottom) / 2]]
      for (const [x, y] of points) {
        const hit = document.elementFromPoint(x, y)
        if (hit !== el && !el.contains(hit)) { out.Covered.push(name(el) + ' at ' + Math.round(x) + ',' + Math.round(y) + ' under ' + name(hit)); break }
      }
      if (lr && meets(lr, r)) out.UnderLegend.push(name(el))
    }

    const rects = [...document.querySelectorAll('#canvas svg rect.history-rect, #canvas svg rect.client-annotation-rect')]
    const targets = [...document.querySelectorAll('#canvas svg rect.target-rect')]
    if (rects.length === 0 || rects.length !== targets.length) throw new Error(rects.length + ' boxes, ' + targets.length + ' hover targets')
    const boxes = rects.map((r) => r.getBoundingClientRect())
    const tip = document.querySelector('#canvas .tooltip')
    for (const [i, rect] of rects.entries()) {
      if (rect.classList.contains('history-rect')) out.Ops++; else out.Annotations++
      const text = rect.parentNode.querySelector('text.history-text')
      const label = text.textContent
      const tr = text.getBoundingClientRect()
      let why = ''
      if (tr.left < boxes[i].left - 0.5 || tr.right > boxes[i].right + 0.5) why = 'wider than its box'
      for (let j = i + 1; !why && j < rects.length; j++) {
        if (meets(boxes[j], tr)) why = 'under ' + rects[j].parentNode.textContent
      }
      if (!why) continue
      // Painted over or cut: its hover tooltip must say it.
      const t = targets[i]
      const at = {bubbles: true, clientX: tr.left + 1, clientY: tr.top + 1}
      t.dispatchEvent(new MouseEvent('mouseover', at))
      t.dispatchEvent(new MouseEvent('mousemove', at))
      const shown = tip && tip.style.display === 'block' ? tip.textContent : ''
      t.dispatchEvent(new MouseEvent('mouseout', at))
      if (shown.includes(label)) out.HoverOnly.push(label + ' (' + why + ')')
      else out.Unreadable.push(label + ' (' + why + '; hover shows "' + shown.slice(0, 60) + '")')
    }

    const doc = document.documentElement
    out.Wide = doc.scrollWidth > window.innerWidth
    const a = document.getElementById('locksim-jump')
    if (a) {
      const href = a.getAttribute('href') || ''
      const target = href.startsWith('#') ? document.getElementById(href.slice(1)) : null
      out.Link = {Href: href, Target: !!target, InView: false}
      if (target) {
        window.scrollTo(doc.scrollWidth, doc.scrollHeight)
        a.click()
        const r = target.getBoundingClientRect()
        out.Link.InView = r.right > 0 && r.left < window.innerWidth && r.bottom > 0 && r.top < window.innerHeight
        window.scrollTo(0, 0)
      }
    }
  } catch (e) {
    out.Errors.push(String(e))
  }
  document.body.setAttribute('data-probe', btoa(unescape(encodeURIComponent(JSON.stringify(out)))))
})()
</script>
`

var probeAttr = regexp.MustCompile(`<body[^>]* data-probe="([^"]*)"`)

// probeCheckHTML opens a copy of page with the probe appended and returns
// what the probe found; the screenshot is named name.png.
func probeCheckHTML(t *testing.T, chromium, page, name string) checkProbe {
	t.Helper()
	data, err := os.ReadFile(page)
	require.NoError(t, err)
	s := string(data)
	i := strings.LastIndex(s, "</body>")
	require.Positive(t, i, "check.html has a body")
	probed := filepath.Join(t.TempDir(), "check.html")
	write(t, probed, s[:i]+checkProbeScript+s[i:])
	res := openHeadless(t, chromium, "file://"+probed, "checkhtml-"+name, windowH, 20)
	m := probeAttr.FindStringSubmatch(res.dom)
	require.NotNil(t, m, "the probe wrote its findings: %s", res.stderr)
	raw, err := base64.StdEncoding.DecodeString(m[1])
	require.NoError(t, err)
	var p checkProbe
	require.NoError(t, json.Unmarshal(raw, &p), "%s", raw)
	p.console = res.console
	return p
}

// verdictOf reads one check's verdict from a run directory's verdict.json.
func verdictOf(t *testing.T, dir, check string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, report.FileVerdict))
	require.NoError(t, err)
	var v struct {
		Checks map[string]struct {
			Verdict string `json:"verdict"`
		} `json:"checks"`
	}
	require.NoError(t, json.Unmarshal(data, &v))
	c, ok := v.Checks[check]
	require.True(t, ok, "verdict.json of %s has the %s check", dir, check)
	return c.Verdict
}
