package history

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

func sentinelOp(ms int, src, event, detail string) Op {
	at := time.Duration(ms) * time.Millisecond
	return Op{Kind: KindSentinel, Client: NoClient, Call: at, Return: at, Outcome: OK, Event: event, Detail: detail, Source: src}
}

func TestSentinelFailovers(t *testing.T) {
	const m = "master locksim-n0 127.0.0.1 7000"
	h := History{Ops: []Op{
		{Kind: KindAcquire, Client: 0, Call: 0, Return: time.Millisecond, Outcome: OK},
		sentinelOp(500, "s0", "+sdown", m),
		sentinelOp(510, "s1", "+sdown", m),
		sentinelOp(800, "s1", "+odown", m+" #quorum 2/2"),
		sentinelOp(801, "s1", "+try-failover", m),
		sentinelOp(802, "s0", "+try-failover", m),
		sentinelOp(900, "s0", "-failover-abort-not-elected", m),
		sentinelOp(5000, "s1", "+selected-slave", "slave 127.0.0.1:7001 127.0.0.1 7001 @ locksim-n0 127.0.0.1 7000"),
		sentinelOp(5500, "s1", "+switch-master", "locksim-n0 127.0.0.1 7000 127.0.0.1 7001"),
		sentinelOp(5501, "s0", "+switch-master", "locksim-n0 127.0.0.1 7000 127.0.0.1 7001"),
		// The new master called down by one sentinel, then seen again.
		sentinelOp(6000, "s2", "+sdown", "master locksim-n0 127.0.0.1 7001"),
		sentinelOp(6100, "s2", "-sdown", "master locksim-n0 127.0.0.1 7001"),
		// Another master still down when the history ends.
		sentinelOp(7000, "s0", "+sdown", "master locksim-n1 127.0.0.1 7002"),
		sentinelOp(7001, "s0", "+sdown", "slave 127.0.0.1:7003 127.0.0.1 7003 @ locksim-n1 127.0.0.1 7002"),
	}}
	got := SentinelFailovers(h)
	ms := func(n int) time.Duration { return time.Duration(n) * time.Millisecond }
	assert.Equal(t, []SentinelFailover{
		{Master: "locksim-n0", Down: ms(500), ODown: ms(800), Tries: 2, Aborts: 1, Switch: ms(5500), NewMaster: "127.0.0.1:7001", End: ms(5500), EndedBy: "switch-master"},
		{Master: "locksim-n0", Down: ms(6000), End: ms(6100), EndedBy: "recovered"},
		{Master: "locksim-n1", Down: ms(7000)},
	}, got)
	assert.Empty(t, SentinelFailovers(History{Ops: h.Ops[:1]}), "no sentinel, no failover")
}
