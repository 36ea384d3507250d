package checker

import (
	"reflect"
	"testing"
	"time"

	"github.com/locksim/locksim/history"
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
