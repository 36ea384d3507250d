package sim

import "fmt"

// HistoryLimits are the most a saved history may hold for locksim check to
// read it: what a run this machine accepts can record. Clients is the
// run's bound (MaxClients); Ops is the operations that fit the memory
// budget checkMachine holds a run to, at bytesPerOp each; Bytes is the
// budget itself, since a file read into operations takes at least its own
// size in memory.
type HistoryLimits struct {
	Bytes   int64
	Ops     int
	Clients int
}

// HistoryLimit is the HistoryLimits of this machine.
func HistoryLimit() HistoryLimits {
	mem := machineMem()
	return HistoryLimits{Bytes: int64(mem), Ops: int(mem / bytesPerOp), Clients: MaxClients}
}

// CheckSize refuses a history file of size bytes over the limit, in one
// line naming it.
func (l HistoryLimits) CheckSize(size int64) error {
	if size > l.Bytes {
		return fmt.Errorf("%d MiB: larger than the %d MiB this machine may hold (half of its available memory)", size>>20, l.Bytes>>20)
	}
	return nil
}
