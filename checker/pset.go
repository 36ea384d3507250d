package checker

import (
	"cmp"
	"strings"
)

// setNode is a persistent (path-copying) binary search tree of sections,
// ordered by hash. Porcupine states must be immutable values; copying a
// growing set at every step would make the fenced model quadratic. Hashed
// keys arrive in effectively random order, so the tree stays shallow
// (about 2 ln n) without rebalancing. A nil *setNode is the empty set.
type setNode struct {
	hash        uint64
	sec         section
	left, right *setNode
}

func compareKey(h uint64, s section, n *setNode) int {
	return cmp.Or(cmp.Compare(h, n.hash), cmp.Compare(s.client, n.sec.client),
		cmp.Compare(s.fence, n.sec.fence), strings.Compare(s.token, n.sec.token))
}

func (n *setNode) contains(h uint64, s section) bool {
	for n != nil {
		switch c := compareKey(h, s, n); {
		case c < 0:
			n = n.left
		case c > 0:
			n = n.right
		default:
			return true
		}
	}
	return false
}

// insert returns a set that also holds s; n is unchanged. s must not be in
// n already (the model checks first).
func (n *setNode) insert(h uint64, s section) *setNode {
	if n == nil {
		return &setNode{hash: h, sec: s}
	}
	c := *n
	if compareKey(h, s, n) < 0 {
		c.left = n.left.insert(h, s)
	} else {
		c.right = n.right.insert(h, s)
	}
	return &c
}

// elements appends the set in key order: two sets are equal iff their
// element lists are, whatever their shapes.
func (n *setNode) elements(dst []section) []section {
	if n == nil {
		return dst
	}
	dst = n.left.elements(dst)
	dst = append(dst, n.sec)
	return n.right.elements(dst)
}

// FNV-1a style mixing, enough to spread sections over the tree and over
// porcupine's cache buckets.
const (
	fnvOffset = 14695981039346656037
	fnvPrime  = 1099511628211
)

func mix(h, v uint64) uint64 {
	for i := 0; i < 8; i++ {
		h ^= v & 0xff
		h *= fnvPrime
		v >>= 8
	}
	return h
}

func sectionHash(s section) uint64 {
	h := mix(mix(fnvOffset, uint64(s.client)), uint64(s.fence))
	for i := 0; i < len(s.token); i++ {
		h ^= uint64(s.token[i])
		h *= fnvPrime
	}
	// final avalanche so that sequential tokens do not build a list
	h ^= h >> 33
	h *= 0xff51afd7ed558ccd
	h ^= h >> 33
	return h
}
