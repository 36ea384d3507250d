package sim

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// The clients a checked history may name follow the memory budget, at
// bytesPerCheckedClient each, and are never fewer than a run may have;
// a saved count over them is refused naming the field and the bound.
func TestHistoryLimitClients(t *testing.T) {
	l := historyLimits(4 << 30)
	assert.Equal(t, 4<<20, l.Clients, "4 GiB at 1 KiB a client")
	assert.Equal(t, 4<<20, l.Ops)
	assert.NoError(t, l.CheckClients(1_000_000))
	assert.NoError(t, l.CheckClients(4<<20))
	assert.EqualError(t, l.CheckClients(4<<20+1),
		"clients 4194305: a history checked on this machine has 1 to 4194304 clients (1024 bytes each of its memory budget of 4096 MiB)")
	assert.Error(t, l.CheckClients(-1))
	assert.Equal(t, MaxClients, historyLimits(512<<10).Clients, "never below run's bound")
}
