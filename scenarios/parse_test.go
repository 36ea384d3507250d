package scenarios

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/locksim/locksim/faults"
	"github.com/locksim/locksim/lock"
	"github.com/locksim/locksim/sim"
	"github.com/locksim/locksim/vocab"
)

// good is a valid file using most of the schema; the bad cases below each
// break one thing in a file like it.
const good = `name: gc-pause-after-check
doc: >
  Client 0 passes its validity check, then pauses longer than the TTL.
source: Kleppmann 2016
algorithm: [redlock, setpx, fenced]
options: {ttl: 500ms, drift: 0.01, retries: 3, retry_delay: 20ms, watchdog: false, fencing: false, node_timeout: 40ms, tolerance: 2s}
backend: miniredis
nodes: 5
replicas: 0
persistence: none
clients: 3
keys: 2
read_ratio: 0
duration: 3s
hold: 20ms
think: 5ms
seed: 42
faults:
  - kind: pause-client
    client: 0
    when: {point: after-check, nth: 2}
    for: 1s
    until: {client: 1, point: after-enter}
  - kind: crash-client
    client: 2
    at: 1200ms
expect:
  redlock: {verdict: unsafe, exclusion: unsafe, claim: safe}
  fenced: safe
  "*": unsafe
`

func TestParseGood(t *testing.T) {
	s, err := Parse("good.yaml", []byte(good))
	require.NoError(t, err)
	assert.Equal(t, "gc-pause-after-check", s.Name)
	assert.Equal(t, []string{"redlock", "setpx", "fenced"}, s.Algorithms())

	cfg, err := s.Config("redlock")
	require.NoError(t, err)
	assert.Equal(t, 500*time.Millisecond, cfg.Options.TTL)
	assert.Equal(t, 0.01, cfg.Options.Drift)
	assert.Equal(t, 4, cfg.Options.Retry.MaxTries, "retries: 3 is four attempts")
	assert.Equal(t, 20*time.Millisecond, cfg.Options.Retry.Interval)
	assert.Equal(t, 40*time.Millisecond, cfg.Options.NodeTimeout)
	assert.Equal(t, 2*time.Second, cfg.Options.Tolerance)
	assert.True(t, cfg.Options.ValidityCheck, "validity_check defaults to on")
	assert.Equal(t, sim.ClusterConfig{Backend: sim.BackendMiniredis, Nodes: 5, Persistence: sim.PersistenceNone}, cfg.Cluster)
	assert.Equal(t, 3, cfg.Clients)
	assert.Equal(t, 2, cfg.Keys)
	assert.Equal(t, 3*time.Second, cfg.Duration)
	assert.Equal(t, uint64(42), cfg.Seed)
	assert.Equal(t, []sim.Planned{
		{
			Fault: faults.PauseClient{Client: 0},
			Start: sim.Trigger{Client: 0, Point: vocab.PointAfterCheck, Nth: 2},
			For:   time.Second,
			Until: &sim.Trigger{Client: 1, Point: vocab.PointAfterEnter, Nth: 1},
		},
		{Fault: faults.CrashClient{Client: 2}, Start: sim.Trigger{At: 1200 * time.Millisecond}},
	}, cfg.Faults)

	e, ok := s.Expect("redlock")
	require.True(t, ok)
	assert.Equal(t, Expectation{Verdict: vocab.Unsafe, Checks: map[string]vocab.Verdict{vocab.CheckExclusion: vocab.Unsafe, vocab.CheckClaim: vocab.Safe}}, e)
	e, ok = s.Expect("setpx")
	require.True(t, ok)
	assert.Equal(t, Expectation{Verdict: vocab.Unsafe}, e, "setpx falls to *")
}

func TestParseCluster(t *testing.T) {
	s, err := Parse("r.yaml", []byte("name: r\nbackend: redis\nreplicas: 1\npersistence: always\n"))
	require.NoError(t, err)
	cfg, err := s.Config("setpx")
	require.NoError(t, err)
	assert.Equal(t, sim.ClusterConfig{Backend: sim.BackendRedis, Replicas: 1, Persistence: sim.PersistenceAlways}, cfg.Cluster)
	roundTrip(t, s, "setpx")
}

