package checker

import (
	"encoding/json"
	"fmt"
	"html"
	"slices"
	"strconv"
	"time"

	"github.com/locksim/locksim/history"
	"github.com/locksim/locksim/vocab"
)

// witnessMark is the first witness as check.html shows it: the boxes of
// porcupine's drawing to outline, the first being where the heading's
// "jump to the first overlap" link goes.
type witnessMark struct {
	// Words say what happened there, for the link.
	Words string `json:"-"`
	Boxes []markBox
}

// markBox names one box of porcupine's drawing: an operation by its client
// and its call time as porcupine prints it (OriginalStart, nanoseconds),
// or an annotation by its index in the page's annotations.
type markBox struct {
	Client int
	Call   string
	Ann    int // -1 for an operation
}

// findWitness is the mark of the exclusion check's first witness (the
// operation of the client that came in, and the one of the client that was
// inside) or, when exclusion has none, of the claim check's (the two lease
// boxes; leaseAnn gives each lease's annotation index). Nil when neither
// check has a witness or its boxes are not in the drawing.
func findWitness(h history.History, v View, r Result, leaseAnn []int) *witnessMark {
	if ex := r.Check(vocab.CheckExclusion); len(ex.Witnesses) > 0 {
		w := ex.Witnesses[0]
		b, okB := sectionOp(h, r.fenced, w.Key, w.B.Client, max(w.A.Start, w.B.Start))
		a, okA := sectionOp(h, r.fenced, w.Key, w.A.Client, w.A.Start)
		if !okB {
			return nil
		}
		m := &witnessMark{Words: w.Note, Boxes: []markBox{b}}
		if okA {
			m.Boxes = append(m.Boxes, a)
		}
		return m
	}
	cl := r.Check(vocab.CheckClaim)
	if len(cl.Witnesses) == 0 {
		return nil
	}
	w := cl.Witnesses[0]
	m := &witnessMark{Words: "leases overlapped: " + w.Note}
	for _, in := range []Interval{w.B, w.A} {
		i := slices.IndexFunc(v.Leases, func(l LeaseWindow) bool {
			return l.Client == in.Client && l.Key == w.Key && l.Token == in.Token && l.Start == in.Start
		})
		if i < 0 {
			break // the newcomer's lease first, or no mark
		}
		m.Boxes = append(m.Boxes, markBox{Ann: leaseAnn[i]})
	}
	if len(m.Boxes) == 0 {
		return nil
	}
	return m
}

// sectionOp is the box of client's first operation on key that the
// exclusion check judged (an enter, or an accepted write with fencing)
// landing at or after from: a witness interval's start is when its
// section's first operation landed, and a fenced witness's newcomer is the
// first write it had accepted after the other section took over.
func sectionOp(h history.History, fenced bool, key string, client int, from time.Duration) (markBox, bool) {
	var first *history.Op
	for i := range h.Ops {
		op := &h.Ops[i]
		judged := op.Kind == history.KindEnter
		if fenced {
			judged = op.Kind == history.KindWrite && op.Outcome == history.OK
		}
		if judged && op.Seq > 0 && op.Client == client && op.Key == key && op.At >= from && (first == nil || op.At < first.At) {
			first = op
		}
	}
	if first == nil {
		return markBox{}, false
	}
	return markBox{Client: client, Call: strconv.FormatInt(int64(first.Call), 10), Ann: -1}, true
}

// link is the heading's line that jumps to the mark.
func (m *witnessMark) link() string {
	return fmt.Sprintf(`<p id="locksim-first">First overlap: %s <span id="locksim-jump-line">· <a id="locksim-jump" href="#locksim-witness">jump there</a> (outlined in red in the drawing)</span></p>
`, html.EscapeString(m.Words))
}

// script outlines the mark's boxes once porcupine has drawn them, gives
// the first the id the link names, and makes the link scroll it to the
// middle of the window (a long history is far wider than the window). It
// finds an operation in porcupine's data, the page's global "data", by its
// client and call time. A box it cannot find leaves the link saying so
// rather than pointing at nothing.
func (m *witnessMark) script() string {
	boxes, err := json.Marshal(m.Boxes)
	if err != nil {
		panic(err) // a slice of plain structs always marshals
	}
	return fmt.Sprintf(`<script>
(function () {
  const boxes = %s
  const link = document.getElementById('locksim-jump')
  const svg = document.querySelector('#canvas svg')
  const marks = []
  for (const b of boxes) {
    let p = data.Partitions.length
    let i = b.Ann
    if (b.Ann < 0) {
      p = -1
      data.Partitions.forEach((part, pi) => part.History.forEach((el, ei) => {
        if (p < 0 && el.ClientId === b.Client && el.OriginalStart === b.Call) { p = pi; i = ei }
      }))
    }
    const t = svg && svg.querySelector('rect.target-rect[data-partition="' + p + '"][data-index="' + i + '"]')
    if (!t) { if (marks.length === 0) break; continue }
    const mark = document.createElementNS('http://www.w3.org/2000/svg', 'rect')
    mark.setAttribute('x', Number(t.getAttribute('x')) - 3)
    mark.setAttribute('y', Number(t.getAttribute('y')) - 3)
    mark.setAttribute('width', Number(t.getAttribute('width')) + 6)
    mark.setAttribute('height', Number(t.getAttribute('height')) + 6)
    mark.setAttribute('rx', 5)
    mark.setAttribute('class', 'locksim-witness')
    if (marks.length === 0) mark.id = 'locksim-witness'
    svg.insertBefore(mark, t.parentNode) // under the hover targets
    marks.push(mark)
  }
  if (!link) return
  if (marks.length === 0) {
    document.getElementById('locksim-jump-line').textContent = '(not found in the drawing)'
    return
  }
  link.addEventListener('click', (e) => {
    e.preventDefault()
    marks[0].scrollIntoView({block: 'center', inline: 'center'})
  })
})()
</script>
`, boxes)
}
