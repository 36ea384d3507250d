package node

import (
	"sync"
	"syscall"
	"time"
)

// running holds every redis-server process not yet waited for, apart from
// the clusters that own them: KillAll must not wait for a cluster's locks,
// which an orderly shutdown in progress may hold.
var running = runningProcs{procs: map[*redisProc]struct{}{}}

type runningProcs struct {
	sync.Mutex
	procs map[*redisProc]struct{}
}

func (r *runningProcs) add(p *redisProc) {
	r.Lock()
	defer r.Unlock()
	r.procs[p] = struct{}{}
}

func (r *runningProcs) remove(p *redisProc) {
	r.Lock()
	defer r.Unlock()
	delete(r.procs, p)
}

// killAllWait bounds how long KillAll waits for the processes to be gone.
const killAllWait = 2 * time.Second

// KillAll kills every redis-server process this process started, at once,
// and waits (briefly) until they are gone: the way out when the user asks
// a second time and an orderly shutdown is not to be waited for. Their
// data directories are left for the next run to reclaim.
func KillAll() {
	running.Lock()
	procs := make([]*redisProc, 0, len(running.procs))
	for p := range running.procs {
		procs = append(procs, p)
	}
	running.Unlock()
	for _, p := range procs {
		_ = p.signal(syscall.SIGKILL)
		_ = p.signal(syscall.SIGCONT)
	}
	deadline := time.After(killAllWait)
	for _, p := range procs {
		select {
		case <-p.exited:
		case <-deadline:
			return
		}
	}
}
