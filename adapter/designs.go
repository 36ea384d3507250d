package adapter

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"

	"github.com/redis/go-redis/v9"

	"github.com/locksim/locksim/lock"
)

// Command is how to start one adapter child.
type Command struct {
	Argv []string
	Dir  string // working directory; "" for locksim's own
	// Faketime is how client clock faults reach the child's clock.
	Faketime Faketime
	// Cluster: the child takes a Redis Cluster (hello's cluster field).
	Cluster bool
}

// Python and Node are the interpreters the bundled adapters run under.
var (
	Python = "/usr/bin/python3"
	Node   = "node"
)

// Dir is the folder holding the bundled adapters (redis-py/, node-redlock/):
// $LOCKSIM_ADAPTER_DIR, else this package's folder in the source tree
// locksim was built from, else ./adapter.
func Dir() string {
	if d := os.Getenv("LOCKSIM_ADAPTER_DIR"); d != "" {
		return d
	}
	if _, file, _, ok := runtime.Caller(0); ok {
		d := filepath.Dir(file)
		if _, err := os.Stat(filepath.Join(d, "redis-py")); err == nil {
			return d
		}
	}
	return "adapter"
}

func init() {
	must(lock.Register(lock.Info{
		Name:     "redis-py",
		Summary:  "redis-py's Lock (Debian python3-redis): SET NX PX, Lua compare-and-delete release, Lua extend; a Python child per client",
		Weakness: "as setpx: one master, so a failover or a restart without fsync loses the key; no fencing, so a paused holder can still write",
		Source:   "redis-py, redis/lock.py (Lock.acquire, do_release, do_extend); adapter/redis-py/adapter.py",
		New:      factory("redis-py", RedisPy()),
		Like:     "setpx", Process: true, Cluster: true, Peer: true, Expires: true, Extendable: true,
		ClockFaults: faketimeMissing,
		Unavailable: once(func() string {
			if _, err := os.Stat(RedisPy().Argv[1]); err != nil {
				return "redis-py: its adapter script is missing (" + RedisPy().Argv[1] + "; set LOCKSIM_ADAPTER_DIR)"
			}
			return probe("redis-py", exec.Command(Python, "-c", "import redis"), "install Debian's python3-redis")
		}),
	}))
	must(lock.Register(lock.Info{
		Name:     "node-redlock",
		Summary:  "npm's redlock 4.2.0 over ioredis 4.30.0: Redlock on every node; a Node child per client",
		Weakness: "as redlock: a node that restarts without its data or whose clock jumps gives a second client a majority; no fencing",
		Source:   "npm redlock 4.2.0 (redlock.js: _lock, quorum, drift); adapter/node-redlock/adapter.js",
		New:      factory("node-redlock", NodeRedlock()),
		Like:     "redlock", Process: true, Cluster: true, Peer: true, MultiNode: true, Expires: true, Extendable: true,
		ClockFaults: faketimeMissing,
		Unavailable: once(func() string {
			if _, err := os.Stat(filepath.Join(Dir(), "node-redlock", "node_modules", "redlock")); err != nil {
				return "node-redlock: its packages are not installed (run npm ci in " + filepath.Join(Dir(), "node-redlock") + ")"
			}
			return probe("node-redlock", exec.Command(Node, "--version"), "install Node.js")
		}),
	}))
	must(lock.RegisterPrefix("process", Process))
}

// RedisPy is the command of the bundled redis-py adapter.
func RedisPy() Command {
	return Command{Argv: []string{Python, filepath.Join(Dir(), "redis-py", "adapter.py")}, Faketime: FaketimeAll, Cluster: true}
}

// NodeRedlock is the command of the bundled node-redlock adapter.
func NodeRedlock() Command {
	d := filepath.Join(Dir(), "node-redlock")
	return Command{Argv: []string{Node, filepath.Join(d, "adapter.js")}, Dir: d, Faketime: FaketimeWall, Cluster: true}
}

// Process is the design process:CMD: any adapter command, split on spaces,
// run without registering anything; a command that cannot be found is
// an error. It promises nothing about what it
// behaves like, so scenarios expect of it only what they expect of every
// design ("*").
func Process(arg string) (lock.Info, error) {
	argv := strings.Fields(arg)
	if len(argv) == 0 {
		return lock.Info{}, fmt.Errorf("process: no command given (process:./my-adapter)")
	}
	name := "process:" + arg
	// a command that is not there is the user's mistake (bad input), not
	// a machine that lacks something
	if _, err := exec.LookPath(argv[0]); err != nil {
		return lock.Info{}, fmt.Errorf("%s: command not found: %s", name, argv[0])
	}
	return lock.Info{
		Name: name, Summary: "an adapter command: " + arg, Source: arg,
		Weakness: "unknown: whatever the adapter's lock does",
		New:      factory(name, Command{Argv: argv}),
		Process:  true, Expires: true, Extendable: true,
	}, nil
}

func factory(name string, cmd Command) lock.Factory {
	return func(nodes []redis.UniversalClient, o lock.Options) (lock.Locker, error) {
		return newLocker(name, cmd, nodes, o)
	}
}

// probe runs cmd and says what is missing when it fails.
func probe(name string, cmd *exec.Cmd, fix string) string {
	if out, err := cmd.CombinedOutput(); err != nil {
		lines := strings.Split(strings.TrimSpace(string(out)), "\n")
		first := lines[len(lines)-1]
		if first == "" {
			first = err.Error()
		}
		return fmt.Sprintf("%s: %s fails (%s); %s", name, strings.Join(cmd.Args, " "), trim(first), fix)
	}
	return ""
}

func once(f func() string) func() string {
	var o sync.Once
	var s string
	return func() string { o.Do(func() { s = f() }); return s }
}

func must(err error) {
	if err != nil {
		panic(err)
	}
}
