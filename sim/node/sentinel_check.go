package node

import (
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
)

// CheckSentinel starts one sentinel of server kind s (redis-sentinel,
// valkey-sentinel) in a temp dir, asks it SENTINEL MASTERS and stops it:
// what locksim doctor checks before a sentinel run. It returns the command
// it ran.
func CheckSentinel(ctx context.Context, s Server, serverBin string) (string, error) {
	bin, extra, err := LookupSentinel(s, serverBin)
	if err != nil {
		return "", err
	}
	dir, err := os.MkdirTemp("", "locksim-doctor-sentinel-")
	if err != nil {
		return "", fmt.Errorf("make temp dir: %w", err)
	}
	defer os.RemoveAll(dir)
	port, err := freePort()
	if err != nil {
		return "", err
	}
	conf := filepath.Join(dir, "sentinel.conf")
	text := fmt.Sprintf("port %d\nbind 127.0.0.1\nprotected-mode no\ndaemonize no\ndir %s\nlogfile %s\n", port, dir, filepath.Join(dir, sentinelLog))
	if err := os.WriteFile(conf, []byte(text), 0o644); err != nil {
		return "", fmt.Errorf("write sentinel config: %w", err)
	}
	proc, err := startProc(ctx, bin, append([]string{conf}, extra...), port, dir)
	if err != nil {
		return "", err
	}
	defer proc.kill()
	sc := newSentinelControl(net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
	defer sc.Close()
	if err := sc.Masters(ctx).Err(); err != nil {
		return "", fmt.Errorf("SENTINEL MASTERS: %w", err)
	}
	cmd := bin
	if len(extra) > 0 {
		cmd += " " + extra[0]
	}
	return cmd, nil
}
