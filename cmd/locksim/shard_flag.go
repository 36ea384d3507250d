package main

import (
	"fmt"
	"os"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/locksim/locksim/internal/shard"
)

// registerShardFlags adds --shard and --shards, which explore and matrix
// share: what is split is named by what.
func registerShardFlags(fl *pflag.FlagSet, value *string, count *int, what string) {
	fl.StringVar(value, "shard", "0/1", "run shard `i/n` of the "+what+"; auto: i and n from the engine's environment (Kubernetes Indexed Job, GitLab CI parallel, Slurm array)")
	fl.IntVar(count, "shards", 0, "the shard count, for --shard auto under a Kubernetes Indexed Job (its completions; or LOCKSIM_SHARDS); with another engine or i/n it must agree")
}

// resolveShard is the shard --shard and --shards name, the engine's
// environment read for auto; the engine it came from is said on stderr.
func resolveShard(cmd *cobra.Command, value string, count int) (shard.Shard, error) {
	if cmd.Flags().Changed("shards") && count < 1 {
		return shard.Shard{}, fmt.Errorf("--shards %d: at least 1", count)
	}
	s, engine, err := shard.Resolve(value, count, os.Getenv)
	if err != nil {
		return shard.Shard{}, err
	}
	if engine != "" {
		fmt.Fprintf(cmd.ErrOrStderr(), "shard %s from the %s environment\n", s, engine)
	}
	return s, nil
}
