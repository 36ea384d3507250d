package scenarios

import (
	"github.com/locksim/locksim/faults"
	"io/fs"
	"path"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/locksim/locksim/lock"
	"github.com/locksim/locksim/sim"
	"github.com/locksim/locksim/vocab"
)

// TestBuiltinsParse: every embedded file parses, is named NN-<name>.yaml,
// documents itself, has a unique name, expects something of every
// registered design and resolves for every design it runs.
func TestBuiltinsParse(t *testing.T) {
	files, err := fs.Glob(catalogue, "catalogue/*.yaml")
	require.NoError(t, err)
	require.NotEmpty(t, files)
	fileName := regexp.MustCompile(`^(\d\d)-(.+)\.yaml$`)
	seen := map[string]string{}
	for _, f := range files {
		t.Run(path.Base(f), func(t *testing.T) {
			data, err := catalogue.ReadFile(f)
			require.NoError(t, err)
			s, err := Parse(f, data)
			require.NoError(t, err)

			m := fileName.FindStringSubmatch(path.Base(f))
			require.NotNil(t, m, "file name NN-<name>.yaml")
			assert.Equal(t, m[2], s.Name, "file name and name")
			assert.Empty(t, seen[s.Name], "name %s also in %s", s.Name, seen[s.Name])
			seen[s.Name] = f

			assert.GreaterOrEqual(t, strings.Count(strings.TrimSpace(s.Doc), ". ")+1, 2, "doc: two or three sentences at least")
			assert.NotEmpty(t, s.Source, "source")
			for _, algo := range lock.Names() {
				e, ok := s.Expect(algo)
				if assert.True(t, ok, "no expectation for %s", algo) && e.Verdict == vocab.Skip {
					assert.NotEmpty(t, e.Reason, "skip of %s needs a reason", algo)
				}
				if e.Verdict == vocab.Any {
					assert.NotEmpty(t, e.Reason, "%s: say why %s is not asserted", s.Name, algo)
				}
			}
			require.NotEmpty(t, s.Algorithms())
			for _, algo := range s.Algorithms() {
				_, err := s.Config(algo)
				require.NoError(t, err, algo)
				roundTrip(t, s, algo)
			}
		})
	}
	names := make([]string, 0, len(Builtin()))
	for _, s := range Builtin() {
		names = append(names, s.Name)
	}
	assert.Len(t, names, len(files), "Builtin returns every file")
	// Every scenario of the canonical catalogue, in its order, and the variants.
	canonical := []string{
		"control-contention", "control-short-pauses", "race-exists-set", "crash-between-setnx-expire",
		"crash-holder", "gc-pause-after-check", "gc-pause-before-check", "delayed-write",
		"unlock-after-expiry", "getset-client-clock-ahead", "failover-async-replication",
		"redlock-restart-no-fsync", "redlock-delayed-restart", "redlock-restart-fsync-always",
		"redlock-node-clock-jump", "redlock-node-clock-fast", "redlock-node-clock-within-drift",
		"holder-partitioned", "watchdog-long-hold", "watchdog-gc-pause", "watchdog-renewal-cut",
		"reentrant-nesting", "rw-reader-deletes-reader", "rw-reader-pause", "fenced-counter-failover",
		"redlock-lost-replies", "notify-contention", "notify-message-lost", "notify-node-restart",
	}
	last := -1
	for _, want := range canonical {
		i := slices.Index(names, want)
		if assert.GreaterOrEqual(t, i, 0, "%s of the canonical catalogue is not a built-in", want) {
			assert.Greater(t, i, last, "%s out of the canonical catalogue order", want)
			last = i
		}
	}
	for _, variant := range []string{"gc-pause-before-check-no-validity-check", "watchdog-long-hold-no-watchdog", "redlock-node-clock-beyond-drift"} {
		assert.Contains(t, names, variant)
	}
	assert.Equal(t, "gc-pause-before-check", names[slices.Index(names, "gc-pause-before-check-no-validity-check")-1], "catalogue order")
}

// TestBuiltinFresh: callers may change what Builtin and Lookup return.
func TestBuiltinFresh(t *testing.T) {
	a, err := Lookup("crash-holder")
	require.NoError(t, err)
	a.Name = "changed"
	a.Faults = nil
	b, err := Lookup("crash-holder")
	require.NoError(t, err)
	assert.Equal(t, "crash-holder", b.Name)
	assert.NotEmpty(t, b.Faults)
}

