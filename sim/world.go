package sim

import "fmt"

// World is what faults act on: the clients' gates and clocks, the cluster's
// nodes, the resource and true time.
type World struct {
	cfg     Config
	rec     *Recorder
	cluster *Cluster
	res     *Resource
	clients []*Client
}

// Config is the run's configuration (defaults filled in).
func (w *World) Config() Config { return w.cfg }

// Cluster is the run's Redis nodes.
func (w *World) Cluster() *Cluster { return w.cluster }

// Client returns client i, or an error naming the index.
func (w *World) Client(i int) (*Client, error) {
	if i < 0 || i >= len(w.clients) {
		return nil, fmt.Errorf("client %d: out of range (clients: %d)", i, len(w.clients))
	}
	return w.clients[i], nil
}

// Node returns node i, or an error naming the index.
func (w *World) Node(i int) (Node, error) {
	nodes := w.cluster.Nodes()
	if i < 0 || i >= len(nodes) {
		return nil, fmt.Errorf("node %d: out of range (nodes: %d)", i, len(nodes))
	}
	return nodes[i], nil
}