// A node's or a link's fault at a point names no client: it starts the
// nth time any client reaches the point, and stays so written out; a
// client's fault still defaults to its own client.
func TestPointOfAnyClient(t *testing.T) {
	s, err := Parse("any.yaml", []byte(`name: any
algorithm: setpx
clients: 2
faults:
  - {kind: kill-node, node: 0, when: {point: after-enter, nth: 2}, restart_after: 0s}
  - {kind: pause-client, client: 1, when: {point: after-check}, for: 10ms}
`))
	require.NoError(t, err)
	cfg, err := s.Config("setpx")
	require.NoError(t, err)
	assert.Equal(t, sim.Trigger{AnyClient: true, Point: vocab.PointAfterEnter, Nth: 2}, cfg.Faults[0].Start)
	assert.Equal(t, sim.Trigger{Client: 1, Point: vocab.PointAfterCheck, Nth: 1}, cfg.Faults[1].Start)
	out := roundTrip(t, s, "setpx")
	assert.Contains(t, out, "when: {point: after-enter, nth: 2}")
}

func TestParseMinimal(t *testing.T) {
	s, err := Parse("min.yaml", []byte("name: tiny\n"))
	require.NoError(t, err)
	_, ok := s.Expect("setpx")
	assert.False(t, ok, "nothing expected")
	needReplica := 0
	for _, i := range lock.Algorithms() {
		if i.NeedsReplica {
			needReplica++
		}
	}
	assert.Len(t, s.Algorithms(), len(lock.Names())-needReplica, "no algorithm: every design that needs no replica")
	cfg, err := s.Config("setpx")
	require.NoError(t, err)
	assert.True(t, cfg.Options.ValidityCheck)
	assert.Zero(t, cfg.Options.Retry.MaxTries, "no retries: keep trying until the run ends")
	assert.Zero(t, cfg.Clients, "left for sim.Config.Resolve")

	s, err = Parse("one.yaml", []byte("name: one\nalgorithm: setpx\noptions: {validity_check: false}\n"))
	require.NoError(t, err)
	assert.Equal(t, []string{"setpx"}, s.Algorithms())
	cfg, err = s.Config("setpx")
	require.NoError(t, err)
	assert.False(t, cfg.Options.ValidityCheck)
}

