package matrix

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/locksim/locksim/internal/report"
	"github.com/locksim/locksim/run"
	"github.com/locksim/locksim/vocab"
)

// Run 0 is always drawn (a safe one as expected without its PNG), a
// repeat when it differs, and an unsafe or deadlocked repeat only when
// run 0 was neither; a repeat waits for run 0 to know, but not past a
// cancelled context.
func TestPicturesRule(t *testing.T) {
	p := newPictures(context.Background(), 2, []job{{cell: 0, run: 0}, {cell: 0, run: 3}, {cell: 1, run: 0}, {cell: 1, run: 3}})
	out := func(v vocab.Verdict, as bool) run.Outcome {
		return run.Outcome{Verdict: v, AsExpected: as}
	}
	assert.Equal(t, report.VectorPictures, p.rule(0, 0)(out(vocab.Safe, true)), "run 0, safe as expected: no PNG")
	assert.Equal(t, report.AllPictures, p.rule(0, 0)(out(vocab.Safe, false)), "run 0 that differs")
	assert.Equal(t, report.AllPictures, p.rule(0, 0)(out(vocab.Unsafe, true)), "run 0, a finding")
	assert.Equal(t, report.AllPictures, p.rule(0, 0)(out(vocab.Unknown, true)), "run 0, unknown")
	p.firstDone(0, vocab.Unsafe)
	p.firstDone(1, vocab.Safe)
	assert.Equal(t, report.AllPictures, p.rule(0, 3)(out(vocab.Safe, false)), "differs")
	assert.Equal(t, report.NoPictures, p.rule(0, 3)(out(vocab.Safe, true)), "as expected and safe")
	assert.Equal(t, report.NoPictures, p.rule(0, 3)(out(vocab.Unsafe, true)), "run 0 was unsafe already")
	assert.Equal(t, report.AllPictures, p.rule(1, 3)(out(vocab.Deadlock, true)), "the pair's first bad run may be this one")

	ctx, cancel := context.WithCancel(context.Background())
	waiting := newPictures(ctx, 1, []job{{cell: 0, run: 0}, {cell: 0, run: 1}})
	cancel()
	assert.Equal(t, report.NoPictures, waiting.rule(0, 1)(out(vocab.Unsafe, true)), "a cancelled matrix does not wait for run 0")

	// A shard without run 0 of a cell: its first run there leads, and
	// a later one waits for it, not for run 0 in another shard.
	sharded := newPictures(context.Background(), 1, []job{{cell: 0, run: 2}, {cell: 0, run: 5}})
	assert.Equal(t, report.AllPictures, sharded.rule(0, 2)(out(vocab.Unsafe, true)), "the shard's lead run is drawn")
	sharded.firstDone(0, vocab.Unsafe)
	assert.Equal(t, report.NoPictures, sharded.rule(0, 5)(out(vocab.Unsafe, true)), "its lead was unsafe already")
}
