package review

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/locksim/locksim/checker"
	"github.com/locksim/locksim/internal/report"
	"github.com/locksim/locksim/vocab"
)

// WitnessLine is one witness of an unsafe (or fencing-covered) check, cut
// into the short lines the page shows: what happened, the overlap, and the
// faults around it by their timeline labels (F1, F2 ...). Words is the
// same witness as one sentence, in summary.md's words.
type WitnessLine struct {
	Check, Key string
	// What is the first line: who entered (or whose lease began) while
	// whom was inside, or, for a fencing witness, the checker's note.
	What string
	// Overlap is "overlap 200–220 ms (20 ms)"; "" when the two intervals
	// do not overlap (a fencing witness about order).
	Overlap string
	Faults  []WitnessFault
	Words   string
}

// WitnessFault is a fault window a witness lies in or just after.
type WitnessFault struct {
	ID int
	// Name is the fault without its trigger ("pause-client 1"); Desc the
	// whole description, trigger included.
	Name, Desc string
	// When says how it stands to the overlap: "throughout", "overlapping",
	// "ended as the overlap began" or "ended 12 ms before".
	When string
	// Span is the fault's window, "100–200 ms" or "at 100 ms".
	Span string
}

// Label is the fault's label on the timeline chart: "F2".
func (f WitnessFault) Label() string { return fmt.Sprintf("F%d", f.ID) }

// shownWitnesses is how many witnesses a finding shows unfolded;
// the rest (verdict.json keeps up to ten per check) are folded.
const shownWitnesses = 4

// witnessLines tells the witnesses of v's failed checks, in check order.
func witnessLines(v report.VerdictFile) []WitnessLine {
	var out []WitnessLine
	for _, name := range vocab.Checks() {
		c, ok := v.Checks[name]
		if !ok || (c.Verdict != vocab.Unsafe && c.Verdict != vocab.Covered) {
			continue
		}
		for _, w := range c.Witnesses {
			out = append(out, witnessLine(name, w, v.Config.Fencing))
		}
	}
	return out
}

// witnessLine cuts one witness into lines. It tells what
// report.WitnessWords tells, in the same words.
func witnessLine(check string, w checker.Witness, fenced bool) WitnessLine {
	a, b := w.A, w.B
	l := WitnessLine{Check: check, Key: w.Key, Words: report.WitnessWords(w, fenced)}
	switch {
	case check == vocab.CheckExclusion && !fenced:
		l.What = fmt.Sprintf("client %d entered at %s while client %d was inside (%s)", b.Client, ms(b.Start), a.Client, msRange(a.Start, a.End))
	case check == vocab.CheckClaim:
		l.What = fmt.Sprintf("client %d's lease began at %s while client %d's lease held (%s)", b.Client, ms(b.Start), a.Client, msRange(a.Start, a.End))
	default:
		l.What = fmt.Sprintf("%s (client %d %s, client %d %s)", w.Note, a.Client, msRange(a.Start, a.End), b.Client, msRange(b.Start, b.End))
	}
	from, to := max(a.Start, b.Start), min(a.End, b.End)
	if to >= from {
		l.Overlap = fmt.Sprintf("overlap %s (%s)", msRange(from, to), ms(to-from))
	} else {
		from, to = min(a.Start, b.Start), max(a.Start, b.Start)
	}
	for _, f := range w.Faults {
		wf := WitnessFault{ID: f.ID, Desc: f.Desc, Name: f.Desc, Span: "at " + ms(f.Start)}
		if i := strings.Index(f.Desc, " ("); i > 0 {
			wf.Name = f.Desc[:i]
		}
		if f.End != f.Start {
			wf.Span = msRange(f.Start, f.End)
		}
		switch {
		case f.Start <= from && f.End >= to:
			wf.When = "throughout"
		case f.End < from && msNumber(from-f.End) == "0":
			wf.When = "ended as the overlap began" // within 0.05 ms
		case f.End < from:
			wf.When = "ended " + ms(from-f.End) + " before"
		default:
			wf.When = "overlapping"
		}
		l.Faults = append(l.Faults, wf)
	}
	slices.SortFunc(l.Faults, func(x, y WitnessFault) int { return x.ID - y.ID })
	return l
}

// FaultsLine is the third line: "faults: F1 partition … (throughout) · F2
// pause-client 1 (ended 100 ms before)".
func (l WitnessLine) FaultsLine() string {
	if len(l.Faults) == 0 {
		return "no fault was active"
	}
	var parts []string
	for _, f := range l.Faults {
		parts = append(parts, fmt.Sprintf("%s %s (%s)", f.Label(), f.Name, f.When))
	}
	return "faults: " + strings.Join(parts, " · ")
}

// Shown are the witnesses the page shows unfolded: the first of each
// check in turn, then the second of each, up to shownWitnesses, in
// check order.
func (f Finding) Shown() []WitnessLine {
	shown, _ := f.splitWitnesses()
	return shown
}

// Folded are the finding's other witnesses, in check order.
func (f Finding) Folded() []WitnessLine {
	_, folded := f.splitWitnesses()
	return folded
}

func (f Finding) splitWitnesses() (shown, folded []WitnessLine) {
	var checks []string
	byCheck := map[string][]int{}
	for i, w := range f.Witnesses {
		if _, ok := byCheck[w.Check]; !ok {
			checks = append(checks, w.Check)
		}
		byCheck[w.Check] = append(byCheck[w.Check], i)
	}
	pick := map[int]bool{}
	for round := 0; len(pick) < min(shownWitnesses, len(f.Witnesses)); round++ {
		for _, c := range checks {
			if round < len(byCheck[c]) && len(pick) < shownWitnesses {
				pick[byCheck[c][round]] = true
			}
		}
	}
	for i, w := range f.Witnesses {
		if pick[i] {
			shown = append(shown, w)
		} else {
			folded = append(folded, w)
		}
	}
	return shown, folded
}

// FaultsInFull are the faults the finding's witnesses name, once each, by
// ID, with their triggers and windows: the page folds them under the
// witnesses.
func (f Finding) FaultsInFull() []WitnessFault {
	var out []WitnessFault
	seen := map[int]bool{}
	for _, w := range f.Witnesses {
		for _, ft := range w.Faults {
			if !seen[ft.ID] {
				seen[ft.ID] = true
				out = append(out, ft)
			}
		}
	}
	slices.SortFunc(out, func(x, y WitnessFault) int { return x.ID - y.ID })
	return out
}

// ms writes d in milliseconds to 0.1 ms, as summary.md does.
func ms(d time.Duration) string { return msNumber(d) + " ms" }

func msRange(from, to time.Duration) string { return msNumber(from) + "–" + msNumber(to) + " ms" }

func msNumber(d time.Duration) string {
	v := math.Round(float64(d)/float64(time.Millisecond)*10) / 10
	return strconv.FormatFloat(v, 'f', -1, 64)
}
