// Package bench measures what each lock design costs: completed lock cycles
// per second (acquire, hold, release), refused acquires, and acquire and
// full-cycle latency percentiles from HDR histograms, swept over designs x
// clients x nodes x contention on redis-server (or miniredis) nodes that it
// starts and stops itself.
//
// Every run carries its own references, measured in the same process one
// right after another: the raw limit (Raw, a bare go-redis loop of SET NX PX
// and an EVALSHA compare-and-delete over the same kind of connections, with
// no lock package in between) and the peer libraries (redislock for the
// single-node designs, redsync for the multi-node ones). Designs that share a
// cell (clients, nodes, contention) run interleaved in rounds, so that a
// noisy neighbour slows them all alike and the ratios between them stay
// honest even when the absolute numbers move.
//
// Run returns a Report, plain data; Report.Write puts bench.csv, bench.json,
// summary.md and the charts into a directory atomically. Under a scenario
// (Config.Under) the load runs through sim.Run while the scenario's faults
// play, and the report draws latency and refused attempts over time with the
// fault windows (and, under Sentinel, its failover windows) shaded.
package bench
