package report

import (
	"fmt"
	"io"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/locksim/locksim/checker"
	"github.com/locksim/locksim/history"
	"github.com/locksim/locksim/vocab"
)

// maxSummaryWitnesses bounds the witnesses summary.md spells out per check;
// verdict.json has all the checker kept.
const maxSummaryWitnesses = 3

// writeSummary writes summary.md: one screen that a design review can read
// without opening anything else, linking to what backs it.
func writeSummary(w io.Writer, in Run) error {
	r := in.Check
	l := readClientLanes(in.History, in.Setup, in.View)
	var b strings.Builder
	fmt.Fprintf(&b, "# %s — %s\n\n", in.Scenario, in.Algorithm)
	switch {
	case in.drawnWhole:
		b.WriteString("**incomplete run — not a verdict.** The run was interrupted while its report was drawn: the history is whole, but the run is not presented as a verdict.\n\n")
	case in.Incomplete:
		b.WriteString("**incomplete run — not a verdict.** The run was interrupted; what follows describes a partial history.\n\n")
	}
	fmt.Fprintf(&b, "**Verdict: %s** · %s\n\n", r.Verdict, expectationMarkdown(in))
	if r.Reason != "" {
		fmt.Fprintf(&b, "Why %s: %s.\n\n", r.Verdict, r.Reason)
	}
	for _, warn := range in.Warnings {
		fmt.Fprintf(&b, "⚠ **Warning:** %s.\n\n", warn)
	}
	fmt.Fprintf(&b, "%s\n\n", setup(in.Setup, in.History))
	if v := in.Setup.Server; v != "" {
		fmt.Fprintf(&b, "Server: %s (INFO server of node 0).\n\n", v)
	}

	// The expected column appears only when single checks are expected.
	expectCol := len(in.ExpectedChecks) > 0
	if expectCol {
		b.WriteString("| check | verdict | expected | detail |\n|---|---|---|---|\n")
	} else {
		b.WriteString("| check | verdict | detail |\n|---|---|---|\n")
	}
	for _, c := range r.Checks {
		verdict := string(c.Verdict)
		if c.Verdict == vocab.Unsafe || c.Verdict == vocab.Deadlock || c.Verdict == vocab.Unknown {
			verdict = "**" + verdict + "**"
		}
		if !expectCol {
			fmt.Fprintf(&b, "| %s | %s | %s |\n", c.Name, verdict, cell(c.Detail))
			continue
		}
		want := ""
		if e, ok := in.ExpectedChecks[c.Name]; ok && e != "" {
			want = string(e) + " " + mark(!in.missed(c.Name))
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", c.Name, verdict, want, cell(c.Detail))
	}
	for _, name := range slices.Sorted(maps.Keys(in.ExpectedChecks)) {
		if r.Check(name).Name == "" {
			fmt.Fprintf(&b, "| %s | (no such check) | %s ✗ | |\n", cell(name), cell(string(in.ExpectedChecks[name])))
		}
	}
	if !r.SweepAgrees {
		b.WriteString("\n**porcupine and the exact sweep disagree on exclusion: this is a locksim bug; please report it with history.jsonl.**\n")
	}

	var wit strings.Builder
	for _, c := range r.Checks {
		if c.Verdict != vocab.Unsafe && c.Verdict != vocab.Covered {
			continue
		}
		for i, x := range c.Witnesses {
			if i == maxSummaryWitnesses {
				fmt.Fprintf(&wit, "- … %d more %s witness(es) in verdict.json\n", len(c.Witnesses)-i, c.Name)
				break
			}
			fmt.Fprintf(&wit, "- **%s** (key `%s`): %s\n", c.Name, x.Key, WitnessWords(x, l.fenced))
		}
	}
	if wit.Len() > 0 {
		b.WriteString("\n## Witnesses\n\n")
		b.WriteString(wit.String())
	}

	b.WriteString(failoverSection(in.Setup, in.History))

	if len(in.Notes) > 0 {
		b.WriteString("\n## Notes\n\n")
		for _, n := range in.Notes {
			if strings.Contains(n, "never fired") {
				fmt.Fprintf(&b, "- ⚠ **%s** — an unfired trigger means this run did not test what the scenario says.\n", n)
				continue
			}
			fmt.Fprintf(&b, "- %s\n", n)
		}
	}

	b.WriteString("\n## Run\n\n")
	fmt.Fprintf(&b, "- %s\n", counts(in.History, l))
	if len(l.failed) > 0 {
		var parts []string
		for _, why := range slices.Sorted(maps.Keys(l.failed)) {
			parts = append(parts, fmt.Sprintf("%s × %d", why, l.failed[why]))
		}
		fmt.Fprintf(&b, "- failed acquires by reason: %s\n", strings.Join(parts, ", "))
	}
	run := fmt.Sprintf("started %s, wall %s, checked in %s", in.Started.UTC().Format(time.RFC3339), fmtMS(in.Wall), fmtMS(r.Elapsed))
	if in.Machine != "" {
		run += ", on " + in.Machine
	}
	fmt.Fprintf(&b, "- %s\n", run)
	for i, f := range l.faults {
		if i == 8 {
			fmt.Fprintf(&b, "- … %d more faults in history.jsonl\n", len(l.faults)-i)
			break
		}
		fmt.Fprintf(&b, "- F%d %s: %s\n", f.ID, f.Desc, faultSpan(f))
	}
	switch {
	case in.cut:
		b.WriteString("\nNo timeline or check.html for this run: it was interrupted before they were drawn (`locksim run` of its scenario.yaml draws them) · ")
	case in.Pictures == NoPictures:
		b.WriteString("\nNo timeline or check.html for this run: its caller drew pictures only for the runs a reader is sent to, and this one came out as expected (`locksim run` of its scenario.yaml draws them) · ")
	case in.Pictures == VectorPictures:
		b.WriteString("\n[timeline.svg](timeline.svg) (no PNG: this run came out safe as expected; `locksim run` of its scenario.yaml draws one) · [check.html](check.html) (porcupine, with fault windows) · ")
	default:
		b.WriteString("\n[timeline.png](timeline.png) ([svg](timeline.svg)) · [check.html](check.html) (porcupine, with fault windows) · ")
	}
	b.WriteString("[verdict.json](verdict.json) · [history.jsonl](history.jsonl) · [scenario.yaml](scenario.yaml)\n")
	_, err := io.WriteString(w, b.String())
	return err
}

func mark(ok bool) string {
	if ok {
		return "✓"
	}
	return "✗"
}

// expectationMarkdown says what was expected and whether the run met it.
func expectationMarkdown(in Run) string {
	ok := in.Met()
	var s string
	switch in.Expected {
	case "":
		s = "nothing expected (only safe passes)"
	case vocab.Any:
		s = "expected any verdict"
	default:
		s = "expected " + string(in.Expected)
	}
	if len(in.ExpectedChecks) > 0 {
		s += fmt.Sprintf(" and %d check verdict(s)", len(in.ExpectedChecks))
	}
	if ok {
		return s + " ✓ as expected"
	}
	if in.Incomplete {
		return s + " ✗ (incomplete)"
	}
	if len(in.Unplayed) > 0 {
		return s + " ✗ **not played** (" + strings.Join(in.Unplayed, "; ") + ")"
	}
	return s + " ✗ **not as expected**"
}

// expectationPhrase is expectationMarkdown for the chart (plain text, and
// no glyphs the chart's font may lack).
func expectationPhrase(in Run) string {
	s := "expected " + string(in.Expected)
	switch in.Expected {
	case "":
		s = "nothing expected (only safe passes)"
	case vocab.Any:
		s = "expected any"
	}
	switch {
	case in.Incomplete:
		return s + ": incomplete"
	case len(in.Unplayed) > 0:
		return s + ": not played (" + strings.Join(in.Unplayed, "; ") + ")"
	case in.Met():
		return s + ": as expected"
	}
	return s + ": NOT as expected"
}

// setup is the run's configuration in one line.
func setup(c history.Setup, h history.History) string {
	nodes := fmt.Sprintf("%d %s node(s)", c.Nodes, c.Backend)
	if c.Backend == "redis-cluster" {
		nodes = fmt.Sprintf("a %s of %d master(s) with %d replica(s) each", c.Backend, c.Nodes, c.Replicas)
	} else if used := c.NodesUsed(h); used < c.Nodes {
		nodes = fmt.Sprintf("%d of %d %s node(s)", used, c.Nodes, c.Backend)
	}
	s := fmt.Sprintf("%s on %s, %d client(s), ttl %v, hold %v, think %v, %v, seed %d",
		c.Algorithm, nodes, c.Clients, c.TTL, c.Hold, c.Think, c.Duration, c.Seed)
	var on []string
	if c.Fencing {
		on = append(on, "fencing")
	}
	if c.Watchdog {
		on = append(on, "watchdog")
	}
	if !c.ValidityCheck {
		on = append(on, "no validity check")
	}
	if c.Wait == "notify" {
		on = append(on, "wait notify")
	}
	if len(on) > 0 {
		s += " (" + strings.Join(on, ", ") + ")"
	}
	return s
}

// WitnessWords tells a witness as a sentence, in plain text: summary.md
// and the review page both tell witnesses with it. Exclusion without
// fencing and claim are told from the intervals; the fencing-related
// witnesses (whose intervals need the checker's context) use the
// checker's note. fenced: the run's sections are fenced writes.
func WitnessWords(w checker.Witness, fenced bool) string {
	a, b := w.A, w.B
	if w.Check == vocab.CheckLiveness {
		return w.Note // a starved client: its wait and the free stretch, in words
	}
	var s string
	switch {
	case w.Check == vocab.CheckExclusion && !fenced:
		s = fmt.Sprintf("client %d entered at %s while client %d was inside since %s (it left at %s)",
			b.Client, fmtMS(b.Start), a.Client, fmtMS(a.Start), fmtMS(a.End))
	case w.Check == vocab.CheckClaim:
		s = fmt.Sprintf("client %d's lease began at %s while client %d's lease (since %s) lasted until %s",
			b.Client, fmtMS(b.Start), a.Client, fmtMS(a.Start), fmtMS(a.End))
	default:
		s = fmt.Sprintf("%s (client %d %s, client %d %s)", w.Note, a.Client, fmtRange(a.Start, a.End), b.Client, fmtRange(b.Start, b.End))
	}
	from, to := max(a.Start, b.Start), min(a.End, b.End)
	if to < from {
		from, to = min(a.Start, b.Start), max(a.Start, b.Start)
	} else {
		s += "; overlap " + fmtRange(from, to)
	}
	if len(w.Faults) == 0 {
		return s + "; no fault was active"
	}
	// The checker attaches the faults from the earlier interval's start
	// on, so a fault may have ended before the overlap began: say so, it
	// is the usual shape of a pause that made a client overstay.
	var fs []string
	for _, f := range w.Faults {
		what := fmt.Sprintf("fault %d %s", f.ID, f.Desc)
		switch {
		case f.Start <= from && f.End >= to:
			fs = append(fs, fmt.Sprintf("during %s, %s", what, faultSpan(f)))
		case f.End < from:
			fs = append(fs, fmt.Sprintf("%s after %s ended (%s)", fmtMS(from-f.End), what, faultSpan(f)))
		default:
			fs = append(fs, fmt.Sprintf("around %s, %s", what, faultSpan(f)))
		}
	}
	return s + "; " + strings.Join(fs, "; ")
}

func faultSpan(f checker.FaultWindow) string {
	if f.Start == f.End {
		return "at " + fmtMS(f.Start)
	}
	return fmtRange(f.Start, f.End)
}

// counts is what happened, in numbers.
func counts(h history.History, l lanes) string {
	var acq [3]int // ok, fail, unknown
	var accepted, rejected, probes int
	for _, op := range h.Ops {
		switch op.Kind {
		case history.KindAcquire:
			switch op.Outcome {
			case history.OK:
				acq[0]++
			case history.Fail:
				acq[1]++
			default:
				acq[2]++
			}
		case history.KindWrite:
			if op.Seq > 0 && op.Outcome == history.OK {
				accepted++
			} else if op.Seq > 0 {
				rejected++
			}
		case history.KindProbe:
			probes++
		}
	}
	sections := 0
	for _, c := range l.byClient {
		sections += len(c.sections)
	}
	s := fmt.Sprintf("%d ops · acquires %d ok / %d fail / %d unknown · %d critical section(s) at the resource",
		len(h.Ops), acq[0], acq[1], acq[2], sections)
	if l.fenced {
		s += fmt.Sprintf(" · writes %d accepted / %d rejected", accepted, rejected)
	}
	return s + fmt.Sprintf(" · %d fault(s) · %d probe(s)", len(l.faults), probes)
}

// cell makes s safe inside a Markdown table cell.
func cell(s string) string {
	s = strings.ReplaceAll(s, "|", `\|`)
	return strings.ReplaceAll(s, "\n", " ")
}

// fmtMS writes d in milliseconds, to 0.1 ms: the history's own unit is
// too fine to read and a second too coarse for a 20 ms hold.
func fmtMS(d time.Duration) string { return msNumber(d) + " ms" }

// fmtRange writes "from–to ms".
func fmtRange(from, to time.Duration) string { return msNumber(from) + "–" + msNumber(to) + " ms" }

func msNumber(d time.Duration) string {
	v := math.Round(float64(d)/float64(time.Millisecond)*10) / 10
	return strconv.FormatFloat(v, 'f', -1, 64)
}
