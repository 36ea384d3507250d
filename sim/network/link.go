package network

import (
	"fmt"
	"strconv"
	"strings"
)

// Role says what sits at one end of a network link.
type Role uint8

const (
	RoleClient   Role = iota + 1 // a simulated client
	RoleNode                     // a Redis node (the current master of that index)
	RoleReplica                  // the replica of the node with the same index
	RoleResource                 // the protected resource
	RoleSentinel                 // a redis-sentinel (sentinel failover mode)
)

// Endpoint is one end of a link: client i, node i, node i's replica or the
// resource (whose Index is 0).
type Endpoint struct {
	Role  Role
	Index int
}

// ClientEnd, NodeEnd and ReplicaEnd name the endpoints of client, node and
// replica i; ResourceEnd is the resource.
func ClientEnd(i int) Endpoint  { return Endpoint{RoleClient, i} }
func NodeEnd(i int) Endpoint    { return Endpoint{RoleNode, i} }
func ReplicaEnd(i int) Endpoint { return Endpoint{RoleReplica, i} }

var ResourceEnd = Endpoint{Role: RoleResource}

// SentinelEnd is sentinel k (sentinel failover mode).
func SentinelEnd(k int) Endpoint { return Endpoint{RoleSentinel, k} }

// String is the short name scenario files use: c0, n2, r1, resource.
func (e Endpoint) String() string {
	switch e.Role {
	case RoleClient:
		return "c" + strconv.Itoa(e.Index)
	case RoleNode:
		return "n" + strconv.Itoa(e.Index)
	case RoleReplica:
		return "r" + strconv.Itoa(e.Index)
	case RoleResource:
		return "resource"
	case RoleSentinel:
		return "s" + strconv.Itoa(e.Index)
	}
	return fmt.Sprintf("endpoint(%d,%d)", e.Role, e.Index)
}

// ParseEndpoint reads an endpoint name: c0 (or client0, client-0), n2 (node2),
// r1 (replica1) or resource.
func ParseEndpoint(s string) (Endpoint, error) {
	name := strings.ToLower(strings.TrimSpace(s))
	if name == "resource" {
		return ResourceEnd, nil
	}
	for _, p := range []struct {
		role     Role
		prefixes []string
	}{
		{RoleClient, []string{"client-", "client", "c"}},
		{RoleReplica, []string{"replica-", "replica", "r"}},
		{RoleSentinel, []string{"sentinel-", "sentinel", "s"}},
		{RoleNode, []string{"node-", "node", "n"}},
	} {
		for _, pre := range p.prefixes {
			rest, ok := strings.CutPrefix(name, pre)
			if !ok || rest == "" {
				continue
			}
			i, err := strconv.Atoi(rest)
			if err != nil || i < 0 || rest[0] == '+' {
				break
			}
			return Endpoint{p.role, i}, nil
		}
	}
	return Endpoint{}, fmt.Errorf("endpoint %q: want c<i> (a client), n<i> (a node), r<i> (node i's replica), s<k> (a sentinel) or resource", s)
}

// Link is a network path between two endpoints. From is the side that opens
// connections (a client, or a replica dialling its master); To is the side
// that answers. "Upstream" traffic flows From -> To.
type Link struct {
	From, To Endpoint
}

func (l Link) String() string { return l.From.String() + "<->" + l.To.String() }

// Has reports whether e is one of the link's ends.
func (l Link) Has(e Endpoint) bool { return l.From == e || l.To == e }

// inMemory reports whether a link of a cluster configured by cfg is carried
// by the harness itself rather than by a TCP proxy: the resource is a Go
// value, and miniredis replicas exist only as an emulation.
func (l Link) inMemory(cfg Config) bool {
	if l.Has(ResourceEnd) {
		return true
	}
	return l.From.Role == RoleReplica && cfg.EmulatedReplicas
}
