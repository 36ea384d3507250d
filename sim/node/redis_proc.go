package node

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
	redisLogName   = "redis.log" // redis-server's own log (--logfile)
	redisStdioName = "stdio.log" // what it prints before the log is open
	readyTimeout   = 5 * time.Second
	logTailLines   = 15
	logTailBytes   = 4096
	readyPollEvery = 5 * time.Millisecond
	// restartBound is how long a restart keeps trying its port while some
	// other program holds it; restartRetryEvery spaces the tries.
	restartBound      = 5 * time.Second
	restartRetryEvery = 100 * time.Millisecond
)

// errPortTaken says the server could not bind its port: something else
// listens on it, or has it as the source port of a connection.
var errPortTaken = errors.New("port taken")

// redisProc is one run of a redis-server process.
type redisProc struct {
	cmd    *exec.Cmd
	exited chan struct{} // closed when the process has been waited for
}

// redisArgs is the whole configuration: given on the command line so that
// nothing depends on a config file, and with RDB snapshots off so that only
// the chosen AOF setting decides what a crash keeps.
func redisArgs(port int, dir string, p Persistence) []string {
	aof, fsync := "no", "everysec"
	switch p {
	case PersistenceEverySec:
		aof = "yes"
	case PersistenceAlways:
		aof, fsync = "yes", "always"
	}
	return []string{
		"--port", strconv.Itoa(port),
		"--bind", "127.0.0.1",
		"--dir", dir,
		"--save", "",
		"--appendonly", aof,
		"--appendfsync", fsync,
		"--daemonize", "no",
		"--protected-mode", "no",
		"--logfile", filepath.Join(dir, redisLogName),
		// Redis 7 waits 5 s before a diskless full sync, hoping for more
		// replicas to share it; there is only one. A master restarted
		// empty must resync its replica as promptly as at the start.
		"--repl-diskless-sync-delay", "0",
	}
}

// startRedisProc starts redis-server and waits until it answers PING.
func startRedisProc(ctx context.Context, bin string, port int, dir string, p Persistence) (*redisProc, error) {
	return startProc(ctx, bin, redisArgs(port, dir, p), port, dir)
}

// startProc starts bin with args (a redis-server or a redis-sentinel that
// listens on port and logs into dir) and waits until it answers PING.
func startProc(ctx context.Context, bin string, args []string, port int, dir string) (*redisProc, error) {
	marks := ports.LogMarks(dir, redisStdioName, redisLogName)
	stdio, err := os.OpenFile(filepath.Join(dir, redisStdioName), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, fmt.Errorf("open redis-server output file: %w", err)
	}
	defer stdio.Close() // the child has its own copy

	cmd := exec.Command(bin, args...)
	cmd.Dir = dir
	cmd.Stdout, cmd.Stderr = stdio, stdio
	cmd.SysProcAttr = &syscall.SysProcAttr{
		// Die with the harness even when it cannot run its cleanup (a fatal
		// signal, an unrecovered panic in another goroutine). Linux ties this
		// to the thread that forked; Go does not retire threads unless a
		// goroutine exits while locked to one, which the harness never does.
		Pdeathsig: syscall.SIGKILL,
		// A group of its own: a terminal's Ctrl-C reaches only the harness,
		// which then stops the server in order, and signals to the group also
		// reach an AOF-rewrite child.
		Setpgid: true,
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s: %w", bin, err)
	}
	proc := &redisProc{cmd: cmd, exited: make(chan struct{})}
	running.add(proc)
	go func() {
		_ = cmd.Wait() // the exit status of a killed server says nothing new
		running.remove(proc)
		close(proc.exited)
	}()

	if err := proc.waitReady(ctx, port); err != nil {
		proc.kill()
		if ports.TakenSince(dir, marks, redisStdioName, redisLogName) {
			err = fmt.Errorf("%w: %w", errPortTaken, err)
		}
		return nil, fmt.Errorf("%s on port %d: %w%s", filepath.Base(bin), port, err, lastLogLine(dir))
	}
	return proc, nil
}

// restartProc starts a server again on the port it had, which its
// clients, replicas and sentinels know it by. The port is reserved
// (internal/ports), so no other run and no kernel-chosen port takes it;
// a program that binds it anyway may hold it a moment (a probe), so a
// start that finds it taken is tried again, every restartRetryEvery,
// until restartBound or ctx ends.
func restartProc(ctx context.Context, start func(context.Context) (*redisProc, error), port int) (*redisProc, error) {
	ctx, cancel := context.WithTimeout(ctx, restartBound+readyTimeout)
	defer cancel()
	first := time.Now()
	for {
		proc, err := start(ctx)
		if err == nil || !errors.Is(err, errPortTaken) {
			return proc, err
		}
		if time.Since(first) >= restartBound || ctx.Err() != nil {
			return nil, fmt.Errorf("port %d stayed taken by another program for %v: %w", port, time.Since(first).Round(time.Millisecond), err)
		}
		select {
		case <-ctx.Done():
		case <-time.After(restartRetryEvery):
		}
	}
}

// waitReady polls PING until the server answers +PONG. A server still
// loading its AOF answers -LOADING, which counts as not ready yet.
func (p *redisProc) waitReady(ctx context.Context, port int) error {
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

// ping speaks just enough RESP to ask one PING on a fresh connection; a
// go-redis client would add pooling and a dial circuit breaker we do not want
// in a readiness probe.
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
func (p *redisProc) signal(sig syscall.Signal) error {
	if err := syscall.Kill(-p.cmd.Process.Pid, sig); err != nil && !errors.Is(err, syscall.ESRCH) {
		return fmt.Errorf("send %v to redis-server (pid %d): %w", sig, p.cmd.Process.Pid, err)
	}
	return nil
}

// kill crashes the server and waits until it is gone. SIGKILL ends a stopped
// process too; the SIGCONT only spares an AOF-rewrite child a stopped parent.
func (p *redisProc) kill() {
	_ = p.signal(syscall.SIGKILL)
	_ = p.signal(syscall.SIGCONT)
	<-p.exited
}

// alive reports whether the process has not exited.
func (p *redisProc) alive() bool {
	select {
	case <-p.exited:
		return false
	default:
		return true
	}
}

// freePort asks the kernel for a free loopback port, for a server that
// never restarts (a sentinel): another process may take it before the
// server binds it, and the caller tries another on errPortTaken.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("find a free port: %w", err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	if err := l.Close(); err != nil {
		return 0, fmt.Errorf("find a free port: %w", err)
	}
	return port, nil
}

// lastLogLine is the last line the server wrote, for an error message that
// stays one line; the whole log is in the node's directory.
func lastLogLine(dir string) string {
	for _, name := range []string{redisLogName, redisStdioName} {
		lines := tailLines(filepath.Join(dir, name))
		for i := len(lines) - 1; i >= 0; i-- {
			if l := strings.TrimSpace(lines[i]); l != "" {
				return fmt.Sprintf("; its last words in %s: %s", name, l)
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
	if len(lines) > logTailLines {
		lines = lines[len(lines)-logTailLines:]
	}
	return lines
}
