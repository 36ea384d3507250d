package checker

import (
	"reflect"
	"testing"
	"time"

	"github.com/locksim/locksim/history"
)

// A failover as the harness's reads show it: node 0 serves the key's slot
// until it stops answering; node 1, its replica with a copy, is promoted
// and serves it; node 2 is the master of other slots throughout; reads
// that only saw the key's value change do not split a stretch.
func TestClusterRolesFollowTheSlotsOwner(t *testing.T) {
	ms := time.Millisecond
	node := func(n int, at time.Duration, out history.Outcome, role, redirect string) history.Op {
		return history.Op{Kind: history.KindNode, Client: history.NoClient, Key: "locksim:0", Node: n, Call: at - ms, Return: at,
			Outcome: out, Role: role, Event: redirect}
	}
	h := history.History{Ops: []history.Op{
		node(0, 10*ms, history.Fail, history.RoleMaster, ""),
		node(1, 10*ms, history.Fail, history.RoleReplica, ""),
		node(2, 10*ms, history.Fail, history.RoleMaster, "MOVED"),
		node(0, 20*ms, history.OK, history.RoleMaster, ""), // the key set: the same stretch
		node(0, 30*ms, history.Unknown, "", ""),
		node(1, 80*ms, history.Fail, history.RoleMaster, ""),
		{Kind: history.KindProbe, Client: history.NoClient, Key: "locksim:0", Call: 90 * ms, Return: 100 * ms, Outcome: history.OK},
		{Kind: history.KindNode, Client: history.NoClient, Key: "locksim:1", Node: 2, Call: 5 * ms, Return: 6 * ms, Outcome: history.Fail, Role: history.RoleMaster},
	}}
	key, roles := ClusterRoles(h, 3)
	if key != "locksim:0" {
		t.Errorf("key %q, want the first lock key, locksim:0", key)
	}
	want := [][]NodeRole{
		{{Start: 10 * ms, End: 30 * ms, Role: history.RoleMaster, Serves: true}, {Start: 30 * ms, End: 100 * ms}},
		{{Start: 10 * ms, End: 80 * ms, Role: history.RoleReplica, Serves: true}, {Start: 80 * ms, End: 100 * ms, Role: history.RoleMaster, Serves: true}},
		{{Start: 10 * ms, End: 100 * ms, Role: history.RoleMaster, Redirect: "MOVED"}},
	}
	if !reflect.DeepEqual(roles, want) {
		t.Errorf("roles\n%+v, want\n%+v", roles, want)
	}
	owners := []bool{roles[0][0].Owner(), roles[0][1].Owner(), roles[1][0].Owner(), roles[1][1].Owner(), roles[2][0].Owner()}
	if !reflect.DeepEqual(owners, []bool{true, false, false, true, false}) {
		t.Errorf("owners %v, want node 0 then node 1 only", owners)
	}
}

// The slot's owner while it migrates away answers ASK: still its owner,
// migrating. A history without roles (another backend, an older run)
// has none.
func TestClusterRolesMigratingAndOldHistories(t *testing.T) {
	if r := (NodeRole{Role: history.RoleMaster, Redirect: "ASK"}); !r.Owner() || !r.Migrating() {
		t.Errorf("%+v: want the owner, migrating", r)
	}
	if r := (NodeRole{Role: history.RoleMaster, Redirect: history.RedirectImporting}); r.Owner() || !r.Importing() {
		t.Errorf("%+v: want importing, not the owner yet", r)
	}
	if r := (NodeRole{Role: history.RoleReplica, Redirect: "ASK"}); r.Owner() {
		t.Errorf("%+v: a replica owns no slot", r)
	}
	h := history.History{Ops: []history.Op{{Kind: history.KindNode, Client: history.NoClient, Key: "locksim:0", Node: 0, Outcome: history.Fail}}}
	if key, roles := ClusterRoles(h, 1); key != "" || roles != nil {
		t.Errorf("ClusterRoles of a history without roles = %q, %v; want none", key, roles)
	}
	if !lockKeyLess("locksim:2", "locksim:10") || lockKeyLess("locksim:10", "locksim:2") {
		t.Error("lock keys order by their number")
	}
}
