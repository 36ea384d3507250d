package node

import (
	"errors"
	"sync"
)

// live holds every cluster not yet closed, so that a signal handler can stop
// redis-server processes the code that started them will never reach again.
var live = struct {
	sync.Mutex
	clusters map[*Cluster]struct{}
}{clusters: map[*Cluster]struct{}{}}

func register(c *Cluster) {
	live.Lock()
	defer live.Unlock()
	live.clusters[c] = struct{}{}
}

func unregister(c *Cluster) {
	live.Lock()
	defer live.Unlock()
	delete(live.clusters, c)
}

// CloseAll closes every cluster not yet closed, e.g. from a SIGINT handler.
func CloseAll() error {
	live.Lock()
	cs := make([]*Cluster, 0, len(live.clusters))
	for c := range live.clusters {
		cs = append(cs, c)
	}
	live.Unlock()
	var errs []error
	for _, c := range cs {
		errs = append(errs, c.Close())
	}
	return errors.Join(errs...)
}
