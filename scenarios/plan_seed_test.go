package scenarios

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestPlanWithSeed: a plan moved to another seed is the plan of the
// scenario with that seed, configuration and scenario.yaml, on every
// catalogue pair.
func TestPlanWithSeed(t *testing.T) {
	pairs := 0
	for _, s := range Builtin() {
		for _, algo := range s.Algorithms() {
			p, err := s.Plan(algo, Servers{})
			require.NoError(t, err, "%s/%s", s.Name, algo)
			for _, seed := range []uint64{0, 1, deref(s.Seed) + 1, 12345678901234567890} {
				r := *s
				r.Seed = &seed
				want, err := r.Plan(algo, Servers{})
				require.NoError(t, err)
				got, ok := p.WithSeed(seed)
				require.True(t, ok, "%s/%s", s.Name, algo)
				assert.Equal(t, string(want.YAML), string(got.YAML), "%s/%s seed %d", s.Name, algo, seed)
				assert.Equal(t, want, got, "%s/%s seed %d", s.Name, algo, seed)
			}
			pairs++
		}
	}
	assert.Greater(t, pairs, 200, "the catalogue's pairs")
}

// TestPlanWithSeedRefuses: a YAML without its seed line is not patched.
func TestPlanWithSeedRefuses(t *testing.T) {
	s := Builtin()[0]
	algo := s.Algorithms()[0]
	p, err := s.Plan(algo, Servers{})
	require.NoError(t, err)
	p.YAML = []byte("name: x\n")
	_, ok := p.WithSeed(3)
	assert.False(t, ok)
	p.YAML = []byte("a: 1\nseed: 0\nb: 2\nseed: 0\n")
	p.Config.Seed = 0
	_, ok = p.WithSeed(3)
	assert.False(t, ok, "two seed lines")
}