// TestParseBad: every row is one line of the message format
// file:LINE: field: problem (value), with the line of the offending field.
func TestParseBad(t *testing.T) {
	cases := []struct {
		name  string
		yaml  string
		line  int
		field string
		has   []string // further substrings: the value, the known names
	}{
		{"unknown top field", "name: x\ncolour: red\n", 2, "colour", []string{"unknown field", "name, doc"}},
		{"unknown option", "name: x\noptions:\n  ttl: 1s\n  tll: 1s\n", 4, "options.tll", []string{"unknown field", "ttl"}},
		{"unknown fault field", "name: x\nfaults:\n  - kind: crash-client\n    client: 0\n    at: 1s\n    colour: red\n", 6, "faults[0].colour", []string{"unknown field"}},
		{"unknown when field", "name: x\nfaults:\n  - kind: pause-client\n    client: 0\n    when: {point: after-check, nht: 2}\n", 5, "faults[0].when.nht", []string{"unknown field"}},
		{"repeated field", "name: x\nnodes: 1\nnodes: 2\n", 3, "nodes", []string{"given twice", "line 2"}},
		{"bad duration", "name: x\nduration: 3 seconds\n", 2, "duration", []string{"not a duration", "(3 seconds)"}},
		{"bare number duration", "name: x\noptions:\n  ttl: 500\n", 3, "options.ttl", []string{"not a duration", "(500)"}},
		{"bad fault duration", "name: x\nfaults:\n  - kind: pause-client\n    client: 0\n    at: 1s\n    for: soon\n", 6, "faults[0].for", []string{"not a duration", "(soon)"}},
		{"duration as list", "name: x\nhold: [1s]\n", 2, "hold", []string{"want a duration"}},
		{"not a number", "name: x\nnodes: five\n", 2, "nodes", []string{"integer", "(five)"}},
		{"negative seed", "name: x\nseed: -1\n", 2, "seed", []string{"non-negative integer", "(-1)"}},
		{"list for a value", "name: x\nclients: [1, 2]\n", 2, "clients", []string{"single value"}},
		{"unknown fault kind", "name: x\nfaults:\n  - kind: teleport\n    client: 0\n    at: 1s\n", 3, "faults[0].kind", []string{`unknown fault kind "teleport"`, "pause-client"}},
		// A misspelt kind after a good entry names its own line and index.
		{"unknown fault kind after a good one", "name: x\nfaults:\n  - kind: crash-client\n    client: 0\n    at: 1s\n  - kind: kill-nodes\n    node: 0\n    at: 1s\n", 6, "faults[1].kind",
			[]string{`unknown fault kind "kill-nodes"`, "kill-node, failover, random"}},
		{"missing kind", "name: x\nfaults:\n  - client: 0\n    at: 1s\n", 3, "faults[0]", []string{"missing kind"}},
		{"unknown algorithm", "name: x\nalgorithm: redlokc\n", 2, "algorithm", []string{`unknown algorithm "redlokc"`, "redlock"}},
		{"unknown algorithm in list", "name: x\nalgorithm:\n  - setpx\n  - redlokc\n", 4, "algorithm[1]", []string{`"redlokc"`}},
		{"algorithm twice", "name: x\nalgorithm: [setpx, setpx]\n", 2, "algorithm[1]", []string{"listed twice", "(setpx)"}},
		{"unknown algorithm in expect", "name: x\nexpect:\n  setpx: safe\n  redlokc: unsafe\n", 4, "expect.redlokc", []string{`unknown algorithm "redlokc"`, `"*"`}},
		{"unknown verdict", "name: x\nexpect:\n  setpx: fine\n", 3, "expect.setpx", []string{"unknown verdict", "(fine)", "safe, unsafe"}},
		{"unknown check", "name: x\nexpect:\n  setpx: {verdict: unsafe, exclsion: unsafe}\n", 3, "expect.setpx.exclsion", []string{"unknown field", "exclusion"}},
		{"bad check verdict", "name: x\nexpect:\n  setpx: {verdict: unsafe, claim: maybe}\n", 3, "expect.setpx.claim", []string{"(maybe)"}},
		{"skip without reason", "name: x\nexpect:\n  setpx: skip\n", 3, "expect.setpx", []string{"skip needs a reason"}},
		{"everything skipped", "name: x\nalgorithm: setpx\nexpect:\n  setpx: {verdict: skip, reason: r}\n", 3, "expect", []string{"nothing would run", "(setpx)"}},
		{"contradiction", "name: x\nexpect:\n  setpx: {verdict: safe, exclusion: unsafe}\n", 3, "expect.setpx", []string{"contradicts exclusion"}},
		{"deadlock on a safety check", "name: x\nexpect:\n  setpx: {claim: deadlock}\n", 3, "expect.setpx.claim", []string{"cannot be deadlock"}},
		{"client out of range", "name: x\nclients: 2\nfaults:\n  - kind: crash-client\n    client: 2\n    at: 1s\n", 5, "faults[0].client", []string{"out of range", "0..1", "(2)"}},
		{"client out of range by default", "name: x\nfaults:\n  - kind: crash-client\n    client: 5\n    at: 1s\n", 4, "faults[0].client", []string{"0..1", "(5)"}},
		{"when.client out of range", "name: x\nclients: 3\nfaults:\n  - kind: pause-client\n    client: 0\n    when: {client: 3, point: after-enter}\n", 6, "faults[0].when.client", []string{"out of range", "(3)"}},
		{"until.client out of range", "name: x\nfaults:\n  - kind: pause-client\n    client: 0\n    at: 1s\n    until:\n      client: -1\n      point: after-enter\n", 7, "faults[0].until.client", []string{"out of range", "(-1)"}},
		{"negative client", "name: x\nfaults:\n  - kind: crash-client\n    client: -1\n    at: 1s\n", 4, "faults[0].client", []string{"(-1)"}},
		{"nodes 0", "name: x\nnodes: 0\n", 2, "nodes", []string{"at least 1", "(0)"}},
		{"clients 0", "name: x\nclients: 0\n", 2, "clients", []string{"at least 1", "(0)"}},
		{"keys negative", "name: x\nkeys: -2\n", 2, "keys", []string{"(-2)"}},
		{"at and when", "name: x\nfaults:\n  - kind: crash-client\n    client: 0\n    at: 1s\n    when: {point: after-acquire}\n", 6, "faults[0].when", []string{"not both", "(at: 1s)"}},
		{"neither at nor when", "name: x\nfaults:\n  - kind: pause-client\n    client: 0\n    for: 1s\n", 3, "faults[0]", []string{"no trigger", "(pause-client)"}},
		{"unknown point", "name: x\nfaults:\n  - kind: pause-client\n    client: 0\n    when:\n      point: after-chek\n", 6, "faults[0].when.point",
			[]string{`unknown point "after-chek"`, "after-check", "between-setnx-and-expire"}},
		{"unknown until point", "name: x\nfaults:\n  - kind: pause-client\n    client: 0\n    at: 1s\n    until: {point: later}\n", 6, "faults[0].until.point", []string{`"later"`}},
		{"missing point", "name: x\nfaults:\n  - kind: pause-client\n    client: 0\n    when: {nth: 2}\n", 5, "faults[0].when", []string{"missing point"}},
		{"nth 0", "name: x\nfaults:\n  - kind: pause-client\n    client: 0\n    when: {point: after-enter, nth: 0}\n", 5, "faults[0].when.nth", []string{"at least 1", "(0)"}},
		{"zero for", "name: x\nfaults:\n  - kind: pause-client\n    client: 0\n    at: 1s\n    for: 0s\n", 6, "faults[0].for", []string{"positive", "(0s)"}},
		{"negative at", "name: x\nfaults:\n  - kind: pause-client\n    client: 0\n    at: -1s\n", 5, "faults[0].at", []string{"negative", "(-1s)"}},
		{"zero duration", "name: x\nduration: 0s\n", 2, "duration", []string{"positive", "(0s)"}},
		{"zero hold", "name: x\nhold: 0s\n", 2, "hold", []string{"positive", "20ms", "(0s)"}},
		{"negative think", "name: x\nthink: -5ms\n", 2, "think", []string{"positive", "(-5ms)"}},
		{"zero ttl", "name: x\noptions:\n  ttl: 0s\n", 3, "options.ttl", []string{"at least 1ms", "(0s)"}},
		{"zero retry delay", "name: x\noptions: {retry_delay: 0s}\n", 2, "options.retry_delay", []string{"positive", "(0s)"}},
		{"zero drift", "name: x\noptions: {drift: 0}\n", 2, "options.drift", []string{"(0)"}},
		{"negative retries", "name: x\noptions: {retries: -1}\n", 2, "options.retries", []string{"(-1)"}},
		{"field not for kind", "name: x\nfaults:\n  - kind: crash-client\n    client: 0\n    at: 1s\n    for: 1s\n", 6, "faults[0].for", []string{"does not apply to crash-client", "forever", "(1s)"}},
		{"node on a client fault", "name: x\nfaults:\n  - kind: pause-client\n    client: 0\n    node: 0\n    at: 1s\n", 5, "faults[0].node", []string{"does not apply to pause-client", "(0)"}},
		{"fault without client", "name: x\nfaults:\n  - kind: pause-client\n    at: 1s\n", 3, "faults[0]", []string{"needs client"}},
		{"missing name", "algorithm: setpx\n", 1, "name", []string{"missing"}},
		{"name with slash", "name: a/b\n", 1, "name", []string{"(a/b)"}},
		{"backend external", "name: x\nbackend: external\n", 2, "backend", []string{"not supported yet", "(external)"}},
		{"backend unknown", "name: x\nbackend: memcached\n", 2, "backend", []string{"(memcached)"}},
		{"persistence on miniredis", "name: x\nbackend: miniredis\npersistence: always\n", 3, "persistence", []string{"backend: redis", "(always)"}},
		{"unknown failover mode", "name: x\nbackend: redis\nreplicas: 1\nfailover: {mode: raft}\n", 4, "failover.mode", []string{"raft", "sentinel, direct or emulated"}},
		{"sentinel on miniredis", "name: x\nbackend: miniredis\nreplicas: 1\nfailover: {mode: sentinel}\n", 4, "failover.mode", []string{"needs backend redis"}},
		{"sentinel setting for direct", "name: x\nbackend: redis\nreplicas: 1\nfailover: {mode: direct, down_after: 1s}\n", 4, "failover", []string{"Sentinel's settings"}},
		{"replicas", "name: x\nreplicas: 2\n", 2, "replicas", []string{"0 or 1", "(2)"}},
		{"read ratio range", "name: x\nread_ratio: 1.5\n", 2, "read_ratio", []string{"(1.5)"}},
		{"roles count", "name: x\nalgorithm: rwlock\nclients: 3\nroles: [read, write]\n", 4, "roles", []string{"2 roles for 3 clients"}},
		{"unknown role", "name: x\nalgorithm: rwlock\nroles: [read, reader]\n", 3, "roles[1]", []string{"want read, write or any", "reader"}},
		{"nest zero", "name: x\nalgorithm: reentrant\nnest: 0\n", 3, "nest", []string{"at least 1", "(0)"}},
		{"bad wait", "name: x\nalgorithm: setpx\noptions: {wait: pol}\n", 3, "options.wait", []string{"must be poll or notify", "(pol)"}},
		{"alias", "name: x\nhold: &h 10ms\nthink: *h\n", 3, "", []string{"aliases are not supported", "(*h)"}},
		{"merge key", "name: x\noptions: &o {ttl: 1s}\nfaults:\n  - <<: *o\n", 4, "", []string{"aliases"}},
		{"yaml syntax", "name: x\nfaults: [\n", 2, "", []string{"did not find expected"}},
		{"not a mapping", "- name: x\n", 1, "", []string{"want a mapping"}},
		{"two documents", "name: x\n---\nname: y\n", 2, "", []string{"second YAML document"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s, err := Parse("bad.yaml", []byte(c.yaml))
			require.Error(t, err)
			assert.Nil(t, s)
			var e *Error
			require.True(t, errors.As(err, &e), "error type %T: %v", err, err)
			assert.Equal(t, c.line, e.Line, "line: %v", err)
			assert.Equal(t, c.field, e.Field, "field: %v", err)
			msg := err.Error()
			assert.NotContains(t, msg, "\n", "one line")
			prefix := "bad.yaml:" + strconv.Itoa(c.line) + ": "
			if c.field != "" {
				prefix += c.field + ": "
			}
			assert.True(t, strings.HasPrefix(msg, prefix), "%q does not start with %q", msg, prefix)
			for _, h := range c.has {
				assert.Contains(t, msg, h)
			}
		})
	}
}

