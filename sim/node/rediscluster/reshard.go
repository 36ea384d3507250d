package rediscluster

import (
	"context"
	"fmt"
	"time"
)

const (
	migrateBatch   = 100              // keys per CLUSTER GETKEYSINSLOT and MIGRATE
	migrateTimeout = 2 * time.Second  // MIGRATE's own timeout, in its milliseconds
	migrateBound   = 30 * time.Second // all of a slot's keys
	settleBound    = 10 * time.Second // every node agreeing on the new owner
	migrateDB      = 0                // a cluster has database 0 only
	migrateHost    = "127.0.0.1"      // every node binds loopback
	migrateTimeMs  = int64(migrateTimeout / time.Millisecond)
)

// Migration is one slot on its way from one master to another, in the
// steps of the cluster specification, so that a caller can hold it
// between them while clients run: after BeginMigration the source answers
// a command on a key it no longer has with -ASK, after FinishMigration
// every node answers a command on the slot's keys with -MOVED.
type Migration struct {
	c        *Cluster
	Slot     int
	From, To string // the masters' addresses
	from, to *node
}

// BeginMigration marks slot IMPORTING on toMaster and then MIGRATING on
// its current owner (the order the specification gives, so that a client
// the source sends on with ASK always finds the target ready).
func (c *Cluster) BeginMigration(ctx context.Context, slot int, toMaster string) (*Migration, error) {
	owner, err := c.OwnerOf(ctx, slot)
	if err != nil {
		return nil, err
	}
	if owner == toMaster {
		return nil, fmt.Errorf("rediscluster: migrate slot %d: %s serves it already", slot, toMaster)
	}
	from, err := c.node(owner)
	if err != nil {
		return nil, err
	}
	to, err := c.node(toMaster)
	if err != nil {
		return nil, err
	}
	if err := c.do(ctx, to, "CLUSTER", "SETSLOT", slot, "IMPORTING", from.id).Err(); err != nil {
		return nil, c.nodeErr(to, fmt.Sprintf("CLUSTER SETSLOT %d IMPORTING", slot), err)
	}
	if err := c.do(ctx, from, "CLUSTER", "SETSLOT", slot, "MIGRATING", to.id).Err(); err != nil {
		return nil, c.nodeErr(from, fmt.Sprintf("CLUSTER SETSLOT %d MIGRATING", slot), err)
	}
	return &Migration{c: c, Slot: slot, From: from.addr, To: to.addr, from: from, to: to}, nil
}

// MigrateKeys moves every key of the slot from the source to the target
// with MIGRATE ... KEYS, a batch at a time, and returns how many it moved.
// MIGRATE carries each key with its remaining TTL (DUMP and RESTORE).
func (m *Migration) MigrateKeys(ctx context.Context) (int, error) {
	c := m.c
	ctx, cancel := context.WithTimeout(ctx, migrateBound)
	defer cancel()
	moved := 0
	for {
		keys, err := c.do(ctx, m.from, "CLUSTER", "GETKEYSINSLOT", m.Slot, migrateBatch).StringSlice()
		if err != nil {
			return moved, c.nodeErr(m.from, fmt.Sprintf("CLUSTER GETKEYSINSLOT %d", m.Slot), err)
		}
		if len(keys) == 0 {
			return moved, nil
		}
		args := []any{"MIGRATE", migrateHost, m.to.port, "", migrateDB, migrateTimeMs, "KEYS"}
		for _, k := range keys {
			args = append(args, k)
		}
		if err := c.do(ctx, m.from, args...).Err(); err != nil {
			return moved, c.nodeErr(m.from, fmt.Sprintf("MIGRATE of %d keys of slot %d to %s", len(keys), m.Slot, m.To), err)
		}
		moved += len(keys)
		if err := ctx.Err(); err != nil {
			return moved, fmt.Errorf("rediscluster: migrate slot %d: %w after %d keys", m.Slot, err, moved)
		}
	}
}

// FinishMigration gives the slot to the target: SETSLOT NODE on the
// target first (it bumps its epoch and ends IMPORTING), then on the
// source, then on every other master, and waits until every running node
// names the target as the slot's owner.
func (m *Migration) FinishMigration(ctx context.Context) error {
	c := m.c
	order := []*node{m.to, m.from}
	for _, n := range c.nodes {
		if n == m.to || n == m.from {
			continue
		}
		if p, paused := n.current(); p != nil && !paused && c.claims(ctx, n) == nil {
			order = append(order, n)
		}
	}
	for _, n := range order {
		if err := c.do(ctx, n, "CLUSTER", "SETSLOT", m.Slot, "NODE", m.to.id).Err(); err != nil {
			return c.nodeErr(n, fmt.Sprintf("CLUSTER SETSLOT %d NODE %s", m.Slot, m.To), err)
		}
	}
	return c.poll(ctx, settleBound, fmt.Sprintf("every node to see slot %d on %s", m.Slot, m.To), func(ctx context.Context) error {
		for _, n := range c.nodes {
			if p, paused := n.current(); p == nil || paused {
				continue
			}
			v, err := c.nodesOf(ctx, n)
			if err != nil {
				return c.nodeErr(n, "CLUSTER NODES", err)
			}
			for _, e := range v {
				if e.has("master") && e.serves(m.Slot) && e.id != m.to.id {
					return fmt.Errorf("%s still sees slot %d on %s", n.addr, m.Slot, e.addr)
				}
			}
		}
		return nil
	})
}

// Reshard moves slot to toMaster in one go: BeginMigration, MigrateKeys,
// FinishMigration.
func (c *Cluster) Reshard(ctx context.Context, slot int, toMaster string) error {
	m, err := c.BeginMigration(ctx, slot, toMaster)
	if err != nil {
		return err
	}
	if _, err := m.MigrateKeys(ctx); err != nil {
		return err
	}
	return m.FinishMigration(ctx)
}
