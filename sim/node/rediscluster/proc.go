package rediscluster

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/locksim/locksim/internal/ports"
)

const (
	logName        = "redis.log" // the server's own log (--logfile)
	stdioName      = "stdio.log" // what it prints before the log is open
	confName       = "nodes.conf"
	readyTimeout   = 5 * time.Second
	readyPollEvery = 5 * time.Millisecond
	termGrace      = 500 * time.Millisecond
	logTailBytes   = 4096
	// busOffset is how far above its port a node's own bus listens: the
	// cluster's default (cluster-port is left unset).
	busOffset = 10000
	// restartBound is how long a restart keeps trying its ports while
	// some other program holds one; restartRetryEvery spaces the tries.
	restartBound      = 5 * time.Second
	restartRetryEvery = 100 * time.Millisecond
)

// errPortTaken says the server could not bind its port or its bus port:
// something else listens on it, or has it as a connection's source port.
var errPortTaken = errors.New("port taken")

// proc is one run of a server process.
type proc struct {
	cmd    *exec.Cmd
	exited chan struct{} // closed when the process has been waited for
}

// serverArgs is a node's whole configuration, on the command line so that
// nothing depends on a config file. Persistence is off: a killed node
// restarts empty and rejoins from its nodes.conf, which Redis writes and
// fsyncs on every configuration change regardless. The node announces
// busPort (its proxy, bus.go) as its cluster bus and dials from source,
// its own loopback address; it announces 127.0.0.1 as its address, so
// that no node learns another's address from a connection's ends (the
// proxy's, or a source address).
func serverArgs(port int, dir string, nodeTimeout time.Duration, fullCoverage bool, busPort int, source string) []string {
	cov := "no"
	if fullCoverage {
		cov = "yes"
	}
	return []string{
		"--port", strconv.Itoa(port),
		"--bind", "127.0.0.1",
		"--dir", dir,
		"--save", "",
		"--appendonly", "no",
		"--daemonize", "no",
		"--protected-mode", "no",
		"--logfile", filepath.Join(dir, logName),
		"--cluster-enabled", "yes",
		"--cluster-config-file", filepath.Join(dir, confName),
		"--cluster-node-timeout", strconv.FormatInt(nodeTimeout.Milliseconds(), 10),
		"--cluster-require-full-coverage", cov,
		// A replica starts its full sync at once instead of waiting 5 s
		// for other replicas to share it; a master has one.
		"--repl-diskless-sync-delay", "0",
		"--cluster-announce-ip", "127.0.0.1",
		"--cluster-announce-bus-port", strconv.Itoa(busPort),
		"--bind-source-addr", source,
	}
}

// startProc starts bin with args, listening on port and logging into dir,
// and waits until it answers PING.
func startProc(ctx context.Context, bin string, args []string, port int, dir string) (*proc, error) {
	marks := ports.LogMarks(dir, stdioName, logName)
	stdio, err := os.OpenFile(filepath.Join(dir, stdioName), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, fmt.Errorf("open server output file: %w", err)
	}
	defer stdio.Close() // the child has its own copy

	cmd := exec.Command(bin, args...)
	cmd.Dir = dir
	cmd.Stdout, cmd.Stderr = stdio, stdio
	cmd.SysProcAttr = &syscall.SysProcAttr{
		// Die with the parent even when it cannot run its cleanup (a fatal
		// signal, an unrecovered panic). Linux ties this to the thread that
		// forked; Go retires a thread only when a goroutine exits while
		// locked to it, which this package never does.
		Pdeathsig: syscall.SIGKILL,
		// A group of its own: a terminal's Ctrl-C reaches only the parent,
		// which stops the nodes itself, and signals to the group also reach
		// any child the server forks.
		Setpgid: true,
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s: %w", bin, err)
	}
	p := &proc{cmd: cmd, exited: make(chan struct{})}
	go func() {
		_ = cmd.Wait() // the exit status of a killed server says nothing new
		close(p.exited)
	}()
	if err := p.waitReady(ctx, port); err != nil {
		p.kill()
		if ports.TakenSince(dir, marks, stdioName, logName) {
			err = fmt.Errorf("%w: %w", errPortTaken, err)
		}
		return nil, fmt.Errorf("%s on port %d: %w%s", filepath.Base(bin), port, err, lastLogLine(dir))
	}
	return p, nil
}

