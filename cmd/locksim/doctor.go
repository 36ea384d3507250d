package main

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"os/exec"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/locksim/locksim/lock"
	"github.com/locksim/locksim/scenarios"
	"github.com/locksim/locksim/sim"
	"github.com/locksim/locksim/sim/node"
)

// check is one line of the doctor's report.
type check struct {
	name   string
	ok     bool
	detail string
}

func doctorCmd() *cobra.Command {
	var toxiproxy string
	var addrs []string
	cmd := &cobra.Command{
		Use:   "doctor",
		Short: "Check what locksim needs: redis-server, redis-sentinel, loopback ports, toxiproxy, your servers; list node directories runs left",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			checks := []check{
				binaryVersion("redis-server", "needed for --backend redis (apt-get install redis-server)"),
				sentinelAnswers(cmd.Context()),
				loopbackPorts(),
				leftDirsCheck(),
			}

			if toxiproxy != "" {
				checks = append(checks, toxiproxyReachable(cmd.Context(), toxiproxy))
			}
			for i, a := range addrs {
				checks = append(checks, serverAnswers(cmd.Context(), i, strings.TrimSpace(a)))
			}
			failed := 0
			for _, c := range checks {
				mark := "ok  "
				if !c.ok {
					mark = "FAIL"
					failed++
				}
				fmt.Fprintf(cmd.OutOrStdout(), "%s %-16s %s\n", mark, c.name, c.detail)
			}
			// A process design that cannot run here is only left out of
			// runs, and Valkey and a cluster are run only when asked: n/a,
			// not a failure.
			optional := append(valkeyChecks(cmd.Context()), clusterChecks(cmd.Context())...)
			for _, c := range append(optional, processDesigns()...) {
				mark := "ok  "
				if !c.ok {
					mark = "n/a "
				}
				fmt.Fprintf(cmd.OutOrStdout(), "%s %-16s %s\n", mark, c.name, c.detail)
			}
			if failed > 0 {
				return harnessErr(fmt.Errorf("doctor: %d of %d checks failed", failed, len(checks)))
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&toxiproxy, "toxiproxy", "", "also check a toxiproxy server's API at `ADDR` (host:port)")
	cmd.Flags().StringSliceVar(&addrs, "addrs", nil, "also check that the Redis servers at `host:port,...` (run's --addrs) answer PING")
	return cmd
}

// processDesigns says for each process design whether it can run here
// (its interpreter and packages, lock.Info.Unavailable).
func processDesigns() []check {
	var out []check
	for _, i := range lock.Algorithms() {
		if !i.Process {
			continue
		}
		if m := i.Missing(); m != "" {
			out = append(out, check{i.Name, false, "left out of runs: " + m})
			continue
		}
		detail := "usable: " + i.Source
		if why := i.ClockUnreached(); why != "" {
			detail += "; client clock faults refused: " + why
		} else {
			detail += "; client clock faults reach its child (libfaketime)"
		}
		out = append(out, check{i.Name, true, detail})
	}
	return out
}

// serverAnswers checks one of the external backend's servers.
func serverAnswers(ctx context.Context, i int, addr string) check {
	name := fmt.Sprintf("node %d", i)
	if err := scenarios.CheckAddr(addr); err != nil {
		return check{name, false, fmt.Sprintf("--addrs %q: %v", addr, err)}
	}
	if _, err := ping(ctx, addr); err != nil {
		return check{name, false, fmt.Sprintf("%s does not answer PING: %v", addr, err)}
	}
	return check{name, true, addr + " answers PING"}
}

func binaryVersion(name, hint string) check {
	path, err := exec.LookPath(name)
	if name == "redis-server" {
		path, err = node.LookupRedisServer("") // what --backend redis will run
	}
	if err != nil {
		return check{name, false, "not found in PATH: " + hint}
	}
	out, err := exec.Command(path, "--version").CombinedOutput()
	if err != nil {
		return check{name, false, fmt.Sprintf("%s --version: %v", path, err)}
	}
	return check{name, true, fmt.Sprintf("%s (%s)", strings.TrimSpace(string(out)), path)}
}

// sentinelAnswers starts a redis-sentinel and asks it SENTINEL MASTERS:
// the redis backend's failovers are Sentinel's by default.
func sentinelAnswers(ctx context.Context) check {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	cmd, err := node.CheckSentinel(ctx, sim.ServerRedis, "")
	if err != nil {
		return check{"redis-sentinel", false, fmt.Sprintf("%v: needed for failover on --backend redis (apt-get install redis-sentinel; or failover: {mode: direct})", err)}
	}
	return check{"redis-sentinel", true, cmd + " starts and answers SENTINEL MASTERS"}
}

// loopbackPorts opens and closes a few listeners, as the redis backend does.
func loopbackPorts() check {
	var ports []string
	for range 3 {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return check{"loopback ports", false, fmt.Sprintf("cannot listen on 127.0.0.1: %v", err)}
		}
		ports = append(ports, l.Addr().String())
		_ = l.Close()
	}
	return check{"loopback ports", true, "opened " + strings.Join(ports, ", ")}
}

func toxiproxyReachable(ctx context.Context, addr string) check {
	ctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+addr+"/version", nil)
	if err != nil {
		return check{"toxiproxy", false, fmt.Sprintf("--toxiproxy %q: %v", addr, err)}
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return check{"toxiproxy", false, fmt.Sprintf("%s unreachable: %v", addr, err)}
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return check{"toxiproxy", false, fmt.Sprintf("%s answered %s", addr, resp.Status)}
	}
	return check{"toxiproxy", true, "API at " + addr + " answers"}
}
