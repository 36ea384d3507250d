package miniredis

import (
	"fmt"
	"math/rand"
	"reflect"
	"testing"
	"time"
)

// fastForwardAllKeys is upstream's fastForward: every key, sorted, looked
// at for a TTL and a hash field TTL.
func (db *RedisDB) fastForwardAllKeys(duration time.Duration) {
	for _, key := range db.allKeys() {
		if value, ok := db.ttl[key]; ok {
			db.ttl[key] = value - duration
			db.checkTTL(key)
		}
		if db.t(key) == keyTypeHash {
			db.checkHashFieldTTL(key, duration)
		}
	}
}

// TestFastForwardActsOnTTLKeysAsOnAll checks that fastForward, which looks
// only at the keys with a TTL or a hash field TTL, leaves a database as
// upstream's walk over every key does: the same keys, values, TTLs,
// versions and hash fields, over random databases and steps.
func TestFastForwardActsOnTTLKeysAsOnAll(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	for round := 0; round < 200; round++ {
		a, b := NewMiniRedis(), NewMiniRedis()
		build := func(m *Miniredis, seed int64) {
			r := rand.New(rand.NewSource(seed))
			db := m.DB(0)
			for i := 0; i < 30; i++ {
				k := fmt.Sprintf("k%d", r.Intn(40))
				switch r.Intn(3) {
				case 0:
					db.stringSet(k, "v")
				case 1:
					db.hashSet(k, "f1", "a", "f2", "b")
					if r.Intn(2) == 0 {
						db.hashTTLs[k] = map[string]time.Duration{"f1": time.Duration(1+r.Intn(50)) * time.Millisecond}
						if r.Intn(2) == 0 {
							db.hashTTLs[k]["f2"] = time.Duration(1+r.Intn(50)) * time.Millisecond
						}
					}
				case 2:
					db.stringSet(k, "w")
				}
				if r.Intn(2) == 0 {
					db.ttl[k] = time.Duration(1+r.Intn(50)) * time.Millisecond
				}
			}
			// A TTL left for a key that is gone.
			db.ttl[fmt.Sprintf("gone%d", r.Intn(5))] = time.Millisecond
		}
		seed := rng.Int63()
		build(a, seed)
		build(b, seed)
		if !reflect.DeepEqual(a.DB(0).ttl, b.DB(0).ttl) {
			t.Fatal("databases built differently")
		}
		for step := 0; step < 8; step++ {
			d := time.Duration(rng.Intn(15)) * time.Millisecond
			a.DB(0).fastForward(d)
			b.DB(0).fastForwardAllKeys(d)
			da, db := a.DB(0), b.DB(0)
			for _, f := range []struct {
				name string
				x, y any
			}{
				{"keys", da.keys, db.keys},
				{"ttl", da.ttl, db.ttl},
				{"keyVersion", da.keyVersion, db.keyVersion},
				{"stringKeys", da.stringKeys, db.stringKeys},
				{"hashKeys", da.hashKeys, db.hashKeys},
				{"hashTTLs", da.hashTTLs, db.hashTTLs},
			} {
				if !reflect.DeepEqual(f.x, f.y) {
					t.Fatalf("round %d step %d: %s differ:\n%v\n%v", round, step, f.name, f.x, f.y)
				}
			}
		}
	}
}
