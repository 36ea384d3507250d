package node

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestLinksOfAWorld(t *testing.T) {
	cfg := ClusterConfig{Nodes: 2, Replicas: 1}
	var got []string
	for _, l := range cfg.Links(2) {
		got = append(got, l.String())
	}
	assert.Equal(t, []string{
		"c0<->n0", "c0<->n1", "c0<->resource", "c1<->n0", "c1<->n1", "c1<->resource", "r0<->n0", "r1<->n1",
	}, got)
}
