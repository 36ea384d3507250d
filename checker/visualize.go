package checker

import (
	"bytes"
	"errors"
	"fmt"
	"html"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/anishathalye/porcupine"
	"github.com/locksim/locksim/history"
	"github.com/locksim/locksim/vocab"
)

// Page says what check.html is about, for the heading locksim puts over
// porcupine's drawing. Zero fields are left out.
type Page struct {
	Scenario string
	Design   string
	// Links are shown under the heading: text and relative address.
	Links [][2]string
}

// Visualize writes porcupine's HTML page for the exclusion check of h with
// no heading of locksim's; see VisualizePage.
func Visualize(w io.Writer, h history.History, r Result) error {
	return VisualizePage(w, h, r, Page{})
}

// VisualizePage writes porcupine's HTML page for the exclusion check of h
// (the history r was computed from, with Config.Verbose): each client's
// operations at the resource, from send to reply, per key with porcupine's
// (partial) linearization; each client's lease windows in a lane of its
// own ("client 0 leases"); and the faults in one lane per target ("faults:
// client 0", "faults: node 2", "faults: network"), so that a reader sees
// who overlapped whom during which fault. Above it, a heading names the
// scenario, the design, the verdict and the exclusion check's, links to
// the first witness (outlined in the drawing), and a legend says in
// locksim's words what the page draws; porcupine's own legend follows it
// in the page's flow. Porcupine's clock is true time in nanoseconds; each
// box's tooltip opens with its label, and an operation's gives where it
// landed.
func VisualizePage(w io.Writer, h history.History, r Result, page Page) error {
	if r.info == nil {
		return errors.New("checker: no linearization info: check with Config.Verbose (and a usable resource log)")
	}
	v := Read(h)
	if v.Fenced != r.fenced {
		return errors.New("checker: the history is not the one the result was checked from")
	}
	lanes := laneNamer(v)
	var anns []porcupine.Annotation
	for _, f := range v.Faults {
		for _, lane := range faultLanes(f, lanes) {
			anns = append(anns, porcupine.Annotation{
				Tag:             lane,
				Start:           int64(f.Start),
				End:             int64(f.End),
				Description:     shortFault(f),
				Details:         fmt.Sprintf("F%d %s, from %v to %v", f.ID, f.Desc, f.Start, f.End),
				BackgroundColor: "#fbe3b4",
			})
		}
	}
	leaseAnn := make([]int, len(v.Leases)) // index in anns of each lease's box
	for i, l := range v.Leases {
		mode := ""
		if l.Read {
			mode = " (read)"
		}
		desc := "lease " + l.Token
		if v.Fenced && l.Fence > 0 {
			desc += fmt.Sprintf(", fence %d", l.Fence)
		}
		leaseAnn[i] = len(anns)
		// A lease window has a lane of its own: on its client's row it
		// would cover the enter/exit boxes it spans.
		anns = append(anns, porcupine.Annotation{
			Tag:             lanes("client", l.Client) + " leases",
			Start:           int64(l.Start),
			End:             int64(l.End),
			Description:     desc,
			Details:         fmt.Sprintf("%s: key %q%s: client %d relied on its lease from %v to %v (%s)", desc, l.Key, mode, l.Client, l.Start, l.End, l.Ended),
			BackgroundColor: "#dde8f6",
		})
	}
	info := *r.info // AddAnnotations appends; keep r reusable
	info.AddAnnotations(anns)
	var buf bytes.Buffer
	if err := porcupine.Visualize(clientViewModel(r.fenced), info, &buf); err != nil {
		return err
	}
	_, err := w.Write(withHeading(buf.Bytes(), r, page, findWitness(h, v, r, leaseAnn)))
	return err
}

// laneNamer returns how the lanes of v name a client or node ("client 3",
// "node 12"): the number padded with zeros to the width of the largest one
// on the page, because porcupine orders lanes by name.
func laneNamer(v View) func(what string, n int) string {
	top := 0
	for _, l := range v.Leases {
		top = max(top, l.Client)
	}
	for _, f := range v.Faults {
		if f.Target != nil {
			for _, n := range append(slices.Clone(f.Target.Clients), f.Target.Nodes...) {
				top = max(top, n)
			}
		}
	}
	width := len(strconv.Itoa(top))
	return func(what string, n int) string { return fmt.Sprintf("%s %0*d", what, width, n) }
}

// faultLanes are the lanes of the page a fault goes in: one per client or
// node it hit, one for the network, or "faults" when it does not say.
func faultLanes(f FaultWindow, lanes func(string, int) string) []string {
	t := f.Target
	switch {
	case t == nil:
		return []string{"faults"}
	case t.Link:
		return []string{"faults: network"}
	}
	var out []string
	for _, c := range t.Clients {
		out = append(out, "faults: "+lanes("client", c))
	}
	for _, n := range t.Nodes {
		out = append(out, "faults: "+lanes("node", n))
	}
	if len(out) == 0 {
		return []string{"faults"}
	}
	return out
}

