package adapter

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"
)

// errChildGone: the child exited or broke the protocol; every later request
// fails with it.
var errChildGone = errors.New("adapter process gone")

// replyGuard bounds the wait for one reply in true time, so that a child
// that never answers cannot hang a run; the run's own context usually ends
// the wait first.
const replyGuard = 30 * time.Second

// child is one running adapter process: requests go out on its stdin one at
// a time, a reader goroutine hands each reply line to the request waiting
// for its id and drops replies nobody waits for any more, and hands each
// event line (reply.Event) to event as it comes.
type child struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	stdout io.Closer
	name   string
	tree   *tree // what it started (tree.go)

	mu      sync.Mutex // one request at a time
	nextID  int64
	replies chan reply
	done    chan struct{} // closed when the reader ended (the child's stdout closed)
	readErr error         // why the reader ended early, set before done closes
	waited  chan struct{} // closed when cmd.Wait returned
	stderr  *tailBuffer
	// event takes an event line; an error is a breach of the protocol,
	// which fails the request in flight, or else the next one (breaches).
	event    func(reply) error
	breaches chan error

	closeOnce sync.Once
}

// startChild runs argv with the environment env, in its own process group, to die
// with locksim (Pdeathsig) and never to see the terminal's Ctrl-C itself:
// locksim ends it, and every process it started (tree.go). exited, if not
// nil, runs once the child is reaped; event takes the child's event lines,
// on the reader goroutine, in the order the child wrote them.
func startChild(argv []string, env []string, dir string, exited func(pid int), event func(reply) error) (*child, error) {
	becomeSubreaper()
	mark := newTreeMark()
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = append(env[:len(env):len(env)], treeEnv+"="+mark)
	cmd.Dir = dir
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	c := &child{cmd: cmd, stdin: stdin, stdout: stdout, name: strings.Join(argv, " "), replies: make(chan reply, 1),
		done: make(chan struct{}), waited: make(chan struct{}), stderr: &tailBuffer{max: 2048}, event: event, breaches: make(chan error, 1)}
	cmd.Stderr = c.stderr
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s: %w", c.name, err)
	}
	c.tree = newTree(cmd.Process.Pid, mark)
	go c.read(stdout)
	go func() {
		<-c.done
		// the child is gone or has closed its stdout: once it has
		// exited (or had closeGrace to), what it started goes too,
		// before the wait frees its pid
		exitedWithin(cmd.Process.Pid, closeGrace)
		c.tree.end()
		_ = cmd.Wait()
		if exited != nil {
			exited(cmd.Process.Pid)
		}
		close(c.waited)
	}()
	return c, nil
}

// maxReplyLine bounds one reply line (bufio.Scanner's buffer).
const maxReplyLine = 1 << 20

func (c *child) read(stdout io.Reader) {
	defer close(c.done)
	sc := bufio.NewScanner(stdout)
	sc.Buffer(make([]byte, 64*1024), maxReplyLine)
	defer func() {
		if errors.Is(sc.Err(), bufio.ErrTooLong) {
			c.readErr = fmt.Errorf("a reply line longer than %d MiB (the protocol's bound)", maxReplyLine>>20)
		}
	}()
	for sc.Scan() {
		var r reply
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			r = reply{ID: -1, Result: resultError, Error: fmt.Sprintf("bad reply line %q: %v", trim(sc.Text()), err)}
		} else if r.Event != "" {
			err := fmt.Errorf("event %q without a taker", r.Event)
			if c.event != nil {
				err = c.event(r)
			}
			if err != nil {
				select {
				case c.breaches <- fmt.Errorf("bad event line %q: %w", trim(sc.Text()), err):
				default: // one untold breach is enough to fail the next request
				}
			}
			continue
		}
		select {
		case c.replies <- r:
		default:
			// nobody waits (a request whose context ended): drop it
			select {
			case <-c.replies:
			default:
			}
			c.replies <- r
		}
	}
}

