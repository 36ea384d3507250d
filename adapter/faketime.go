package adapter

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/locksim/locksim/lock"
)

// Faketime is how a child's clock follows its client's clock: through
// libfaketime, preloaded into the child, reading a spec file that locksim
// rewrites on every jump, rate change and reset of the client clock
// (FAKETIME_TIMESTAMP_FILE with FAKETIME_NO_CACHE=1, so the child reads
// it at every clock call). What a runtime tolerates differs, so each
// adapter names the clocks it moves.
type Faketime int

const (
	// NoFaketime: client clock faults do not reach the child.
	NoFaketime Faketime = iota
	// FaketimeWall moves the child's wall clock (CLOCK_REALTIME: Date.now,
	// time.time) and leaves CLOCK_MONOTONIC alone, as an NTP step does.
	// Node needs it: its timers abort the process when the monotonic
	// clock steps back (node::Environment::GetNowUint64 asserts).
	FaketimeWall
	// FaketimeAll moves CLOCK_MONOTONIC too. Python needs it: with the
	// monotonic clock left alone, libfaketime 0.9.10 makes time.sleep
	// fail with EINVAL.
	FaketimeAll
)

// FaketimeLib is the libfaketime preload library: $LOCKSIM_LIBFAKETIME,
// else where Debian's libfaketime package puts it.
func FaketimeLib() string {
	if p := os.Getenv("LOCKSIM_LIBFAKETIME"); p != "" {
		return p
	}
	return installedFaketime()
}

// installedFaketime looks for the package's library once per process:
// every scenario asks, for each design, whether its clock faults can run
// (a matrix asks tens of thousands of times), and the glob reads all of
// /usr/lib.
var installedFaketime = sync.OnceValue(func() string {
	for _, pattern := range []string{"/usr/lib/*/faketime/libfaketime.so.1", "/usr/lib/faketime/libfaketime.so.1", "/usr/local/lib/faketime/libfaketime.so.1"} {
		if m, _ := filepath.Glob(pattern); len(m) > 0 {
			return m[0]
		}
	}
	return ""
})

// faketimeMissing says why libfaketime cannot move a child's clock here
// ("" when it can).
func faketimeMissing() string {
	lib := FaketimeLib()
	if lib == "" {
		return "libfaketime is not installed (Debian package libfaketime, or set LOCKSIM_LIBFAKETIME)"
	}
	if _, err := os.Stat(lib); err != nil {
		return "libfaketime: " + err.Error()
	}
	return ""
}

// childClock keeps one child's libfaketime spec in step with its
// client's clock.
type childClock struct {
	clock lock.WatchedClock
	dir   *faketimeDir
	file  string
	// start is a wall reading no later than the child's start, when
	// libfaketime anchors its rate (fake = start + (real-start)*rate +
	// offset). An error in it shifts the child's clock by a constant
	// while a rate is on; the child reports durations, which it cancels
	// out of.
	start time.Time
	stop  func()

	mu  sync.Mutex
	err error // the first spec that could not be written
}

// newChildClock writes the spec for the clock as it reads now, before the
// child starts, and follows the clock from then on.
func newChildClock(c lock.WatchedClock) (*childClock, error) {
	dir, err := newFaketimeDir("")
	if err != nil {
		return nil, err
	}
	cc := &childClock{clock: c, dir: dir, file: filepath.Join(dir.path, "faketimerc"), start: time.Now()}
	if err := cc.write(); err != nil {
		dir.remove()
		return nil, err
	}
	cc.stop = c.Watch(func() {
		if err := cc.write(); err != nil {
			cc.mu.Lock()
			if cc.err == nil {
				cc.err = err
			}
			cc.mu.Unlock()
		}
	})
	return cc, nil
}