// shortFault is a fault's label in its box: "F4 pause-client 0", its
// schedule left to the details.
func shortFault(f FaultWindow) string {
	desc := f.Desc
	if i := strings.LastIndex(desc, " ("); i > 0 && strings.HasSuffix(desc, ")") {
		desc = desc[:i]
	}
	return fmt.Sprintf("F%d %s", f.ID, desc)
}

// withHeading retitles porcupine's page and puts locksim's heading and
// legend over its drawing.
func withHeading(page []byte, r Result, p Page, mark *witnessMark) []byte {
	title := "locksim: exclusion check"
	if p.Scenario != "" || p.Design != "" {
		title = fmt.Sprintf("%s — %s — verdict %s", p.Scenario, p.Design, r.Verdict)
	}
	ex := r.Check(vocab.CheckExclusion)
	var b strings.Builder
	fmt.Fprintf(&b, `<div id="locksim" style="font-family:sans-serif;max-width:72em;margin:0 0 1em 0">
<h1 style="font-size:1.4em;margin:0.3em 0">%s</h1>
<p><b>Verdict: %s</b> · check drawn here: <b>exclusion %s</b>`, html.EscapeString(title), html.EscapeString(string(r.Verdict)), html.EscapeString(string(ex.Verdict)))
	for _, c := range r.Checks {
		if c.Name != vocab.CheckExclusion {
			fmt.Fprintf(&b, " · %s %s", html.EscapeString(c.Name), html.EscapeString(string(c.Verdict)))
		}
	}
	b.WriteString("</p>\n")
	if ex.Detail != "" {
		fmt.Fprintf(&b, "<p>%s</p>\n", html.EscapeString(ex.Detail))
	}
	if mark != nil {
		b.WriteString(mark.link())
	}
	if len(p.Links) > 0 {
		b.WriteString("<p>")
		for i, l := range p.Links {
			if i > 0 {
				b.WriteString(" · ")
			}
			fmt.Fprintf(&b, `<a href="%s">%s</a>`, html.EscapeString(l[1]), html.EscapeString(l[0]))
		}
		b.WriteString("</p>\n")
	}
	section := "<b>enter</b> and <b>exit</b> of the critical section"
	if r.fenced {
		section = "<b>writes</b> carrying the lease's fencing token, accepted or rejected by the resource"
	}
	fmt.Fprintf(&b, `<details open><summary>How to read this page</summary><ul>
<li>One row per client: its operations at the protected resource, %s, each a box from the moment it was sent to its reply (the label names the lease's token, e.g. c1-2 is client 1's second lease).</li>
<li>Rows named <b>client N leases</b> (blue boxes): client N's <b>lease windows</b>, from the acquire's reply until release or expiry by its own clock, on the same time axis as its operations above.</li>
<li>Rows named <b>faults: client N</b>, <b>faults: node N</b> and <b>faults: network</b>: the faults, on the lane of whom they hit (F&lt;id&gt; as in summary.md; hover for the schedule).</li>
<li>Hover over any box for its whole label and details, should a box be too short for its label.</li>
<li>Porcupine searches for a legal order of the operations against a mutex: grey marks where it placed each one; red marks where the search failed, i.e. where two clients were inside at once. <b>Jump to first error</b> goes there.</li>
<li>The time axis keeps the order of events but is not to scale (porcupine closes gaps); the timeline (timeline.svg) is to scale.</li>
</ul></details>
</div>
`, section)
	out := bytes.Replace(page, []byte("<title>Porcupine</title>"), []byte("<title>"+html.EscapeString(title)+"</title>"), 1)
	out = bytes.Replace(out, []byte("</head>"), []byte(pageCSS+"</head>"), 1)
	out = bytes.Replace(out, []byte("<body>"), []byte("<body>\n"+b.String()), 1)
	if mark != nil {
		if i := bytes.LastIndex(out, []byte("</body>")); i >= 0 {
			out = slices.Concat(out[:i], []byte(mark.script()), out[i:])
		}
	}
	return out
}

// pageCSS restyles porcupine's page for locksim's heading: porcupine's
// legend is fixed at the window's top left, over whatever scrolls under
// it, which is locksim's heading; in the page's flow, under the heading,
// it covers nothing. The witness's boxes are outlined.
const pageCSS = `<style>
#legend { position: static; display: inline-block; margin: 0.3em 0 0 0; backdrop-filter: none; }
#canvas { margin-top: 0.5em; }
.locksim-witness { fill: none; stroke: #d62728; stroke-width: 3; stroke-dasharray: 7 3; pointer-events: none; }
</style>
`
