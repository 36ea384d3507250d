package faults_test

import (
	"net"
	"net/http"
	"testing"

	toxiproxy "github.com/Shopify/toxiproxy/v2"
	"github.com/rs/zerolog"
	"github.com/stretchr/testify/require"
)

// toxiproxyServer runs a toxiproxy server with its HTTP API on a loopback
// port, as toxiproxy-server would, and lists the proxies it holds.
func toxiproxyServer(t *testing.T) (addr string, proxies func() []string) {
	t.Helper()
	srv := toxiproxy.NewServer(toxiproxy.NewMetricsContainer(nil), zerolog.Nop())
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	hs := &http.Server{Handler: srv.Routes()}
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = hs.Serve(ln)
	}()
	t.Cleanup(func() {
		_ = hs.Close()
		<-done
		_ = srv.Collection.Clear()
	})
	return ln.Addr().String(), func() []string {
		var names []string
		for name := range srv.Collection.Proxies() {
			names = append(names, name)
		}
		return names
	}
}
