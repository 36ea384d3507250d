package lock

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"sync"

	"github.com/redis/go-redis/v9"
)

// subConn is a notified waiter's subscriber connection: a raw RESP
// connection dialed with the node client's own dialer, so it goes through
// the same proxies as the commands and a partition or reset reaches it.
// go-redis's PubSub would serve too, but it reconnects and resubscribes
// silently, hiding the very loss a fault should show; here a broken
// connection stays broken until the waiter dials again.
type subConn struct {
	conn net.Conn
	// msgs carries the channel of every message; acks the channel of
	// every subscribe confirmation. Both are buffered and never block the
	// reader: a waiter that is not listening loses nothing it needs (one
	// pending message already wakes it).
	msgs chan string
	acks chan string
	done chan struct{} // closed when the reader stops (connection gone)

	mu  sync.Mutex
	err error
}

// clusterNodes is a Redis Cluster client (go-redis's ClusterClient).
type clusterNodes interface {
	MasterForKey(ctx context.Context, key string) (*redis.Client, error)
}

// dialSub connects to node's address through node's dialer. On a Redis
// Cluster it connects to the master of channel's slot, where go-redis's
// ClusterClient subscribes too: a PUBLISH on any node of a cluster reaches
// the subscribers of every node (classic pub/sub is broadcast over the
// cluster bus), so the master of the lock key's slot, which publishes
// the unlock, reaches it wherever it is.
func dialSub(ctx context.Context, node redis.UniversalClient, channel string) (*subConn, error) {
	if cn, ok := node.(clusterNodes); ok {
		m, err := cn.MasterForKey(ctx, channel)
		if err != nil {
			return nil, err
		}
		node = m
	}
	c, ok := node.(*redis.Client)
	if !ok {
		return nil, fmt.Errorf("wait notify: a %T has no single address to subscribe at", node)
	}
	o := c.Options()
	conn, err := o.Dialer(ctx, o.Network, o.Addr)
	if err != nil {
		return nil, err
	}
	s := &subConn{conn: conn, msgs: make(chan string, 8), acks: make(chan string, 8), done: make(chan struct{})}
	go s.read()
	return s, nil
}

// broken reports whether the connection has stopped.
func (s *subConn) broken() bool {
	select {
	case <-s.done:
		return true
	default:
		return false
	}
}

// subscribe subscribes to channel and waits for the confirmation (or ctx).
// Messages already pending for an earlier wait are dropped first.
func (s *subConn) subscribe(ctx context.Context, channel string) error {
	for len(s.msgs) > 0 {
		<-s.msgs
	}
	if err := s.send(ctx, "SUBSCRIBE", channel); err != nil {
		return err
	}
	for {
		select {
		case ch := <-s.acks:
			if ch == channel {
				return nil
			}
		case <-s.done:
			return s.readErr()
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// unsubscribe asks to leave channel without waiting for the answer; a
// message that still comes is dropped by the next subscribe.
func (s *subConn) unsubscribe(ctx context.Context, channel string) error {
	return s.send(ctx, "UNSUBSCRIBE", channel)
}

func (s *subConn) send(ctx context.Context, args ...string) error {
	buf := []byte("*" + strconv.Itoa(len(args)) + "\r\n")
	for _, a := range args {
		buf = append(buf, "$"+strconv.Itoa(len(a))+"\r\n"+a+"\r\n"...)
	}
	// Every write sets its own deadline (none without one in ctx): a
	// deadline left from an earlier write must not fail this one.
	dl, _ := ctx.Deadline()
	_ = s.conn.SetWriteDeadline(dl)
	_, err := s.conn.Write(buf)
	return err
}

// Close closes the connection and waits for the reader. A connection
// that a fault already closed is no error.
func (s *subConn) Close() error {
	err := s.conn.Close()
	<-s.done
	if errors.Is(err, net.ErrClosed) {
		return nil
	}
	return err
}

func (s *subConn) readErr() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err == nil {
		return errors.New("subscriber connection closed")
	}
	return fmt.Errorf("subscriber connection: %w", s.err)
}

// read parses pushes until the connection ends: ["message", ch, msg] and
// ["subscribe", ch, n]; anything else is skipped.
func (s *subConn) read() {
	defer close(s.done)
	r := bufio.NewReader(s.conn)
	for {
		v, err := readRESP(r)
		if err != nil {
			s.mu.Lock()
			s.err = err
			s.mu.Unlock()
			return
		}
		a, ok := v.([]any)
		if !ok || len(a) < 2 {
			continue
		}
		kind, _ := a[0].(string)
		ch, _ := a[1].(string)
		var to chan string
		switch kind {
		case "message":
			to = s.msgs
		case "subscribe":
			to = s.acks
		default:
			continue
		}
		select {
		case to <- ch:
		default:
		}
	}
}

// readRESP reads one RESP2/RESP3 value: arrays and pushes as []any, bulk
// and simple strings as string, integers as int64, errors as error values
// inside (not as the read's error), nulls as nil.
func readRESP(r *bufio.Reader) (any, error) {
	line, err := r.ReadString('\n')
	if err != nil {
		return nil, err
	}
	if len(line) < 3 || line[len(line)-2] != '\r' {
		return nil, fmt.Errorf("bad RESP line %q", line)
	}
	body := line[1 : len(line)-2]
	switch line[0] {
	case '+':
		return body, nil
	case '-':
		return errors.New(body), nil
	case ':':
		return strconv.ParseInt(body, 10, 64)
	case '_':
		return nil, nil
	case '$':
		n, err := strconv.Atoi(body)
		if err != nil || n < 0 {
			return nil, err
		}
		b := make([]byte, n+2)
		if _, err := io.ReadFull(r, b); err != nil {
			return nil, err
		}
		return string(b[:n]), nil
	case '*', '>':
		n, err := strconv.Atoi(body)
		if err != nil || n < 0 {
			return nil, err
		}
		out := make([]any, n)
		for i := range out {
			if out[i], err = readRESP(r); err != nil {
				return nil, err
			}
		}
		return out, nil
	}
	return nil, fmt.Errorf("unsupported RESP type %q", line[0])
}