func TestParseEmpty(t *testing.T) {
	for _, in := range []string{"", "# only a comment\n"} {
		_, err := Parse("empty.yaml", []byte(in))
		require.Error(t, err)
		assert.Equal(t, "empty.yaml: empty: want a mapping of scenario fields (name, algorithm, ...)", err.Error())
	}
}

// TestExpectationForms: a verdict, or a mapping with checks and a reason;
// and what Asserted and Algorithms make of skip and any.
func TestExpectationForms(t *testing.T) {
	s, err := Parse("x.yaml", []byte(`name: x
algorithm: [setpx, redlock, naive, fenced]
expect:
  setpx: safe
  redlock: {verdict: skip, reason: "needs replicas"}
  naive: {exclusion: unsafe}
  "*": {verdict: unsafe, exclusion: unsafe, claim: safe, fencing: skipped, liveness: safe, reason: "why"}
`))
	require.NoError(t, err)
	cases := []struct {
		algo     string
		want     Expectation
		asserted bool
	}{
		{"setpx", Expectation{Verdict: vocab.Safe}, true},
		{"redlock", Expectation{Verdict: vocab.Skip, Reason: "needs replicas"}, false},
		{"naive", Expectation{Verdict: vocab.Any, Checks: map[string]vocab.Verdict{vocab.CheckExclusion: vocab.Unsafe}}, false},
		{"fenced", Expectation{Verdict: vocab.Unsafe, Reason: "why", Checks: map[string]vocab.Verdict{
			vocab.CheckExclusion: vocab.Unsafe, vocab.CheckClaim: vocab.Safe, vocab.CheckFencing: vocab.Skipped, vocab.CheckLiveness: vocab.Safe}}, true},
	}
	for _, c := range cases {
		got, ok := s.Expect(c.algo)
		require.True(t, ok, c.algo)
		assert.Equal(t, c.want, got, c.algo)
		assert.Equal(t, c.asserted, got.Asserted(), c.algo)
	}
	assert.Equal(t, []string{"setpx", "naive", "fenced"}, s.Algorithms(), "skip is not run")
}