// TestResolvedRoundTrip: Resolved writes every default, and parses back to
// the configuration the original gives once sim's defaults are applied.
func TestResolvedRoundTrip(t *testing.T) {
	s, err := Parse("good.yaml", []byte(good))
	require.NoError(t, err)
	for _, algo := range s.Algorithms() {
		roundTrip(t, s, algo)
	}
	min, err := Parse("min.yaml", []byte("name: tiny\nfaults:\n  - {kind: crash-client, client: 1, when: {point: after-enter}}\n"))
	require.NoError(t, err)
	out := roundTrip(t, min, "redlock")
	for _, want := range []string{
		"algorithm: redlock\n", "ttl: 500ms\n", "drift: 0.01\n", "retry_delay: 50ms\n", "validity_check: true\n",
		"watchdog: false\n", "node_timeout: 50ms\n", "tolerance: 1s\n", "wait: poll\n", "backend: miniredis\n", "nodes: 1\n",
		"replicas: 0\n", "persistence: none\n", "clients: 2\n", "keys: 1\n", "duration: 3s\n", "hold: 20ms\n",
		"think: 5ms\n", "seed: 0\n", "when: {client: 1, point: after-enter, nth: 1}\n",
	} {
		assert.Contains(t, out, want)
	}
	assert.NotContains(t, out, "retries", "unbounded retries have no number")
	assert.NotContains(t, out, "expect", "nothing was expected")
}

// roundTrip checks Resolved(algo) for s and returns it.
func roundTrip(t *testing.T, s *Scenario, algo string) string {
	t.Helper()
	out, err := s.Resolved(algo)
	require.NoError(t, err)
	back, err := Parse("scenario.yaml", out)
	require.NoError(t, err, "Resolved output must parse:\n%s", out)
	assert.Equal(t, []string{algo}, []string(back.Algorithm))

	want, err := s.Config(algo)
	require.NoError(t, err)
	got, err := back.Config(algo)
	require.NoError(t, err)
	assert.Equal(t, plain(t, want), plain(t, got), "%s for %s", s.Name, algo)

	e1, ok1 := s.Expect(algo)
	e2, ok2 := back.Expect(algo)
	assert.Equal(t, ok1, ok2)
	assert.Equal(t, e1, e2)

	again, err := back.Resolved(algo)
	require.NoError(t, err)
	assert.Equal(t, string(out), string(again), "Resolved is a fixed point")
	return string(out)
}

// resolvedConfig is cfg as a run takes it: every default filled in.
func resolvedConfig(t *testing.T, cfg sim.Config) sim.Config {
	t.Helper()
	spec, err := cfg.Resolve()
	require.NoError(t, err)
	return spec.Config()
}

// plain is c as a run sees it (sim's defaults applied), less what differs
// between runs of one configuration (functions, a random owner), with the
// cluster's persistence default applied too.
func plain(t *testing.T, c sim.Config) sim.Config {
	c = resolvedConfig(t, c)
	c.Options.Tokens, c.Options.Clock, c.Options.Hook, c.Options.Renewed, c.Options.Owner = nil, nil, nil, nil, ""
	if c.Cluster.Persistence == "" {
		c.Cluster.Persistence = sim.PersistenceNone
	}
	return c
}

// TestFaultKinds: the supported kinds are exactly the designed ones
// (designKinds), each parses and resolves with its registry entry's
// example, and a kind
// nobody names is refused with the known ones listed.
func TestFaultKinds(t *testing.T) {
	assert.ElementsMatch(t, vocab.KindStrings(designKinds), supportedKinds())
	// the Redis Cluster kinds run on that backend alone
	world := func(k vocab.Kind) string {
		if strings.HasPrefix(string(k), "cluster-") {
			return "backend: redis-cluster\nnodes: 3\n"
		}
		return ""
	}
	for _, k := range designKinds {
		e, ok := faults.Lookup(k)
		if !assert.True(t, ok, "%s is not registered", k) || !assert.NotEmpty(t, e.Example, "%s has no example", k) {
			continue
		}
		fields := e.Example
		s, err := Parse("k.yaml", []byte("name: k\nalgorithm: setpx\n"+world(k)+"replicas: 1\nfaults:\n  - {kind: "+string(k)+", "+fields+", at: 1s}\n"))
		if assert.NoError(t, err, k) {
			_, err = s.Config("setpx")
			assert.NoError(t, err, k)
		}
	}
	_, err := Parse("k.yaml", []byte("name: k\nfaults:\n  - kind: teleport\n    client: 0\n    at: 1s\n"))
	assert.EqualError(t, err, `k.yaml:3: faults[0].kind: unknown fault kind "teleport" (known: `+strings.Join(vocab.KindStrings(designKinds), ", ")+`)`)
	// faultFields covers every field of FaultSpec but the kind, the
	// trigger and optional, which apply to every kind.
	var fields []string
	for _, n := range yamlNames(reflect.TypeFor[FaultSpec]()) {
		if n != "kind" && n != "at" && n != "when" && n != "optional" {
			fields = append(fields, n)
		}
	}
	assert.ElementsMatch(t, fields, faultFields)
	present := FaultSpec{}.present()
	assert.Len(t, present, len(faultFields))
}