// call sends req and waits for the reply with its id. A context that ends
// first, a child that exits or a reply that never comes is an error: the
// outcome of the request is then unknown.
func (c *child) call(ctx context.Context, req request) (reply, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.nextID++
	req.ID = c.nextID
	line, err := json.Marshal(req)
	if err != nil {
		return reply{}, err
	}
	// drop a stale reply left by an earlier request that gave up
	select {
	case <-c.replies:
	default:
	}
	if _, err := c.stdin.Write(append(line, '\n')); err != nil {
		return reply{}, c.gone(err)
	}
	guard := time.NewTimer(replyGuard)
	defer guard.Stop()
	for {
		select {
		case err := <-c.breaches:
			return reply{}, fmt.Errorf("%s: %w", c.name, err)
		case r := <-c.replies:
			if r.ID == -1 {
				return reply{}, fmt.Errorf("%s: %s", c.name, r.Error)
			}
			if r.ID == 0 {
				return reply{}, fmt.Errorf("%s: reply to %s without its id (every reply echoes its request's id, hello's too)", c.name, req.Op)
			}
			if r.ID != req.ID {
				continue // a late reply to an abandoned request
			}
			// a bad event written before the reply fails it
			select {
			case err := <-c.breaches:
				return reply{}, fmt.Errorf("%s: %w", c.name, err)
			default:
			}
			return r, nil
		case <-c.done:
			return reply{}, c.gone(nil)
		case <-ctx.Done():
			return reply{}, ctx.Err()
		case <-guard.C:
			return reply{}, fmt.Errorf("%s: no reply to %s within %v", c.name, req.Op, replyGuard)
		}
	}
}

func (c *child) gone(err error) error {
	select {
	case <-c.done:
		if c.readErr != nil {
			return fmt.Errorf("%w: %s: %w", errChildGone, c.name, c.readErr)
		}
	default:
	}
	msg := c.stderr.String()
	if msg != "" {
		return fmt.Errorf("%w: %s: %s", errChildGone, c.name, msg)
	}
	if err != nil {
		return fmt.Errorf("%w: %s: %w", errChildGone, c.name, err)
	}
	return fmt.Errorf("%w: %s exited", errChildGone, c.name)
}

func (c *child) signal(sig syscall.Signal) error {
	select {
	case <-c.waited:
		return nil
	default:
	}
	return c.cmd.Process.Signal(sig)
}

// closeGrace is how long a closed child has to exit by itself before it
// and its process tree are killed. The clients' children are closed
// together (sim closes its clients in parallel), so a run's end waits for
// one grace period, not one per child.
const closeGrace = time.Second

// close ends the child: its stdin closes, which asks it to exit; one that
// has not exited within closeGrace (or is stopped) is killed with every
// process it started (tree.end). It waits for the process either way, so
// none outlives the run. A descendant that holds the child's stdout open
// beyond the kill (one that cleared the mark and left the group) is cut
// off by closing locksim's end of the pipe.
func (c *child) close() error {
	c.closeOnce.Do(func() {
		_ = c.stdin.Close()
		_ = c.signalGroup(syscall.SIGCONT)
		if c.waitExit(closeGrace) {
			return
		}
		c.tree.end()
		if c.waitExit(closeGrace) {
			return
		}
		_ = c.stdout.Close()
		<-c.waited
	})
	return nil
}

// waitExit waits up to d for the child to be reaped.
func (c *child) waitExit(d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-c.waited:
		return true
	case <-t.C:
		return false
	}
}

// signalGroup sends sig to the child's process group while the child has
// not been reaped (its pid, the group's id, is still its own then).
func (c *child) signalGroup(sig syscall.Signal) error {
	select {
	case <-c.waited:
		return nil
	default:
	}
	return syscall.Kill(-c.cmd.Process.Pid, sig)
}

// tailBuffer keeps the last max bytes the child wrote to stderr, for error
// messages.
type tailBuffer struct {
	mu  sync.Mutex
	b   []byte
	max int
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b = append(t.b, p...)
	if len(t.b) > t.max {
		t.b = t.b[len(t.b)-t.max:]
	}
	return len(p), nil
}

func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	lines := strings.Split(strings.TrimSpace(string(t.b)), "\n")
	return trim(lines[len(lines)-1])
}

func trim(s string) string {
	if len(s) > 200 {
		return s[:200] + "..."
	}
	return s
}
