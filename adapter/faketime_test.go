package adapter

import (
	"context"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/locksim/locksim/lock"
	"github.com/locksim/locksim/sim"
	"github.com/locksim/locksim/sim/simtest"
)

// readings is what the test adapters (testdata/clock.*) answer an
// acquire with: their wall and monotonic clocks in ms.
func readings(t *testing.T, l *locker) (wall, mono float64) {
	t.Helper()
	le, err := l.Acquire(context.Background(), "k")
	if err != nil {
		t.Fatal(err)
	}
	w, m, _ := strings.Cut(le.Token, "/")
	wall, err1 := strconv.ParseFloat(w, 64)
	mono, err2 := strconv.ParseFloat(m, 64)
	if err1 != nil || err2 != nil {
		t.Fatalf("token %q: %v %v", le.Token, err1, err2)
	}
	return wall, mono
}

func ms(t time.Time) float64 { return float64(t.UnixNano()) / 1e6 }

// TestChildClockFollowsClientClock: a jump, a rate and a reset of the
// client clock reach each runtime's clocks as its mode says: Python's wall
// and monotonic clocks, Node's wall clock only. Bounds are drawn from
// readings taken around the child's, so a loaded machine cannot break them.
// The user's own libfaketime settings, inherited by locksim, must not
// override locksim's: with them the child would read the user's fake time.
func TestChildClockFollowsClientClock(t *testing.T) {
	if m := faketimeMissing(); m != "" {
		if os.Getenv(simtest.RequireEnv) == "1" {
			t.Fatal(m)
		}
		t.Skip("skipping: " + m)
	}
	t.Setenv("FAKETIME", "-10d")
	t.Setenv("FAKETIME_DONT_FAKE_MONOTONIC", "1")
	t.Setenv("DONT_FAKE_MONOTONIC", "1")
	t.Setenv("FAKETIME_START_AFTER_SECONDS", "3600")
	t.Setenv("LD_PRELOAD", FaketimeLib())
	for _, tc := range []struct {
		name string
		argv []string
		mode Faketime
	}{
		{"python", []string{Python, filepath.Join("testdata", "clock.py")}, FaketimeAll},
		{"node", []string{Node, filepath.Join("testdata", "clock.js")}, FaketimeWall},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := exec.LookPath(tc.argv[0]); err != nil {
				if os.Getenv(simtest.RequireEnv) == "1" {
					t.Fatal(err)
				}
				t.Skipf("skipping: %v", err)
			}
			rdb := redis.NewClient(&redis.Options{Addr: "127.0.0.1:1"})
			defer rdb.Close()
			clock := sim.NewClientClock(time.Now(), time.Now())
			l, err := newLocker(tc.name, Command{Argv: tc.argv, Faketime: tc.mode}, []redis.UniversalClient{rdb}, lock.Options{Clock: clock, TTL: time.Second})
			if err != nil {
				t.Fatal(err)
			}
			defer l.Close()

			// a step back of an hour: the child's wall clock reads an hour
			// behind; its monotonic clock steps too where the mode says so
			_, mono0 := readings(t, l)
			clock.Jump(-time.Hour)
			before := time.Now()
			wall, mono := readings(t, l)
			after := time.Now()
			if lo, hi := ms(before.Add(-time.Hour))-1, ms(after.Add(-time.Hour))+1; wall < lo || wall > hi {
				t.Errorf("after a jump of -1h the child's wall clock reads %.0f, want within [%.0f, %.0f]", wall, lo, hi)
			}
			if stepped := mono-mono0 < -float64(time.Hour/2/time.Millisecond); stepped != (tc.mode == FaketimeAll) {
				t.Errorf("monotonic clock moved %.0f ms over the jump; stepped = %v, want %v", mono-mono0, stepped, tc.mode == FaketimeAll)
			}

			// a quarter of true time: the child's clocks advance a quarter
			// of the true time between two readings
			clock.SetRate(0.25)
			outer0 := time.Now()
			wall1, mono1 := readings(t, l)
			inner0 := time.Now()
			time.Sleep(400 * time.Millisecond)
			inner1 := time.Now()
			wall2, mono2 := readings(t, l)
			outer1 := time.Now()
			lo, hi := 0.25*float64(inner1.Sub(inner0).Milliseconds())-2, 0.25*float64(outer1.Sub(outer0).Milliseconds())+2
			if d := wall2 - wall1; d < lo || d > hi {
				t.Errorf("at rate 0.25 the wall clock advanced %.1f ms, want within [%.1f, %.1f]", d, lo, hi)
			}
			if tc.mode == FaketimeAll {
				if d := mono2 - mono1; d < lo || d > hi {
					t.Errorf("at rate 0.25 the monotonic clock advanced %.1f ms, want within [%.1f, %.1f]", d, lo, hi)
				}
			} else if d := mono2 - mono1; d < 4*lo {
				t.Errorf("the monotonic clock advanced %.1f ms, want the true time, at least %.1f", d, 4*lo)
			}

			// healed: back in step with true time
			clock.Reset()
			before = time.Now()
			wall, _ = readings(t, l)
			after = time.Now()
			if wall < ms(before)-1 || wall > ms(after)+1 {
				t.Errorf("after the reset the child's wall clock is %.0f ms off", math.Min(math.Abs(wall-ms(before)), math.Abs(wall-ms(after))))
			}

			// a crashed child leaves nothing of libfaketime's in /dev/shm
			pid := l.c.cmd.Process.Pid
			_ = l.Kill()
			_ = l.Close()
			if _, err := os.Stat(fmt.Sprintf("/dev/shm/faketime_shm_%d", pid)); err == nil {
				t.Errorf("/dev/shm/faketime_shm_%d left after the child was killed", pid)
			}
		})
	}
}

