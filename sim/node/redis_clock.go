package node

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"
)

// A redis-server's expiry follows the host clock, which the harness cannot
// move (libfaketime deadlocks Debian's jemalloc build). The node clock is
// emulated instead: whenever it has run ahead of true time by some amount
// since the last look (a jump, or a rate above 1), every key's TTL is cut by
// that amount, and keys whose TTL would reach 0 are deleted; when it falls
// behind (a rate below 1), TTLs are lengthened. The effect on expiry is the
// same as moving the server's clock, to within one shift period: a key
// written between two shifts is shifted as if it had been written at the
// earlier one, so at rate r its expiry may come up to (r-1) x shiftEvery
// early (or, below 1, that much late).
//
// The node itself stores the total shift applied (the marker), and the
// script shifts by the difference to the requested total. That makes the
// script idempotent, so a shift whose reply was lost (a pause, a kill) is
// never applied twice; and after a restart with persistence, the marker comes
// back from the AOF with exactly the keys whose TTLs it describes.

const (
	shiftEvery     = 2 * time.Millisecond
	shiftMarkerKey = "locksim:node-clock-shift-ms"
	// The marker lives in the last default database so that db 0, where the
	// locks live, holds only the clients' keys (DBSIZE, SCAN stay honest).
	shiftMarkerDB = 15
)

// shiftScript: KEYS[1] marker; ARGV[1] the total shift the node should have
// had, ms; ARGV[2] the total to assume when the marker is missing, i.e. when
// the data is younger than the marker (fresh start, lost data, FLUSHALL).
//
// SCAN may return a key twice while the dictionary rehashes, so keys are
// deduplicated: shifting one twice would expire it early. Redis freezes its
// clock during a script, so PTTL-then-PEXPIRE is exact.
var shiftScript = redis.NewScript(`
redis.call('SELECT', ` + strconv.Itoa(shiftMarkerDB) + `)
local prev = redis.call('GET', KEYS[1])
redis.call('SET', KEYS[1], ARGV[1])
redis.call('SELECT', 0)
if not prev then prev = ARGV[2] end
local delta = tonumber(ARGV[1]) - tonumber(prev)
if delta == 0 then return {0, 0} end
local seen, shifted, expired, cursor = {}, 0, 0, '0'
repeat
  local r = redis.call('SCAN', cursor, 'COUNT', 1000)
  cursor = r[1]
  for _, k in ipairs(r[2]) do
    if not seen[k] then
      seen[k] = true
      local ttl = redis.call('PTTL', k)
      if ttl > 0 then
        if ttl <= delta then
          redis.call('DEL', k)
          expired = expired + 1
        else
          redis.call('PEXPIRE', k, ttl - delta)
          shifted = shifted + 1
        end
      end
    end
  end
until cursor == '0'
return {shifted, expired}
`)

// shifter keeps one redis node's TTLs in step with its node clock.
type shifter struct {
	node *redisNode

	mu      sync.Mutex // one shift at a time, in clock order
	known   bool       // applied is what the node's marker holds
	epoch   int        // the process start that applied belongs to
	applied int64      // total shift applied, ms
}

// catchUp applies whatever the node clock's lead has changed since the last
// shift. A paused or killed node is left alone: the shift stays owed and is
// applied when the node runs again (Resume and Restart call catchUp).
func (s *shifter) catchUp(ctx context.Context) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.node.isReplica() {
		return nil // read-only; its keys follow the master's
	}
	c, err := s.node.control()
	if errors.Is(err, ErrNodeDown) || errors.Is(err, ErrNodePaused) {
		return nil
	}
	if err != nil {
		return err
	}
	target := s.node.clock.lead().Milliseconds()
	sameEpoch := s.known && s.epoch == c.epoch
	if sameEpoch && target == s.applied {
		return nil
	}
	// Keys found without a marker were written after it vanished: in this
	// process's lifetime, and after the last shift we know of in it.
	baseline := c.epochLead.Milliseconds()
	if sameEpoch {
		baseline = s.applied
	}
	if err := shiftScript.Run(ctx, c.client, []string{shiftMarkerKey}, target, baseline).Err(); err != nil {
		s.known = false
		return fmt.Errorf("shift TTLs by the node clock's lead (%dms): %w", target, err)
	}
	s.known, s.epoch, s.applied = true, c.epoch, target
	return nil
}

// loop keeps catching up while the node lives, so a clock rate other than 1
// shows in expiry within one period. When the clock runs at true speed the
// lead does not change and a tick costs no command.
func (s *shifter) loop(ctx context.Context, exited chan<- struct{}) {
	defer close(exited)
	t := time.NewTicker(shiftEvery)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		cctx, cancel := context.WithTimeout(ctx, ctlTimeout)
		// An error here is a race with a fault (kill, pause) or Close; the
		// shift stays owed and the next tick tries again.
		_ = s.catchUp(cctx)
		cancel()
	}
}
