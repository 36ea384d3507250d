package adapter

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"

	"github.com/redis/go-redis/v9"

	"github.com/locksim/locksim/lock"
	"github.com/locksim/locksim/vocab"
)

// RedsyncVersions are the published versions of go-redsync/redsync that
// run as redsync@<version>, each pinned by adapter/go/redsync/pins/<version>:
// v4.0.3 (go-redis v8; an extend counts a node's 0, the script's answer
// that the key is not this mutex's, as a success, so ExtendContext says
// extended whoever holds the key, go-redsync/redsync PR #61), v4.0.4 (its
// fix), v4.3.0 (go-redis v8, before Mutex.Until: an application checks the lock
// with Valid), v4.4.1 (Mutex.Until, Valid deprecated for it, and an extend whose replies come after
// the expiry fails), v4.12.0 (an extend that hits a node error releases the
// lock on every node), v4.12.1 (its fix) and v4.18.0 (the version the
// in-process design "redsync" links).
var RedsyncVersions = []string{"v4.0.3", "v4.0.4", "v4.3.0", "v4.4.1", "v4.12.0", "v4.12.1", "v4.18.0"}

// redsyncPin is the adapter build of one redsync version: go-redis v8
// before redsync had a go-redis v9 pool, the validity check of its
// time (valid_query.go before Mutex.Until, valid_until.go after), and how
// it learns a mutex's token (value_gen.go before Mutex.Value and
// WithValue, value_method.go after).
func redsyncPin(version string) GoPin {
	lib, valid, value := "lib_goredis9.go", "valid_until.go", "value_method.go"
	switch version {
	case "v4.0.3", "v4.0.4":
		lib, valid, value = "lib_goredis8.go", "valid_query.go", "value_gen.go"
	case "v4.3.0":
		lib, valid = "lib_goredis8.go", "valid_query.go"
	case "v4.4.1":
		lib = "lib_goredis8.go"
	}
	return GoPin{Library: "redsync", Version: version, Files: []string{"main.go", lib, valid, value}}
}

func init() {
	must(lock.RegisterPinned(lock.Pinned{Library: "redsync", Versions: RedsyncVersions, New: redsyncInfo}))
}

// redsyncInfo is the design redsync@version: the library's Redlock in a Go
// child per client, built on first use. locksim's watchdog renews it
// through the library's ExtendContext, as an application holding a lock
// past its TTL does.
func redsyncInfo(version string) lock.Info {
	pin := redsyncPin(version)
	name := "redsync@" + version
	return lock.Info{
		Name:     name,
		Summary:  fmt.Sprintf("github.com/go-redsync/redsync/v4 %s in a Go child per client: Redlock on every node, one try per acquire; the watchdog renews through ExtendContext", version),
		Weakness: "as redsync at this version; its child reads the system clock, so client clock faults do not reach it",
		Source:   fmt.Sprintf("github.com/go-redsync/redsync/v4 %s (mutex.go); adapter/go/redsync, pinned by pins/%s", version, version),
		New:      pin.newLocker(name),
		Like:     "redsync", Process: true, Peer: true, MultiNode: true, Expires: true, Extendable: true, Watchdog: true,
		Unavailable: pin.unavailable(),
	}
}

// NodeRedlockVersions are the published versions of npm's redlock that run
// as node-redlock@<version>, each pinned by adapter/node-redlock's
// package-lock.json: 4.2.0 (the bundled node-redlock, adapter.js) and
// 5.0.0-beta.2 (installed under the alias redlock-5, adapter5.js).
var NodeRedlockVersions = []string{"4.2.0", "5.0.0-beta.2"}

func init() {
	must(lock.RegisterPinned(lock.Pinned{Library: "node-redlock", Versions: NodeRedlockVersions, New: nodeRedlockInfo}))
}

// nodeRedlockInfo is the design node-redlock@version.
func nodeRedlockInfo(version string) lock.Info {
	name := "node-redlock@" + version
	d := filepath.Join(Dir(), "node-redlock")
	script, pkg := "adapter.js", "redlock"
	if version != "4.2.0" {
		script, pkg = "adapter5.js", "redlock-5"
	}
	cmd := Command{Argv: []string{Node, filepath.Join(d, script)}, Dir: d, Faketime: FaketimeWall}
	return lock.Info{
		Name:     name,
		Summary:  fmt.Sprintf("npm's redlock %s over ioredis 4.30.0: Redlock on every node, one round per acquire; a Node child per client", version),
		Weakness: "as redlock: a node that restarts without its data or whose clock jumps gives a second client a majority; no fencing",
		Source:   fmt.Sprintf("npm redlock %s; adapter/node-redlock/%s, pinned by package-lock.json", version, script),
		New:      factory(name, cmd),
		Like:     "redlock", Process: true, Peer: true, MultiNode: true, Expires: true, Extendable: true,
		ClockFaults: faketimeMissing,
		Unavailable: once(func() string {
			if _, err := os.Stat(filepath.Join(d, "node_modules", pkg)); err != nil {
				return name + ": its packages are not installed (run npm ci in " + d + ")"
			}
			return probe(name, exec.Command(Node, "--version"), "install Node.js")
		}),
	}
}