// TestChildEnvOverridesUsersFaketime: the user's libfaketime variables are
// dropped, locksim's are set once, and LD_PRELOAD keeps the user's other
// libraries after libfaketime; without a child clock no libfaketime is
// preloaded at all.
func TestChildEnvOverridesUsersFaketime(t *testing.T) {
	t.Setenv("LOCKSIM_LIBFAKETIME", "/opt/ft/libfaketime.so.1")
	cc := &childClock{file: "/tmp/x/faketimerc"}
	inherited := []string{"HOME=/home/u", "FAKETIME=-10d", "FAKETIME_NO_CACHE=0", "FAKETIME_TIMESTAMP_FILE=/home/u/rc",
		"FAKETIME_START_AFTER_SECONDS=60", "FAKETIME_SHARED=/faketime_sem_1 /faketime_shm_1", "DONT_FAKE_MONOTONIC=1",
		"FAKETIME_DONT_FAKE_MONOTONIC=1", "NO_FAKE_STAT=1", "FAKETIMEX=kept",
		"LD_PRELOAD=/usr/lib/x86_64-linux-gnu/faketime/libfaketimeMT.so.1 /usr/lib/libjemalloc.so.2:/opt/ft/libfaketime.so.1 /opt/other.so"}
	for _, tc := range []struct {
		name string
		cc   *childClock
		mode Faketime
		want []string
	}{
		{"all", cc, FaketimeAll, []string{"HOME=/home/u", "FAKETIMEX=kept", "FAKETIME_TIMESTAMP_FILE=/tmp/x/faketimerc", "FAKETIME_NO_CACHE=1",
			"LD_PRELOAD=/opt/ft/libfaketime.so.1:/usr/lib/libjemalloc.so.2:/opt/other.so"}},
		{"wall", cc, FaketimeWall, []string{"HOME=/home/u", "FAKETIMEX=kept", "FAKETIME_TIMESTAMP_FILE=/tmp/x/faketimerc", "FAKETIME_NO_CACHE=1",
			"FAKETIME_DONT_FAKE_MONOTONIC=1", "LD_PRELOAD=/opt/ft/libfaketime.so.1:/usr/lib/libjemalloc.so.2:/opt/other.so"}},
		{"none", nil, NoFaketime, []string{"HOME=/home/u", "FAKETIMEX=kept", "LD_PRELOAD=/usr/lib/libjemalloc.so.2:/opt/other.so"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := childEnv(inherited, tc.cc, tc.mode)
			if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
				t.Errorf("childEnv:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
			}
		})
	}
	if got := childEnv([]string{"LD_PRELOAD=/usr/lib/faketime/libfaketime.so.1", "PATH=/bin"}, nil, NoFaketime); strings.Join(got, " ") != "PATH=/bin" {
		t.Errorf("a preload of only libfaketime, no child clock: %q, want PATH alone", got)
	}
}
