package matrix

import (
	"context"

	"github.com/locksim/locksim/internal/report"
	"github.com/locksim/locksim/run"
	"github.com/locksim/locksim/vocab"
)

// pictures decides which runs of a matrix get a timeline and check.html:
// the runs a reader is sent to. A cell links to its first run that
// differs from the expectation, else to its first run (Cell.ShownRun);
// the review page shows a pair's first unsafe or deadlocked run; the
// per-run links of matrix.html are followed mostly for runs that differ.
// So run 0 is always drawn, a repeat when it is not as expected, and an
// unsafe or deadlocked repeat when run 0 was neither (then it may be the
// review's finding; a few mixed pairs draw more than one). The other
// repeats keep verdict.json, history.jsonl and summary.md. A run 0 that
// came out safe as expected gets the SVG timeline and check.html but no
// PNG: the PNGs are the findings' (the review page inlines them) and the
// runs that differ.
//
// Drawing was most of a matrix's CPU in virtual time (rasterizing and
// encoding the PNG, then porcupine's page), and a 10-run matrix that drew
// every run spent nine tenths of it on pages nobody opens.
type pictures struct {
	ctx context.Context
	// first[c] is closed once run 0 of cell c has its verdict, verdict[c].
	first   []chan struct{}
	verdict []vocab.Verdict
	// lead[c] is the run that stands for run 0 of cell c: run 0, or in a
	// shard without it (shard.go) the shard's first run of the cell, since
	// run 0 is another shard's to draw.
	lead []int
}

func newPictures(ctx context.Context, cells int, jobs []job) *pictures {
	p := &pictures{ctx: ctx, first: make([]chan struct{}, cells), verdict: make([]vocab.Verdict, cells), lead: make([]int, cells)}
	for i := range p.first {
		p.first[i] = make(chan struct{})
		p.lead[i] = -1
	}
	for _, j := range jobs {
		if p.lead[j.cell] < 0 || j.run < p.lead[j.cell] {
			p.lead[j.cell] = j.run
		}
	}
	return p
}

// leads reports whether run n of cell is its lead run.
func (p *pictures) leads(cell, n int) bool { return p.lead[cell] == n }

// firstDone records run 0 of cell's verdict ("" when it failed); the
// worker of the lead run calls it once, whatever happened.
func (p *pictures) firstDone(cell int, v vocab.Verdict) {
	p.verdict[cell] = v
	close(p.first[cell])
}

// rule is run.Options.Pictures for repeat n of cell. A repeat may wait
// for run 0 of its cell: the jobs are handed out in run order, so run 0
// is already running (its worker waits for nothing) or done.
func (p *pictures) rule(cell, n int) func(run.Outcome) report.Pictures {
	if p.leads(cell, n) {
		return func(o run.Outcome) report.Pictures {
			if o.AsExpected && o.Verdict == vocab.Safe {
				return report.VectorPictures
			}
			return report.AllPictures
		}
	}
	return func(o run.Outcome) report.Pictures {
		if !o.AsExpected {
			return report.AllPictures
		}
		if !bad(o.Verdict) {
			return report.NoPictures
		}
		select {
		case <-p.first[cell]:
			if !bad(p.verdict[cell]) {
				return report.AllPictures
			}
		case <-p.ctx.Done():
		}
		return report.NoPictures
	}
}

func bad(v vocab.Verdict) bool { return v == vocab.Unsafe || v == vocab.Deadlock }
