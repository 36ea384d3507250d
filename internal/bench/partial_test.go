package bench

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// A run of lockbench without flags is full; each way of narrowing it is
// named, and a wider run stays full.
func TestPartial(t *testing.T) {
	full := func() *Report {
		return &Report{Backend: "redis-server 7.0.15", Settings: settingsOf(Config{}.withDefaults())}
	}
	assert.Empty(t, full().Partial())

	wider := full()
	wider.Settings.Clients = append(wider.Settings.Clients, 256)
	wider.Settings.DurationS, wider.Settings.Rounds = 10, 8
	assert.Empty(t, wider.Partial(), "more than the default sweep is still full")

	quick := full()
	quick.Settings = settingsOf(Quick().withDefaults())
	got := quick.Partial()
	assert.Len(t, got, 4, "%q", got)
	assert.Contains(t, got, "clients 1,4,16, not 1,4,16,64")
	assert.Contains(t, got, "nodes 1,5, not 1,3,5")
	assert.Contains(t, got, "450ms per configuration in 3 round(s), not 3s in 6")

	hot := full()
	hot.Settings.Contention = []Contention{HotKey}
	assert.Equal(t, []string{"contention hot only"}, hot.Partial())

	mini := full()
	mini.Backend = "miniredis"
	assert.Equal(t, []string{"backend miniredis, not redis-server"}, mini.Partial())

	under := full()
	under.Under = &UnderReport{Scenario: "gc-pause-after-check"}
	assert.Equal(t, []string{`it measured latency under scenario "gc-pause-after-check", not the sweep`}, under.Partial())

	assert.NotEmpty(t, (&Report{}).Partial(), "a bench.json that records nothing is not a full run")
}