func TestLoadFileAndLookup(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "mine.yaml")
	require.NoError(t, os.WriteFile(path, []byte(good), 0o644))

	s, err := LoadFile(path)
	require.NoError(t, err)
	assert.Equal(t, "gc-pause-after-check", s.Name)

	s, err = Lookup(path)
	require.NoError(t, err, "a path")
	assert.Equal(t, []string{"redlock", "setpx", "fenced"}, s.Algorithms(), "the file, not the built-in of the same name")

	s, err = Lookup("crash-holder")
	require.NoError(t, err, "a built-in name")
	assert.Equal(t, "crash-holder", s.Name)

	_, err = Lookup("no-such-scenario")
	require.Error(t, err)
	assert.NotContains(t, err.Error(), "\n")
	assert.Contains(t, err.Error(), `"no-such-scenario"`)
	assert.Contains(t, err.Error(), "see 'locksim list'", "no name is near: a pointer to the list, not the list")
	assert.NotContains(t, err.Error(), "control-contention")

	_, err = Lookup("crash-holdr")
	require.Error(t, err)
	assert.Contains(t, err.Error(), "did you mean crash-holder?")

	bad := filepath.Join(dir, "bad.yaml")
	require.NoError(t, os.WriteFile(bad, []byte("name: x\nnodes: 0\n"), 0o644))
	_, err = Lookup(bad)
	require.EqualError(t, err, bad+":2: nodes: need at least 1 (0)")
}

