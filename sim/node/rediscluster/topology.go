package rediscluster

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// entry is one line of CLUSTER NODES: a node as the asked node sees it.
type entry struct {
	id     string
	addr   string   // host:port, without the bus port or hostname
	flags  []string // myself, master, slave, fail?, fail, handshake, noaddr...
	master string   // the id of the master a replica follows
	epoch  int64    // its config epoch, as the asked node knows it
	slots  [][2]int // the ranges it serves, both ends included
}

func (e entry) has(flag string) bool { return slices.Contains(e.flags, flag) }

func (e entry) serves(slot int) bool {
	for _, r := range e.slots {
		if slot >= r[0] && slot <= r[1] {
			return true
		}
	}
	return false
}

// parseNodes reads CLUSTER NODES: "<id> <ip:port@cport[,hostname]>
// <flags> <master> <ping-sent> <pong-recv> <config-epoch> <link-state>
// <slot>...", a slot a number, a range lo-hi, or a bracketed migration
// ("[slot->-id]", "[slot-<-id]"), which says nothing about the owner.
func parseNodes(text string) ([]entry, error) {
	var out []entry
	for line := range strings.SplitSeq(strings.TrimSpace(text), "\n") {
		f := strings.Fields(line)
		if len(f) < 8 {
			return nil, fmt.Errorf("CLUSTER NODES line %q: want at least 8 fields", line)
		}
		addr := f[1]
		if i := strings.IndexAny(addr, "@,"); i >= 0 {
			addr = addr[:i]
		}
		e := entry{id: f[0], addr: addr, flags: strings.Split(f[2], ",")}
		if f[3] != "-" {
			e.master = f[3]
		}
		epoch, err := strconv.ParseInt(f[6], 10, 64)
		if err != nil {
			return nil, fmt.Errorf("CLUSTER NODES config epoch %q: %w", f[6], err)
		}
		e.epoch = epoch
		for _, s := range f[8:] {
			if strings.HasPrefix(s, "[") {
				continue
			}
			lo, hi, isRange := strings.Cut(s, "-")
			a, err := strconv.Atoi(lo)
			if err != nil {
				return nil, fmt.Errorf("CLUSTER NODES slot %q: %w", s, err)
			}
			b := a
			if isRange {
				if b, err = strconv.Atoi(hi); err != nil {
					return nil, fmt.Errorf("CLUSTER NODES slot %q: %w", s, err)
				}
			}
			e.slots = append(e.slots, [2]int{a, b})
		}
		out = append(out, e)
	}
	return out, nil
}

// nodesOf is CLUSTER NODES as n sees it.
func (c *Cluster) nodesOf(ctx context.Context, n *node) ([]entry, error) {
	text, err := c.do(ctx, n, "CLUSTER", "NODES").Text()
	if err != nil {
		return nil, err
	}
	return parseNodes(text)
}

// view is CLUSTER NODES from the first node, in start order, that runs,
// is not paused and answers: the cluster as its live part sees it.
func (c *Cluster) view(ctx context.Context) ([]entry, error) {
	var errs []string
	for _, n := range c.nodes {
		if p, paused := n.current(); p == nil || paused {
			continue
		}
		v, err := c.nodesOf(ctx, n)
		if err == nil {
			return v, nil
		}
		errs = append(errs, n.addr+": "+err.Error())
	}
	if len(errs) == 0 {
		return nil, errors.New("rediscluster: no node runs unpaused to ask CLUSTER NODES")
	}
	return nil, fmt.Errorf("rediscluster: no node answered CLUSTER NODES (%s)", strings.Join(errs, "; "))
}

// Masters is the address of every master the cluster counts now (flagged
// master and not failed), sorted.
func (c *Cluster) Masters(ctx context.Context) ([]string, error) {
	return c.role(ctx, "master")
}

// Replicas is the address of every replica not failed, sorted.
func (c *Cluster) Replicas(ctx context.Context) ([]string, error) {
	return c.role(ctx, "slave")
}

func (c *Cluster) role(ctx context.Context, flag string) ([]string, error) {
	v, err := c.view(ctx)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, e := range v {
		if e.has(flag) && !e.has("fail") {
			out = append(out, e.addr)
		}
	}
	slices.Sort(out)
	return out, nil
}

// OwnerOf is the address of the master that serves slot now.
func (c *Cluster) OwnerOf(ctx context.Context, slot int) (string, error) {
	if slot < 0 || slot >= Slots {
		return "", fmt.Errorf("rediscluster: slot %d: want 0 to %d", slot, Slots-1)
	}
	v, err := c.view(ctx)
	if err != nil {
		return "", err
	}
	for _, e := range v {
		if e.has("master") && e.serves(slot) {
			return e.addr, nil
		}
	}
	return "", fmt.Errorf("rediscluster: no master serves slot %d", slot)
}

// ReplicaOf is the address of every replica following master now, sorted.
func (c *Cluster) ReplicaOf(ctx context.Context, master string) ([]string, error) {
	m, err := c.node(master)
	if err != nil {
		return nil, err
	}
	v, err := c.view(ctx)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, e := range v {
		if e.has("slave") && e.master == m.id && !e.has("fail") {
			out = append(out, e.addr)
		}
	}
	slices.Sort(out)
	return out, nil
}
