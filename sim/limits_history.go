package sim

import "fmt"

// bytesPerCheckedClient is what checking a history costs per client,
// beside the client's operations: its tally and its warning line. A
// million clients measured about 350 bytes allocated each
// (docs/results.md); the rest is room.
const bytesPerCheckedClient = 1 << 10

// HistoryLimits are the most a saved history may hold for locksim check to
// read it. Bytes is this machine's memory budget for a run (half of what
// is available), since a file read into operations takes at least its
// own size in memory; Ops is the operations that fit the budget at
// bytesPerOp each. Clients is the client indices a history may name
// (0..Clients-1): not run's bound (MaxClients), which counts a goroutine
// and connection pools per client, since checking holds none of those,
// but the clients the budget holds at bytesPerCheckedClient each, and
// never fewer than a run may have.
type HistoryLimits struct {
	Bytes   int64
	Ops     int
	Clients int
}

// HistoryLimit is the HistoryLimits of this machine.
func HistoryLimit() HistoryLimits {
	return historyLimits(machineMem())
}

func historyLimits(mem uint64) HistoryLimits {
	return HistoryLimits{Bytes: int64(mem), Ops: int(mem / bytesPerOp),
		Clients: max(MaxClients, int(mem/bytesPerCheckedClient))}
}

// CheckSize refuses a history file of size bytes over the limit, in one
// line naming it.
func (l HistoryLimits) CheckSize(size int64) error {
	if size > l.Bytes {
		return fmt.Errorf("%d MiB: larger than the %d MiB this machine may hold (half of its available memory)", size>>20, l.Bytes>>20)
	}
	return nil
}

// CheckClients refuses a saved client count (verdict.json's
// config.clients) over the limit, in one line naming the field.
func (l HistoryLimits) CheckClients(n int) error {
	if n < 1 || n > l.Clients {
		return fieldErr("clients", n, "a history checked on this machine has 1 to %d clients (%d bytes each of its memory budget of %d MiB)",
			l.Clients, bytesPerCheckedClient, l.Bytes>>20)
	}
	return nil
}