// restartProc starts a killed node again on the port it had, which the
// other nodes and the clients know it by. Its ports are reserved
// (internal/ports), so no other run and no kernel-chosen port takes them;
// a program that binds one anyway may hold it a moment, so a start that
// finds a port taken is tried again, every restartRetryEvery, until
// restartBound or ctx ends.
func restartProc(ctx context.Context, bin string, args []string, port int, dir string) (*proc, error) {
	ctx, cancel := context.WithTimeout(ctx, restartBound+readyTimeout)
	defer cancel()
	first := time.Now()
	for {
		p, err := startProc(ctx, bin, args, port, dir)
		if err == nil || !errors.Is(err, errPortTaken) {
			return p, err
		}
		if time.Since(first) >= restartBound || ctx.Err() != nil {
			return nil, fmt.Errorf("port %d or its bus port %d stayed taken by another program for %v: %w", port, port+busOffset, time.Since(first).Round(time.Millisecond), err)
		}
		select {
		case <-ctx.Done():
		case <-time.After(restartRetryEvery):
		}
	}
}

func (p *proc) pid() int { return p.cmd.Process.Pid }

// waitReady polls PING until the server answers +PONG.
func (p *proc) waitReady(ctx context.Context, port int) error {
	ctx, cancel := context.WithTimeout(ctx, readyTimeout)
	defer cancel()
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
	var last error
	for {
		select {
		case <-p.exited:
			return fmt.Errorf("exited before answering PING (%s)", p.cmd.ProcessState)
		default:
		}
		if last = ping(ctx, addr); last == nil {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("no PONG within %v: %w (last: %v)", readyTimeout, ctx.Err(), last)
		case <-p.exited:
		case <-time.After(readyPollEvery):
		}
	}
}

// ping asks one PING on a fresh connection with just enough RESP: a
// go-redis client would add pooling and a dial circuit breaker that a
// readiness probe does not want.
func ping(ctx context.Context, addr string) error {
	ctx, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
	defer cancel()
	var d net.Dialer
	conn, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return err
	}
	defer conn.Close()
	if dl, ok := ctx.Deadline(); ok {
		_ = conn.SetDeadline(dl)
	}
	if _, err := conn.Write([]byte("PING\r\n")); err != nil {
		return err
	}
	line, err := bufio.NewReader(conn).ReadString('\n')
	if err != nil {
		return err
	}
	if line = strings.TrimSpace(line); line != "+PONG" {
		return fmt.Errorf("PING answered %q", line)
	}
	return nil
}

// signal sends sig to the server's process group.
func (p *proc) signal(sig syscall.Signal) error {
	if err := syscall.Kill(-p.pid(), sig); err != nil && !errors.Is(err, syscall.ESRCH) {
		return fmt.Errorf("send %v to pid %d: %w", sig, p.pid(), err)
	}
	return nil
}

// kill crashes the server and waits until it is gone. SIGKILL ends a
// stopped process too; the SIGCONT spares a forked child a stopped parent.
func (p *proc) kill() {
	_ = p.signal(syscall.SIGKILL)
	_ = p.signal(syscall.SIGCONT)
	<-p.exited
}

// stop asks the server to exit (SIGTERM), and kills it after grace.
func (p *proc) stop(grace time.Duration) {
	_ = p.signal(syscall.SIGCONT) // a paused server cannot handle SIGTERM
	_ = p.signal(syscall.SIGTERM)
	select {
	case <-p.exited:
	case <-time.After(grace):
		p.kill()
	}
}

func (p *proc) alive() bool {
	select {
	case <-p.exited:
		return false
	default:
		return true
	}
}

// reservePorts reserves a node's port and its bus port, port+busOffset,
// for as long as the cluster runs.
func reservePorts() (*ports.Reservation, error) {
	return ports.Reserve(busOffset)
}

// lastLogLine is the last line the server wrote, for an error message that
// stays one line; the whole log is in the node's directory.
func lastLogLine(dir string) string {
	for _, name := range []string{logName, stdioName} {
		lines := tailLines(filepath.Join(dir, name))
		for i := len(lines) - 1; i >= 0; i-- {
			if l := strings.TrimSpace(lines[i]); l != "" {
				return fmt.Sprintf("; its last log line (%s): %s", name, l)
			}
		}
	}
	return ""
}

func tailLines(path string) []string {
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	if st, err := f.Stat(); err == nil && st.Size() > logTailBytes {
		if _, err := f.Seek(st.Size()-logTailBytes, 0); err != nil {
			return nil
		}
	}
	var lines []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		lines = append(lines, sc.Text())
	}
	return lines
}
