package checker

import (
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/locksim/locksim/history"
)

func waitOp(client int, call, ret time.Duration, out history.Outcome) history.Op {
	return history.Op{Kind: history.KindWait, Client: client, Key: "k", Call: call, Return: ret, Outcome: out, Patience: 300 * ms}
}

func acq(client int, call, ret time.Duration, out history.Outcome, token string, ttl time.Duration) history.Op {
	return history.Op{Kind: history.KindAcquire, Client: client, Key: "k", Call: call, Return: ret, Outcome: out, Token: token, TTL: ttl}
}

func rel(client int, call, ret time.Duration, out history.Outcome, token string) history.Op {
	return history.Op{Kind: history.KindRelease, Client: client, Key: "k", Call: call, Return: ret, Outcome: out, Token: token}
}

// TestStarved covers the rule case by case: a wait starves only over a
// stretch longer than its patience in which no hold could be at a node
// and no fault that could hinder the waiter acted.
func TestStarved(t *testing.T) {
	pause := func(client int, from, to time.Duration) history.Op {
		return history.Op{Kind: history.KindFault, Client: history.NoClient, Call: from, Return: to, Outcome: history.OK,
			Fault: "pause", FaultID: 1, Target: &history.Target{Kind: "pause-client", Clients: []int{client}}}
	}
	cut := history.Op{Kind: history.KindFault, Client: history.NoClient, Call: 100 * ms, Return: 900 * ms, Outcome: history.OK,
		Fault: "partition", FaultID: 2, Target: &history.Target{Kind: "partition", Link: true, Groups: [][]string{{"c1"}, {"nodes"}}}}
	holder := []history.Op{
		acq(0, 0, 10*ms, history.OK, "c0-1", 500*ms),
		rel(0, 100*ms, 110*ms, history.OK, "c0-1"),
	}
	for _, c := range []struct {
		name string
		ops  []history.Op
		want []Span // free stretches found, in order
	}{
		{"free after the release, waited to the end", append(slices.Clone(holder), waitOp(1, 20*ms, time.Second, history.Unknown)), []Span{{110 * ms, time.Second}}},
		{"granted within patience", append(slices.Clone(holder), waitOp(1, 20*ms, 400*ms, history.OK), acq(1, 390*ms, 400*ms, history.OK, "c1-1", 500*ms)), nil},
		{"held by a crashed holder until its TTL", append([]history.Op{holder[0]}, waitOp(1, 20*ms, 700*ms, history.OK)), nil},
		{"a hold without TTL never frees", append([]history.Op{}, acq(0, 0, 10*ms, history.OK, "c0-1", 0), waitOp(1, 20*ms, 2*time.Second, history.Unknown)), nil},
		{"an acquire of unknown outcome may hold for a TTL", append(slices.Clone(holder), acq(2, 120*ms, 130*ms, history.Unknown, "", 0), waitOp(1, 20*ms, 700*ms, history.OK)), nil},
		{"its own pause does not starve it", append(slices.Clone(holder), pause(1, 50*ms, time.Second), waitOp(1, 20*ms, time.Second, history.Unknown)), nil},
		{"another client's pause does", append(slices.Clone(holder), pause(0, 50*ms, time.Second), waitOp(1, 20*ms, time.Second, history.Unknown)), []Span{{110 * ms, time.Second}}},
		{"a network fault hinders everyone", append(slices.Clone(holder), cut, waitOp(1, 20*ms, time.Second, history.Unknown)), nil},
		{"a nested hold ends at its last release", []history.Op{
			acq(0, 0, 10*ms, history.OK, "c0-1", 0), acq(0, 20*ms, 30*ms, history.OK, "c0-1", 0),
			rel(0, 40*ms, 50*ms, history.OK, "c0-1"), rel(0, 600*ms, 610*ms, history.OK, "c0-1"),
			waitOp(1, 20*ms, 800*ms, history.OK)}, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			h := history.History{Ops: c.ops}
			var got []Span
			for _, s := range Starved(h, Read(h)) {
				got = append(got, Span{s.FreeFrom, s.FreeTo})
			}
			assert.Equal(t, c.want, got)
		})
	}
}

func TestSubtract(t *testing.T) {
	w := Span{0, 100}
	assert.Equal(t, []Span{{0, 100}}, subtract(w, nil))
	assert.Equal(t, []Span{{0, 10}, {90, 100}}, subtract(w, merged([]Span{{60, 90}, {10, 30}, {30, 70}})))
	assert.Equal(t, []Span{{0, 10}, {30, 40}, {90, 100}}, subtract(w, merged([]Span{{60, 90}, {10, 30}, {40, 70}})))
	assert.Equal(t, []Span{{50, 100}}, subtract(Span{50, 100}, merged([]Span{{0, 20}, {30, 50}})), "spans that end before the window are passed over")
	assert.Nil(t, subtract(w, merged([]Span{{-5, 200}})))
}