// NodeLocksDir is the folder of the npm lock libraries besides redlock
// (adapter/node-locks): redis-semaphore and @sesamecare-oss/redlock over
// ioredis 5, pinned by its package-lock.json.
func NodeLocksDir() string { return filepath.Join(Dir(), "node-locks") }

// nodeLock is one npm library of adapter/node-locks at its pinned versions.
type nodeLock struct {
	library, version, pkg string
	// aliases are more versions of pkg, each installed under the npm alias
	// pkg-<version> and named to the script after its arguments; the
	// script runs them as it runs version.
	aliases             []string
	argv                []string // the script and its arguments, in NodeLocksDir
	summary, weakness   string
	source              string
	like                string
	multiNode, watchdog bool
}

var nodeLocks = []nodeLock{
	{library: "redis-semaphore", version: "5.8.0", pkg: "redis-semaphore", argv: []string{"semaphore.js", "mutex"},
		summary:  "npm's redis-semaphore %s Mutex over ioredis 5.9.3: SET NX PX on one node, Lua compare-and-delete release, Lua refresh; a Node child per client",
		weakness: "as setpx: one master, so a failover or a restart without fsync loses the key; no fencing; it reports no validity, so locksim computes it",
		source:   "npm redis-semaphore %s (lib/RedisMutex.js, lib/mutex/*.js); adapter/node-locks/semaphore.js, pinned by package-lock.json",
		like:     "setpx", watchdog: true, aliases: redisSemaphoreRefreshVersions},
	{library: "redis-semaphore-redlock", version: "5.8.0", pkg: "redis-semaphore", argv: []string{"semaphore.js", "redlock"},
		summary:  "npm's redis-semaphore %s RedlockMutex over ioredis 5.9.3: SET NX PX on every node, a quorum, with no validity or drift of its own; a Node child per client",
		weakness: "as redlock, and its acquire never compares the time it took with the TTL, so an application that trusts it can enter on a spent lease",
		source:   "npm redis-semaphore %s (lib/RedlockMutex.js, lib/redlockMutex/*.js); adapter/node-locks/semaphore.js, pinned by package-lock.json",
		like:     "redlock", multiNode: true, watchdog: true, aliases: redisSemaphoreRefreshVersions},
	{library: "sesame-redlock", version: "1.4.0", pkg: "@sesamecare-oss/redlock", argv: []string{"sesame.js"},
		summary:  "npm's @sesamecare-oss/redlock %s (a fork of redlock 5) over ioredis 5.9.3: Redlock on every node, one round per acquire; a Node child per client",
		weakness: "as redlock: a node that restarts without its data or whose clock jumps gives a second client a majority; no fencing",
		source:   "npm @sesamecare-oss/redlock %s (src/index.ts); adapter/node-locks/sesame.js, pinned by package-lock.json",
		like:     "redlock", multiNode: true},
}

// redisSemaphoreRefreshVersions are the redis-semaphore versions either
// side of its fix of swarthy/redis-semaphore #175 (PR #177): 5.3.0's
// refresh script sets the key again when it finds it gone and answers
// that the lock is still held; 5.3.1's refuses, and the library then
// clears isAcquired and calls onLockLost. Both forms, Mutex and
// RedlockMutex (on every node), run the script.
var redisSemaphoreRefreshVersions = []string{"5.3.0", "5.3.1"}

func init() {
	for _, nl := range nodeLocks {
		versions := append(slices.Clone(nl.aliases), nl.version)
		must(lock.RegisterPinned(lock.Pinned{Library: nl.library, Versions: versions, New: nl.info}))
	}
}

// info is the design library@version.
func (nl nodeLock) info(version string) lock.Info {
	name := nl.library + "@" + version
	d := NodeLocksDir()
	argv := append([]string{Node, filepath.Join(d, nl.argv[0])}, nl.argv[1:]...)
	pkg := nl.pkg
	if slices.Contains(nl.aliases, version) {
		pkg = nl.pkg + "-" + version
		argv = append(argv, pkg)
	}
	cmd := Command{Argv: argv, Dir: d, Faketime: FaketimeWall}
	return lock.Info{
		Name:     name,
		Summary:  fmt.Sprintf(nl.summary, version),
		Weakness: nl.weakness,
		Source:   fmt.Sprintf(nl.source, version),
		New:      factory(name, cmd),
		Like:     nl.like, Process: true, Peer: true, MultiNode: nl.multiNode, Expires: true, Extendable: true, Watchdog: nl.watchdog,
		ClockFaults: faketimeMissing,
		Unavailable: once(func() string {
			if _, err := os.Stat(filepath.Join(d, "node_modules", pkg)); err != nil {
				return name + ": its packages are not installed (run npm ci in " + d + ")"
			}
			return probe(name, exec.Command(Node, "--version"), "install Node.js")
		}),
	}
}

