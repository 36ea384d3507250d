package scenarios

import (
	"strings"
	"testing"
	"time"

	"github.com/locksim/locksim/vocab"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestFamilyOfCatalogue holds every built-in scenario to the family its doc
// describes; a new catalogue file must be added here, so that the rule is
// checked against it.
func TestFamilyOfCatalogue(t *testing.T) {
	want := map[string]Family{
		"control-contention":                      FamilyControl,
		"control-short-pauses":                    FamilyControl,
		"race-exists-set":                         FamilyClientPause,
		"crash-between-setnx-expire":              FamilyCrash,
		"crash-holder":                            FamilyCrash,
		"gc-pause-after-check":                    FamilyClientPause,
		"gc-pause-before-check":                   FamilyClientPause,
		"gc-pause-before-check-no-validity-check": FamilyClientPause,
		"delayed-write":                           FamilyNetwork,
		"unlock-after-expiry":                     FamilyClientPause,
		"getset-client-clock-ahead":               FamilyClientClock,
		"failover-async-replication":              FamilyFailover,
		"redlock-restart-no-fsync":                FamilyRestart,
		"redlock-delayed-restart":                 FamilyRestart,
		"redlock-restart-fsync-always":            FamilyCrash,
		"redlock-node-clock-jump":                 FamilyNodeClock,
		"redlock-node-clock-fast":                 FamilyNodeClock,
		"redlock-node-clock-beyond-drift":         FamilyNodeClock,
		"redlock-node-clock-within-drift":         FamilyNodeClock,
		"holder-partitioned":                      FamilyNetwork,
		"watchdog-long-hold":                      FamilyControl,
		"watchdog-long-hold-no-watchdog":          FamilyClientPause,
		"watchdog-gc-pause":                       FamilyClientPause,
		"watchdog-renewal-cut":                    FamilyNetwork,
		"reentrant-nesting":                       FamilyClientPause,
		"rw-reader-deletes-reader":                FamilyClientPause,
		"rw-reader-pause":                         FamilyClientPause,
		"fenced-counter-failover":                 FamilyFailover,
		"redlock-lost-replies":                    FamilyNetwork,
		"notify-contention":                       FamilyControl,
		"notify-message-lost":                     FamilyNetwork,
		"notify-node-restart":                     FamilyCrash,
		"failover-wait-acknowledged":              FamilyFailover,
		"failover-wait-refuses":                   FamilyFailover,
		"failover-wait-still-loses":               FamilyRestart,
		"cluster-failover-lost-window":            FamilyFailover,
		"cluster-reshard-while-held":              FamilyFailover,
		"cluster-manual-failover":                 FamilyFailover,
		"cluster-crossslot":                       FamilyControl,
		"cluster-minority-master":                 FamilyFailover,
	}
	all := Builtin()
	require.Len(t, all, len(want), "every catalogue file has its family here")
	for _, s := range all {
		w, ok := want[s.Name]
		if assert.True(t, ok, "%s has no family in the table", s.Name) {
			assert.Equal(t, w, FamilyOf(s), s.Name)
		}
	}
}

func TestFamilyRule(t *testing.T) {
	yes, no := true, false
	short, long := Duration(50*time.Millisecond), Duration(time.Second)
	at := func(point string) *PointSpec { return &PointSpec{Point: point} }
	for _, tc := range []struct {
		name   string
		faults []FaultSpec
		want   Family
	}{
		{"no fault", nil, FamilyControl},
		{"a start gate is no fault", []FaultSpec{{Kind: "pause-client", When: at("before-acquire")}}, FamilyControl},
		{"a pause inside the lease", []FaultSpec{{Kind: "pause-client", When: at("after-enter")}}, FamilyClientPause},
		{"a pause shorter than the TTL is no fault", []FaultSpec{{Kind: "pause-client", When: at("after-check"), For: &short}}, FamilyControl},
		{"a long pause is one", []FaultSpec{{Kind: "pause-client", When: at("after-check"), For: &long}}, FamilyClientPause},
		{"a short pause with an until may last", []FaultSpec{{Kind: "pause-client", When: at("after-check"), For: &short, Until: at("after-enter")}}, FamilyClientPause},
		{"a pause at a time", []FaultSpec{{Kind: "pause-client"}}, FamilyClientPause},
		{"pause beats crash", []FaultSpec{{Kind: "crash-client"}, {Kind: "pause-client", When: at("after-check")}}, FamilyClientPause},
		{"network beats pause", []FaultSpec{{Kind: "pause-client", When: at("after-check")}, {Kind: "drop"}}, FamilyNetwork},
		{"node pause is network", []FaultSpec{{Kind: "pause-node"}}, FamilyNetwork},
		{"kill with data is crash, above network", []FaultSpec{{Kind: "partition"}, {Kind: "kill-node", KeepData: &yes}}, FamilyCrash},
		{"kill without data", []FaultSpec{{Kind: "kill-node", KeepData: &no}}, FamilyRestart},
		{"kill, data unset, loses it", []FaultSpec{{Kind: "kill-node"}}, FamilyRestart},
		{"client clock", []FaultSpec{{Kind: "clock-jump-client"}, {Kind: "delay"}}, FamilyClientClock},
		{"node clock over client clock", []FaultSpec{{Kind: "clock-skew-client"}, {Kind: "clock-rate-node"}}, FamilyNodeClock},
		{"restart over node clock", []FaultSpec{{Kind: "clock-jump-node"}, {Kind: "kill-node"}}, FamilyRestart},
		{"failover over everything", []FaultSpec{{Kind: "kill-node"}, {Kind: "failover"}, {Kind: "partition"}}, FamilyFailover},
		{"random counts its kinds", []FaultSpec{{Kind: "random", Kinds: []vocab.Kind{"delay", "pause-client"}}}, FamilyNetwork},
		{"random without kinds may fail over", []FaultSpec{{Kind: "random"}}, FamilyFailover},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, FamilyOf(&Scenario{Faults: tc.faults}))
		})
	}
	s := &Scenario{Faults: []FaultSpec{{Kind: "failover"}}, Family: string(FamilyNetwork)}
	assert.Equal(t, FamilyNetwork, FamilyOf(s), "family: overrides the rule")
}

func TestFamilyFieldStrict(t *testing.T) {
	_, err := Parse("f.yaml", []byte("name: x\nfamily: pauses\n"))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "family")
	assert.Contains(t, err.Error(), `unknown family "pauses"`)
	assert.NotContains(t, err.Error(), "\n")
	s, err := Parse("f.yaml", []byte("name: x\nfamily: network\n"))
	require.NoError(t, err)
	assert.Equal(t, FamilyNetwork, FamilyOf(s))
	for _, f := range Families() {
		assert.NotEqual(t, string(f), f.Title()[:0]+"", "title")
		assert.False(t, strings.Contains(f.Title(), "-"), "%s: a title is words", f)
	}
}