// TestConfigOverride: Config takes any registered design, also one the file
// does not list (--algo), and checks the options against it.
func TestConfigOverride(t *testing.T) {
	s, err := Parse("w.yaml", []byte("name: w\nalgorithm: setpx\noptions:\n  watchdog: true\n"))
	require.NoError(t, err)
	_, err = s.Config("redlock")
	require.NoError(t, err)
	_, err = s.Config("setnx-expire")
	require.EqualError(t, err, "w.yaml:4: options.watchdog: setnx-expire has no watchdog; list the algorithms that apply or expect setnx-expire as skip (true)")
	_, err = s.Config("nope")
	require.Error(t, err)
	assert.Contains(t, err.Error(), `unknown algorithm "nope"`)
}

// TestScenarioBuiltInGo: a Scenario made in Go, not parsed, is checked by
// Config all the same, with no line to name.
func TestScenarioBuiltInGo(t *testing.T) {
	s := &Scenario{Name: "go", Faults: []FaultSpec{{Kind: "pause-client", At: ptr(Duration(0))}}}
	_, err := s.Config("setpx")
	require.EqualError(t, err, "faults[0]: pause-client needs client (pause-client)")

	s.Faults[0].Client = ptr(1)
	cfg, err := s.Config("setpx")
	require.NoError(t, err)
	assert.Equal(t, []sim.Planned{{Fault: faults.PauseClient{Client: 1}}}, cfg.Faults)
}