// RueidislockVersions are the published versions of
// github.com/redis/rueidis whose rueidislock runs as
// rueidislock@<version>, each pinned by adapter/go/rueidislock/pins:
// v1.0.69 (each timed extension adds the interval to the keys' previous
// deadline, so late timers eat the lock's margin, redis/rueidis #923) and
// v1.0.71 (the fix, PR #924, released in v1.0.70: each extension sets the
// deadline a whole validity from its moment).
var RueidislockVersions = []string{"v1.0.69", "v1.0.71"}

func init() {
	must(lock.RegisterPinned(lock.Pinned{Library: "rueidislock", Versions: RueidislockVersions, New: rueidislockInfo}))
}

// rueidislockInfo is the design rueidislock@version: the library's lock
// in a Go child per client, on node 0. The library extends the keys on its
// own timers and cancels the lock's context when it loses them; locksim
// does not renew it, and the client's validity check asks that context.
func rueidislockInfo(version string) lock.Info {
	pin := GoPin{Library: "rueidislock", Version: version, Files: []string{"main.go"}}
	name := "rueidislock@" + version
	return lock.Info{
		Name:     name,
		Summary:  fmt.Sprintf("github.com/redis/rueidis/rueidislock %s in a Go child per client: SET NX PXAT on one key of node 0, extended by the library's own timers, watched by client-side caching", version),
		Weakness: "one Redis: a restart without the key or a failover loses the lock; the library's context is cancelled on a loss, but work already under way goes on; needs RESP3 CLIENT TRACKING (not on miniredis)",
		Source:   fmt.Sprintf("github.com/redis/rueidis %s (rueidislock/lock.go); adapter/go/rueidislock, pinned by pins/%s", version, version),
		New:      pin.newLocker(name),
		Like:     "setpx", Process: true, Peer: true, Expires: true,
		Unavailable: pin.unavailable(),
	}
}

// RedislockVersions are the published versions of github.com/bsm/redislock
// that run as redislock@<version>, each pinned by adapter/go/redislock/pins
// over go-redis v9.19.0: v0.9.4 (Lock.Refresh takes Options and ignores its
// RetryStrategy: one attempt, whose transient error is the caller's,
// bsm/redislock PR #83) and v0.10.0 (PR #88: Refresh retries a transient
// error by the strategy, within one TTL; the version the in-process design
// "redislock" links).
var RedislockVersions = []string{"v0.9.4", "v0.10.0"}

func init() {
	must(lock.RegisterPinned(lock.Pinned{Library: "redislock", Versions: RedislockVersions, New: redislockInfo}))
}

// redislockInfo is the design redislock@version: the library's lock in a
// Go child per client, on node 0. locksim's watchdog renews it through the
// library's Refresh, to which the child hands a retry strategy, as an
// application that renews a long hold does.
func redislockInfo(version string) lock.Info {
	pin := GoPin{Library: "redislock", Version: version, Files: []string{"main.go"}}
	name := "redislock@" + version
	return lock.Info{
		Name:     name,
		Summary:  fmt.Sprintf("github.com/bsm/redislock %s in a Go child per client: Obtain (a Lua SET if absent with the TTL) with one try on node 0, Refresh with LinearBackoff at the retry delay, Release", version),
		Weakness: "as redislock: one master, so a failover or a restart without fsync loses the key; no fencing; its child reads the system clock, so client clock faults do not reach it",
		Source:   fmt.Sprintf("github.com/bsm/redislock %s (redislock.go); adapter/go/redislock, pinned by pins/%s", version, version),
		New:      pin.newLocker(name),
		Like:     "redislock", Process: true, Peer: true, Expires: true, Extendable: true, Watchdog: true,
		// locksim's watchdog runs beside the child and passes its points
		// (lock.StartWatchdog), so a fault can start as a renewal is sent
		Points:      []lock.Point{vocab.PointWatchdogRenew, vocab.PointWatchdogRenewed, vocab.PointWatchdogLost},
		Unavailable: pin.unavailable(),
	}
}

// newLocker is a pinned Go design's New: the adapter built on first use
// (lock.ErrNoStart when it cannot be), a child per client named name.
func (p GoPin) newLocker(name string) func([]redis.UniversalClient, lock.Options) (lock.Locker, error) {
	return func(nodes []redis.UniversalClient, o lock.Options) (lock.Locker, error) {
		bin, err := p.Build()
		if err != nil {
			return nil, fmt.Errorf("%w: %v", lock.ErrNoStart, err)
		}
		return newLocker(name, Command{Argv: []string{bin}}, nodes, o)
	}
}

// unavailable is a pinned Go design's Unavailable: why its adapter does
// not build, asked once ("" when it builds).
func (p GoPin) unavailable() func() string {
	return once(func() string {
		if _, err := p.Build(); err != nil {
			return err.Error()
		}
		return ""
	})
}
