package network

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"sync"
	"syscall"
	"time"

	toxiserver "github.com/Shopify/toxiproxy/v2"
	toxiclient "github.com/Shopify/toxiproxy/v2/client"
	"github.com/rs/zerolog"

	"github.com/locksim/locksim/internal/ports"
)

// toxiAPI is what the network needs from toxiproxy. Two implementations:
// the library in process (no HTTP on the fault's path), and a remote server
// through toxiproxy's client API.
type toxiAPI interface {
	// create starts a proxy to upstream and returns the address to dial.
	create(name, upstream string) (dial string, err error)
	// Retarget makes a proxy lead to a new upstream; its connections close.
	retarget(name, upstream string) error
	addToxic(proxy, name, typ, stream string, attrs map[string]any) error
	removeToxic(proxy, name string) error
	remove(name string) error
	close() error
}

// localToxi is toxiproxy's own proxy collection, run in this process.
//
// Each proxy listens on a reserved port (internal/ports): a retarget
// closes its listener and opens it again on the same port, which its
// clients know, and in between neither another run nor the kernel (a
// bind of port 0, an outgoing connection's source port) may take it.
type localToxi struct {
	srv *toxiserver.ApiServer

	mu       sync.Mutex
	reserved map[string]*ports.Reservation // by proxy name
}

const (
	// listenTries bounds the reserved ports a new proxy tries when some
	// other program binds one first.
	listenTries = 5
	// relistenBound is how long a retarget keeps trying to listen on its
	// port again while some other program holds it; relistenEvery spaces
	// the tries.
	relistenBound = 2 * time.Second
	relistenEvery = 20 * time.Millisecond
)

func newLocalToxi() *localToxi {
	return &localToxi{
		srv:      toxiserver.NewServer(toxiserver.NewMetricsContainer(nil), zerolog.Nop()),
		reserved: map[string]*ports.Reservation{},
	}
}

func (l *localToxi) create(name, upstream string) (string, error) {
	var last error
	for range listenTries {
		r, err := ports.Reserve()
		if err != nil {
			return "", err
		}
		p := toxiserver.NewProxy(l.srv, name, r.Addr(), upstream)
		if last = l.srv.Collection.Add(p, true); last != nil {
			r.Release()
			if !errors.Is(last, syscall.EADDRINUSE) {
				return "", last
			}
			continue
		}
		l.mu.Lock()
		l.reserved[name] = r
		l.mu.Unlock()
		p.Lock()
		defer p.Unlock()
		return p.Listen, nil
	}
	return "", last
}

func (l *localToxi) proxy(name string) (*toxiserver.Proxy, error) {
	p, err := l.srv.Collection.Get(name)
	if err != nil {
		return nil, fmt.Errorf("proxy %s: %w", name, err)
	}
	return p, nil
}

func (l *localToxi) retarget(name, upstream string) error {
	p, err := l.proxy(name)
	if err != nil {
		return err
	}
	p.Lock()
	listen := p.Listen
	p.Unlock()
	// Same listen address, new upstream: toxiproxy stops the proxy (closing
	// its connections) and starts it again on the same port, which is
	// reserved; a program that binds it meanwhile delays the start.
	err = p.Update(&toxiserver.Proxy{Listen: listen, Upstream: upstream, Enabled: true})
	for first := time.Now(); err != nil && errors.Is(err, syscall.EADDRINUSE); {
		if time.Since(first) >= relistenBound {
			return fmt.Errorf("proxy %s: listen again on %s: held by another program for %v: %w", name, listen, relistenBound, err)
		}
		time.Sleep(relistenEvery)
		err = p.Start() // stopped and retargeted: only the listener is missing
	}
	return err
}

func (l *localToxi) addToxic(proxy, name, typ, stream string, attrs map[string]any) error {
	p, err := l.proxy(proxy)
	if err != nil {
		return err
	}
	body, err := json.Marshal(map[string]any{"name": name, "type": typ, "stream": stream, "toxicity": 1, "attributes": attrs})
	if err != nil {
		return err
	}
	return boundedToxicCall(fmt.Sprintf("add toxic %s to proxy %s", name, proxy), toxicCallBound, func() error {
		_, err := p.Toxics.AddToxicJson(bytes.NewReader(body))
		return err
	})
}

func (l *localToxi) removeToxic(proxy, name string) error {
	p, err := l.proxy(proxy)
	if err != nil {
		return err
	}
	// RemoveToxic takes a context but does not watch it; the call is
	// bounded instead (settle.go says why it can hang).
	return boundedToxicCall(fmt.Sprintf("remove toxic %s from proxy %s", name, proxy), toxicCallBound, func() error {
		return p.Toxics.RemoveToxic(context.Background(), name)
	})
}

