package matrix

import "github.com/locksim/locksim/internal/shard"

// A matrix splits into shards by its runs: the planned (scenario, design,
// run) triples, in plan order (scenarios, then designs, then runs), go to
// the shards in turn, triple k to shard k mod n. The plan is the same in
// every shard (it depends on the configuration alone), so n shards run
// every triple once between them, and Merge joins them back into the
// matrix one process would have made. Pairs not run (skip, n/a) are
// decided in every shard alike.

// ofShard keeps the jobs of shard s.
func ofShard(jobs []job, s shard.Shard) []job {
	if s.Count <= 1 {
		return jobs
	}
	var out []job
	for k, j := range jobs {
		if s.Owns(k) {
			out = append(out, j)
		}
	}
	return out
}

// keepShard leaves each cell that ran with the runs of its own jobs: the
// others are other shards', and a cell with none is CellElsewhere.
func keepShard(cells []Cell, jobs []job, runs int) {
	owned := map[int][]int{}
	for _, j := range jobs {
		owned[j.cell] = append(owned[j.cell], j.run)
	}
	for i := range cells {
		c := &cells[i]
		if c.Status != CellRan || len(owned[i]) == runs {
			continue
		}
		if len(owned[i]) == 0 {
			c.Status, c.Runs = CellElsewhere, nil
			c.Reason = "run by another shard"
			continue
		}
		var mine []CellRun
		for _, r := range owned[i] {
			mine = append(mine, c.Runs[r])
		}
		c.Runs = mine
	}
}
