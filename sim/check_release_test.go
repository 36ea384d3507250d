package sim_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"

	"github.com/locksim/locksim/lock"
	"github.com/locksim/locksim/sim"
)

// ownCheck is setpx whose library has its own validity check, which says
// no, and whose release errs as a node that did not answer would.
type ownCheck struct{ lock.Locker }

const ownCheckName = "test-setpx-own-check"

func init() {
	info, err := lock.Lookup("setpx")
	if err != nil {
		panic(err)
	}
	info.Name = ownCheckName
	info.Summary = "setpx whose own validity check says no and whose release errs (test only)"
	info.New = func(nodes []redis.UniversalClient, o lock.Options) (lock.Locker, error) {
		inner, err := lock.New("setpx", nodes, o)
		if err != nil {
			return nil, err
		}
		return ownCheck{inner}, nil
	}
	if err := lock.Register(info); err != nil {
		panic(err)
	}
}

func (ownCheck) StillValid(context.Context, *lock.Lease) (valid, ok bool, err error) {
	return false, true, nil
}

func (o ownCheck) Release(ctx context.Context, l *lock.Lease) error {
	_ = o.Locker.Release(ctx, l)
	return errors.New("node #0: i/o timeout")
}

// TestOwnCheckAndUnknownRelease: the client's validity check asks a
// design's own check (lock.Checker), which keeps it out although its
// lease has time left; a release that errs otherwise than not held is
// recorded unknown, with the error.
func TestOwnCheckAndUnknownRelease(t *testing.T) {
	res, _ := runChecked(t, sim.Config{
		Algorithm: ownCheckName,
		Options:   lock.Options{TTL: time.Second, ValidityCheck: true},
		Clients:   1,
		Duration:  200 * time.Millisecond,
		Hold:      10 * time.Millisecond,
		Seed:      3,
	})
	checks, releases := 0, 0
	for _, op := range res.History.Ops {
		switch op.Kind {
		case sim.KindCheck:
			checks++
			assert.Equal(t, sim.Fail, op.Outcome)
			assert.Equal(t, "the library's check says the lock is no longer valid", op.Err)
		case sim.KindEnter:
			t.Errorf("the client entered although its design's check said no: %+v", op)
		case sim.KindRelease:
			releases++
			assert.Equal(t, sim.Unknown, op.Outcome)
			assert.Equal(t, "node #0: i/o timeout", op.Err)
		}
	}
	assert.Positive(t, checks)
	assert.Positive(t, releases)
}
