package network

import (
	"context"
	"errors"
	"io"
	"net"
	"testing"
	"testing/synctest"
	"time"

	"github.com/locksim/locksim/vtime"
)

// A chunk through an in-memory proxy reaches the node after the link's
// latency, in the order written, as one scheduler pick each, and the
// client's close reaches the node after the chunks written before it.
func TestRelayDelaysInOrderOnePickEach(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := vtime.StartScheduler(7)
		defer s.Stop()
		m := newMemNet(s)
		served := make(chan net.Conn, 1)
		node := m.Listen("n0", func(link string) (net.Conn, error) {
			return ServePipe(s, link, func(c net.Conn) { served <- c }), nil
		})
		toxi := newMemToxi(m, 7, "p-")
		addr, err := toxi.create("p-c0-n0", node)
		if err != nil {
			t.Fatal(err)
		}
		if err := toxi.addToxic("p-c0-n0", "lat", "latency", "upstream", map[string]any{"latency": int64(10)}); err != nil {
			t.Fatal(err)
		}
		c, err := m.Dial(context.Background(), "tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		srv := <-served
		picks, start := s.Picks(), time.Now()
		for _, w := range []string{"a", "b", "c"} {
			if _, err := c.Write([]byte(w)); err != nil {
				t.Fatal(err)
			}
			time.Sleep(time.Millisecond)
		}
		if err := c.Close(); err != nil {
			t.Fatal(err)
		}
		var got []byte
		buf := make([]byte, 16)
		var first time.Duration
		for {
			n, err := srv.Read(buf)
			if n > 0 && got == nil {
				first = time.Since(start)
			}
			got = append(got, buf[:n]...)
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
		}
		if string(got) != "abc" {
			t.Errorf("the node read %q, want \"abc\"", got)
		}
		if min := 10 * time.Millisecond; first < min {
			t.Errorf("the first chunk arrived after %v, before the link's latency %v", first, min)
		}
		// Three chunks and the close to the node, one delivery each, and
		// perhaps already the proxy's close towards the client.
		if n := s.Picks() - picks; n > 5 {
			t.Errorf("%d scheduler picks for three chunks and a close through the proxy, want at most 5", n)
		}
		srv.Close()
	})
}
