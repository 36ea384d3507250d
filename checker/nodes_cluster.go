package checker

import (
	"cmp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/locksim/locksim/history"
)

// NodeRole is one stretch of a Redis Cluster node as the harness's reads
// of the lock key showed it (history.KindNode records with a Role): from
// the read that found it so to the read that found it otherwise.
type NodeRole struct {
	Start time.Duration `json:"start"`
	End   time.Duration `json:"end"`
	// Role is history.RoleMaster or history.RoleReplica; "" while the node
	// did not answer.
	Role string `json:"role,omitempty"`
	// Serves: the node answered the key's read itself: as a master it
	// served the key's slot, as a replica it kept its master's copy.
	// Otherwise Redirect is what it answered instead (MOVED, ASK,
	// TRYAGAIN), or history.RedirectImporting.
	Serves   bool   `json:"serves,omitempty"`
	Redirect string `json:"redirect,omitempty"`
}

// Owner reports whether the node was the master of the key's slot: it
// served it, or it sent the read on with ASK or TRYAGAIN, which only the
// slot's owner does while the slot migrates away (Migrating).
func (r NodeRole) Owner() bool { return r.Role == history.RoleMaster && (r.Serves || r.Migrating()) }

// Importing reports whether the node was a master importing the key's
// slot: it redirected a plain read but answered one after ASKING.
func (r NodeRole) Importing() bool {
	return r.Role == history.RoleMaster && r.Redirect == history.RedirectImporting
}

// Migrating reports whether the node answered as the owner of a slot
// being migrated to another master whose copy of the key had gone.
func (r NodeRole) Migrating() bool { return r.Redirect == "ASK" || r.Redirect == "TRYAGAIN" }

// ClusterRoles reads, per node 0..n-1, the stretches of its role and of
// whether it served the first lock key's slot (the one the cluster faults
// act on), from the harness's node records of that key. The key is
// "" and roles nil when no record carries a role: a history of another
// backend, or one written before roles were recorded.
func ClusterRoles(h history.History, n int) (key string, roles [][]NodeRole) {
	for _, op := range h.Ops {
		if op.Kind == history.KindNode && op.Role != "" && (key == "" || lockKeyLess(op.Key, key)) {
			key = op.Key
		}
	}
	if key == "" {
		return "", nil
	}
	var ops []history.Op
	for _, op := range h.Ops {
		if op.Kind == history.KindNode && op.Key == key && op.Node < n {
			ops = append(ops, op)
		}
	}
	slices.SortStableFunc(ops, func(a, b history.Op) int { return cmp.Compare(a.Return, b.Return) })
	end := historyEnd(h)
	roles = make([][]NodeRole, n)
	for _, op := range ops {
		r := NodeRole{Start: op.Return}
		if op.Outcome != history.Unknown {
			r.Role, r.Redirect = op.Role, op.Event
			r.Serves = op.Event == ""
		}
		rs := roles[op.Node]
		if k := len(rs) - 1; k >= 0 {
			if rs[k].Role == r.Role && rs[k].Serves == r.Serves && rs[k].Redirect == r.Redirect {
				continue // the same stretch: only the key's value changed
			}
			rs[k].End = r.Start
		}
		roles[op.Node] = append(rs, r)
	}
	for i := range roles {
		if k := len(roles[i]) - 1; k >= 0 {
			roles[i][k].End = max(end, roles[i][k].Start)
		}
	}
	return key, roles
}

// lockKeyLess orders lock keys by their number (locksim:2 before
// locksim:10), other names by their text.
func lockKeyLess(a, b string) bool {
	na, errA := strconv.Atoi(a[strings.LastIndexByte(a, ':')+1:])
	nb, errB := strconv.Atoi(b[strings.LastIndexByte(b, ':')+1:])
	if errA == nil && errB == nil && a[:strings.LastIndexByte(a, ':')+1] == b[:strings.LastIndexByte(b, ':')+1] {
		return na < nb
	}
	return a < b
}