func (l *localToxi) remove(name string) error {
	err := l.srv.Collection.Remove(name)
	l.mu.Lock()
	defer l.mu.Unlock()
	l.reserved[name].Release()
	delete(l.reserved, name)
	return err
}

func (l *localToxi) close() error {
	err := l.srv.Collection.Clear()
	l.mu.Lock()
	defer l.mu.Unlock()
	for name, r := range l.reserved {
		r.Release()
		delete(l.reserved, name)
	}
	return err
}

// remoteToxi drives a toxiproxy server elsewhere (toxiproxy-server, or a
// shared one near real hosts) through its HTTP API. Its proxies listen on
// every interface of that host; clients dial them at the API's host.
type remoteToxi struct {
	c      *toxiclient.Client
	host   string
	listen string

	mu       sync.Mutex
	proxies  map[string]*toxiclient.Proxy
	reserved map[string]*ports.Reservation // by proxy name, on this host
}

// loopbackAny asks a toxiproxy server on this host for any loopback port.
const loopbackAny = "127.0.0.1:0"

func newRemoteToxi(addr string) (*remoteToxi, error) {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, fmt.Errorf("toxiproxy address %q: want host:port of its API (%v)", addr, err)
	}
	r := &remoteToxi{
		c: toxiclient.NewClient(addr), host: host, listen: "0.0.0.0:0",
		proxies: map[string]*toxiclient.Proxy{}, reserved: map[string]*ports.Reservation{},
	}
	if ip := net.ParseIP(host); host == "localhost" || ip != nil && ip.IsLoopback() {
		r.listen = loopbackAny // nobody else needs to reach it
	}
	if _, err := r.c.Version(); err != nil {
		return nil, fmt.Errorf("toxiproxy at %s: %w", addr, err)
	}
	return r, nil
}

func (r *remoteToxi) create(name, upstream string) (string, error) {
	listen := r.listen
	var res *ports.Reservation
	if listen == loopbackAny {
		// On this host: a reserved port, which a retarget (the server
		// closes the listener and opens it again) cannot lose.
		var err error
		if res, err = ports.Reserve(); err != nil {
			return "", err
		}
		listen = res.Addr()
	}
	p, err := r.c.CreateProxy(name, listen, upstream)
	if err != nil {
		res.Release()
		return "", err
	}
	_, port, err := net.SplitHostPort(p.Listen)
	if err != nil {
		return "", fmt.Errorf("proxy %s listens on %q: %w", name, p.Listen, err)
	}
	r.mu.Lock()
	r.proxies[name] = p
	if res != nil {
		r.reserved[name] = res
	}
	r.mu.Unlock()
	return net.JoinHostPort(r.host, port), nil
}

func (r *remoteToxi) proxy(name string) (*toxiclient.Proxy, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	p, ok := r.proxies[name]
	if !ok {
		return nil, fmt.Errorf("proxy %s: not made by this run", name)
	}
	return p, nil
}

func (r *remoteToxi) retarget(name, upstream string) error {
	p, err := r.proxy(name)
	if err != nil {
		return err
	}
	p.Upstream = upstream
	return p.Save()
}

func (r *remoteToxi) addToxic(proxy, name, typ, stream string, attrs map[string]any) error {
	p, err := r.proxy(proxy)
	if err != nil {
		return err
	}
	return boundedToxicCall(fmt.Sprintf("add toxic %s to proxy %s", name, proxy), toxicCallBound, func() error {
		_, err := p.AddToxic(name, typ, stream, 1, toxiclient.Attributes(attrs))
		return err
	})
}

func (r *remoteToxi) removeToxic(proxy, name string) error {
	p, err := r.proxy(proxy)
	if err != nil {
		return err
	}
	return boundedToxicCall(fmt.Sprintf("remove toxic %s from proxy %s", name, proxy), toxicCallBound, func() error {
		return p.RemoveToxic(name)
	})
}

func (r *remoteToxi) remove(name string) error {
	p, err := r.proxy(name)
	if err != nil {
		return err
	}
	err = p.Delete()
	r.mu.Lock()
	delete(r.proxies, name)
	r.reserved[name].Release()
	delete(r.reserved, name)
	r.mu.Unlock()
	return err
}

func (r *remoteToxi) close() error {
	r.mu.Lock()
	for name, res := range r.reserved {
		res.Release() // a proxy whose removal failed: the run is over
		delete(r.reserved, name)
	}
	r.mu.Unlock()
	// The client uses http.DefaultTransport; its idle keep-alive
	// connections would otherwise outlive the run.
	if t, ok := http.DefaultTransport.(*http.Transport); ok {
		t.CloseIdleConnections()
	}
	return nil
}