// childEnv is the child's environment: the inherited one without the
// libfaketime settings the user's own environment may carry (they would
// override locksim's: FAKETIME wins over the spec file,
// FAKETIME_START_AFTER_SECONDS delays faking, FAKETIME_SHARED shares a
// parent's clock, ...), then locksim's settings for mode when cc is not
// nil. An inherited LD_PRELOAD keeps its other libraries, after
// libfaketime. Without cc the child runs on the true clock, as its client
// does, so an inherited libfaketime is dropped from LD_PRELOAD too.
func childEnv(inherited []string, cc *childClock, mode Faketime) []string {
	env := make([]string, 0, len(inherited)+4)
	var preload []string
	for _, kv := range inherited {
		name, value, _ := strings.Cut(kv, "=")
		switch {
		case name == "LD_PRELOAD":
			preload = nil // the last one wins, as in the exec'd environment
			for _, lib := range strings.FieldsFunc(value, func(r rune) bool { return r == ' ' || r == ':' }) {
				if !isFaketimeLib(lib) {
					preload = append(preload, lib)
				}
			}
		case faketimeVar(name):
		default:
			env = append(env, kv)
		}
	}
	if cc != nil {
		preload = append([]string{FaketimeLib()}, preload...)
		env = append(env, "FAKETIME_TIMESTAMP_FILE="+cc.file, "FAKETIME_NO_CACHE=1")
		if mode == FaketimeWall {
			env = append(env, "FAKETIME_DONT_FAKE_MONOTONIC=1")
		}
	}
	if len(preload) > 0 {
		env = append(env, "LD_PRELOAD="+strings.Join(preload, ":"))
	}
	return env
}

// faketimeVar says whether libfaketime reads the variable name: FAKETIME
// and every FAKETIME_* (FAKETIME_TIMESTAMP_FILE, FAKETIME_NO_CACHE,
// FAKETIME_START_AFTER_*, FAKETIME_DONT_FAKE_MONOTONIC, FAKETIME_SHARED,
// ...), and the few without the prefix that its README and library
// name (DONT_FAKE_MONOTONIC is the name before 0.9.8).
func faketimeVar(name string) bool {
	switch name {
	case "FAKETIME", "DONT_FAKE_MONOTONIC", "NO_FAKE_STAT", "FAKE_UTIME", "FAKERANDOM_SEED":
		return true
	}
	return strings.HasPrefix(name, "FAKETIME_")
}

// isFaketimeLib says whether an LD_PRELOAD entry is libfaketime
// (libfaketime.so.1, libfaketimeMT.so.1, or the library locksim preloads).
func isFaketimeLib(lib string) bool {
	return strings.HasPrefix(filepath.Base(lib), "libfaketime") || (lib == FaketimeLib() && lib != "")
}

// spec is libfaketime's "+offset xrate" that makes the child read what
// the client clock reads now, at the clock's rate from now on.
func spec(reading, wall, start time.Time, rate float64) string {
	// fake(wall) = start + (wall-start)*rate + off = reading
	off := reading.Sub(start) - time.Duration(float64(wall.Sub(start))*rate)
	// the rate always, also at 1: libfaketime keeps the last rate it
	// read when a spec names none
	return fmt.Sprintf("%+.6f x%s", off.Seconds(), strconv.FormatFloat(rate, 'f', -1, 64))
}

// write replaces the spec file at once (a rename), so the child never
// reads half a spec.
func (cc *childClock) write() error {
	rate := cc.clock.Rate()
	line := spec(cc.clock.Now(), time.Now(), cc.start, rate) + "\n"
	tmp := cc.file + ".tmp"
	if err := os.WriteFile(tmp, []byte(line), 0o644); err != nil {
		return fmt.Errorf("faketime: %w", err)
	}
	if err := os.Rename(tmp, cc.file); err != nil {
		return fmt.Errorf("faketime: %w", err)
	}
	return nil
}

// failed is the first error in following the clock: the child's clock
// no longer follows the client's, so what it answers is not known.
func (cc *childClock) failed() error {
	if cc == nil {
		return nil
	}
	cc.mu.Lock()
	defer cc.mu.Unlock()
	return cc.err
}

func (cc *childClock) close() {
	if cc == nil {
		return
	}
	cc.stop()
	cc.dir.remove()
}

// removeFaketimeShm removes the shared memory and semaphore libfaketime
// made for the process pid, which it removes itself only when the
// process exits normally: a crashed (SIGKILLed) child would leave them
// in /dev/shm, and a later process given the same pid would fail to start
// ("shm_open failed: File exists").
func removeFaketimeShm(pid int) {
	for _, f := range []string{"faketime_shm_%d", "sem.faketime_sem_%d"} {
		_ = os.Remove(filepath.Join("/dev/shm", fmt.Sprintf(f, pid)))
	}
}