// A file covering every design with a read ratio loads (the read/write
// designs take it); a design without a read lock is refused when it is
// resolved for a run, naming it, at the file's line.
func TestReadRatioForEveryDesign(t *testing.T) {
	s, err := Parse("bad.yaml", []byte("name: x\nread_ratio: 0.5\n"))
	require.NoError(t, err)
	_, err = s.Config("rwlock")
	require.NoError(t, err)
	_, err = s.Config("setpx")
	var e *Error
	require.True(t, errors.As(err, &e), "error type %T: %v", err, err)
	assert.Equal(t, 2, e.Line)
	assert.Equal(t, "read_ratio", e.Field)
	for _, w := range []string{"setpx has no read lock", "expect", "skip"} {
		assert.Contains(t, err.Error(), w)
	}
}

// TestDesignRefusedWhenResolved: what the file's own design cannot take
// loads, and is refused in one line naming that design, at the file's line,
// when the design is resolved for a run; a design given with --algos that
// takes the file resolves.
func TestDesignRefusedWhenResolved(t *testing.T) {
	cases := []struct {
		name, yaml string
		line       int
		field      string
		has        []string
		takes      string // a design that takes the file
	}{
		{"read ratio without read lock", "name: x\nalgorithm: setpx\nread_ratio: 0.5\n", 3, "read_ratio", []string{"setpx has no read lock", "(0.5)"}, "rwlock"},
		{"read role without read lock", "name: x\nalgorithm: setpx\nroles: [read, write]\n", 3, "roles", []string{"setpx has no read lock"}, "rwlock"},
		{"nest without reentrancy", "name: x\nalgorithm: setpx\nnest: 3\n", 3, "nest", []string{"setpx is not reentrant", "(3)"}, "reentrant"},
		{"watchdog without one", "name: x\nalgorithm: setnx-expire\noptions:\n  watchdog: true\n", 4, "options.watchdog", []string{"setnx-expire has no watchdog", "(true)"}, "reentrant"},
		{"notify without a publishing release", "name: x\nalgorithm: setpx-del\noptions:\n  wait: notify\n", 4, "options.wait", []string{"setpx-del cannot notify", "(notify)"}, "setpx"},
		{"fencing without tokens", "name: x\nalgorithm: setpx\noptions: {fencing: true}\n", 3, "options.fencing", []string{"setpx has no fencing", "(true)"}, "fenced"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s, err := Parse("bad.yaml", []byte(c.yaml))
			require.NoError(t, err)
			_, err = s.Config(s.Algorithm[0])
			var e *Error
			require.True(t, errors.As(err, &e), "error type %T: %v", err, err)
			assert.Equal(t, c.line, e.Line, "line: %v", err)
			assert.Equal(t, c.field, e.Field, "field: %v", err)
			msg := err.Error()
			assert.NotContains(t, msg, "\n", "one line")
			assert.True(t, strings.HasPrefix(msg, "bad.yaml:"+strconv.Itoa(c.line)+": "+c.field+": "), msg)
			for _, h := range c.has {
				assert.Contains(t, msg, h)
			}
			_, err = s.Config(c.takes)
			assert.NoError(t, err, "--algos %s", c.takes)
		})
	}
}
