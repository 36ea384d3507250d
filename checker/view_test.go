package checker

import (
	"reflect"
	"testing"
	"time"

	"github.com/locksim/locksim/history"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A notified waiter's waits are read from the attempts they led to: from
// their WaitFrom to their call. A polling retry and a first attempt carry
// none, and neither do the harness's operations.
func TestViewUnlockWaits(t *testing.T) {
	ms := time.Millisecond
	h := history.History{Ops: []history.Op{
		{Kind: history.KindAcquire, Client: 0, Key: "k", Call: 0, Return: 1 * ms, Outcome: history.OK, Token: "c0-1", Deadline: 500 * ms},
		{Kind: history.KindAcquire, Client: 1, Key: "k", Call: 2 * ms, Return: 3 * ms, Outcome: history.Fail, Reason: history.ReasonRefused},
		{Kind: history.KindAcquire, Client: 1, Key: "k", Call: 4 * ms, Return: 5 * ms, Outcome: history.Fail, Reason: history.ReasonRefused},
		{Kind: history.KindAcquire, Client: 2, Key: "k", Call: 6 * ms, Return: 7 * ms, Outcome: history.Fail, Reason: history.ReasonRefused},
		{Kind: history.KindRelease, Client: 0, Key: "k", Call: 10 * ms, Return: 11 * ms, Outcome: history.OK, Token: "c0-1"},
		{Kind: history.KindAcquire, Client: 1, Key: "k", Call: 12 * ms, Return: 13 * ms, Outcome: history.OK, Token: "c1-1", Deadline: 500 * ms, WaitFrom: 6 * ms},
		{Kind: history.KindAcquire, Client: 2, Key: "k", Call: 12 * ms, Return: 14 * ms, Outcome: history.Fail, Reason: history.ReasonRefused, WaitFrom: 8 * ms},
		{Kind: history.KindAcquire, Client: 2, Key: "k", Call: 40 * ms, Return: 41 * ms, Outcome: history.Fail, Reason: history.ReasonRefused},
	}}
	want := []UnlockWait{{Client: 1, Key: "k", Start: 6 * ms, End: 12 * ms}, {Client: 2, Key: "k", Start: 8 * ms, End: 12 * ms}}
	if got := Read(h).Waits; !reflect.DeepEqual(got, want) {
		t.Errorf("waits %+v, want %+v", got, want)
	}
}

// An ok extend after a lapse vouches for it: the lease's window runs
// through, and the view names the stretch and the extend. An extend that
// came while the lease was still valid vouches for nothing new.
func TestViewLapsesVouchedByAnExtend(t *testing.T) {
	v := Read(readHistory(t, "testdata/extend-vouches-lapse.jsonl"))
	ms := time.Millisecond
	assert.Equal(t, []Lapse{{Client: 0, Key: "lock", Token: "c0-1", Start: 300 * ms, End: 421 * ms, By: 421 * ms}}, v.Lapses)
	var c0 []LeaseWindow
	for _, w := range v.Leases {
		if w.Client == 0 {
			c0 = append(c0, w)
		}
	}
	require.Len(t, c0, 1, "one unbroken window")
	assert.Equal(t, 1*ms, c0[0].Start)
	assert.Equal(t, 421*ms, c0[0].Vouched)

	v = Read(readHistory(t, "testdata/extend-overlap.jsonl"))
	assert.Empty(t, v.Lapses, "an extend inside the lease's validity")
}
