package shard

import (
	"errors"
	"strings"
	"testing"
)

func env(kv ...string) func(string) string {
	m := map[string]string{}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	return func(k string) string { return m[k] }
}

func TestShardFromEnv(t *testing.T) {
	cases := []struct {
		name   string
		env    func(string) string
		count  int
		want   Shard
		engine string
		err    string // a piece of the error; "" for none
	}{
		{"k8s with --shards", env(EnvK8sIndex, "3"), 8, Shard{3, 8}, "kubernetes", ""},
		{"k8s with LOCKSIM_SHARDS", env(EnvK8sIndex, "0", EnvShards, "4"), 0, Shard{0, 4}, "kubernetes", ""},
		{"k8s both agree", env(EnvK8sIndex, "1", EnvShards, "4"), 4, Shard{1, 4}, "kubernetes", ""},
		{"k8s both disagree", env(EnvK8sIndex, "1", EnvShards, "4"), 5, Shard{}, "", "--shards 5: LOCKSIM_SHARDS=4"},
		{"k8s no count", env(EnvK8sIndex, "1"), 0, Shard{}, "", "give --shards N"},
		{"k8s index out of range", env(EnvK8sIndex, "8"), 8, Shard{}, "", "JOB_COMPLETION_INDEX=8: out of range for 8 shards"},
		{"k8s index not a number", env(EnvK8sIndex, "x"), 8, Shard{}, "", `JOB_COMPLETION_INDEX="x": not an integer`},
		{"gitlab 1-based", env(EnvGitLabIndex, "1", EnvGitLabTotal, "3"), 0, Shard{0, 3}, "gitlab", ""},
		{"gitlab last", env(EnvGitLabIndex, "3", EnvGitLabTotal, "3"), 0, Shard{2, 3}, "gitlab", ""},
		{"gitlab index 0", env(EnvGitLabIndex, "0", EnvGitLabTotal, "3"), 0, Shard{}, "", "CI_NODE_INDEX=0: out of range"},
		{"gitlab half set", env(EnvGitLabIndex, "2"), 0, Shard{}, "", "one is unset"},
		{"gitlab count disagrees with --shards", env(EnvGitLabIndex, "2", EnvGitLabTotal, "3"), 4, Shard{}, "", "--shards 4: gitlab says 3"},
		{"slurm from 0", env(EnvSlurmID, "5", EnvSlurmCount, "8", EnvSlurmMin, "0"), 0, Shard{5, 8}, "slurm", ""},
		{"slurm from 1", env(EnvSlurmID, "1", EnvSlurmCount, "8", EnvSlurmMin, "1"), 0, Shard{0, 8}, "slurm", ""},
		{"slurm from 1, last", env(EnvSlurmID, "8", EnvSlurmCount, "8", EnvSlurmMin, "1"), 0, Shard{7, 8}, "slurm", ""},
		{"slurm stepped", env(EnvSlurmID, "14", EnvSlurmCount, "8", EnvSlurmMin, "0", EnvSlurmStep, "2"), 0, Shard{7, 8}, "slurm", ""},
		{"slurm off its step", env(EnvSlurmID, "3", EnvSlurmCount, "8", EnvSlurmMin, "0", EnvSlurmStep, "2"), 0, Shard{}, "", "SLURM_ARRAY_TASK_ID=3: not one of the 8 tasks"},
		{"slurm past its count", env(EnvSlurmID, "9", EnvSlurmCount, "8", EnvSlurmMin, "1"), 0, Shard{}, "", "SLURM_ARRAY_TASK_ID=9"},
		{"slurm half set", env(EnvSlurmCount, "8"), 0, Shard{}, "", "one is unset"},
		{"two engines agree", env(EnvK8sIndex, "2", EnvGitLabIndex, "3", EnvGitLabTotal, "4"), 4, Shard{2, 4}, "gitlab+kubernetes", ""},
		{"two engines disagree", env(EnvGitLabIndex, "1", EnvGitLabTotal, "4", EnvSlurmID, "3", EnvSlurmCount, "4"), 0, Shard{}, "", "gitlab says shard 0/4, slurm says 3/4"},
		{"no engine", env(), 0, Shard{}, "", "no engine's shard in the environment"},
		{"no engine with --shards", env(), 4, Shard{}, "", "no engine's shard in the environment"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, engine, err := FromEnv(c.env, c.count)
			if c.err != "" {
				if err == nil || !errors.Is(err, ErrBad) || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("error %v, want ErrBad containing %q", err, c.err)
				}
				if strings.Contains(err.Error(), "\n") {
					t.Fatalf("error %q is more than one line", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got != c.want || engine != c.engine {
				t.Fatalf("got %v from %q, want %v from %q", got, engine, c.want, c.engine)
			}
		})
	}
}

func TestShardResolve(t *testing.T) {
	none := env()
	cases := []struct {
		value string
		count int
		want  Shard
		err   string
	}{
		{"0/1", 0, All, ""},
		{"2/8", 0, Shard{2, 8}, ""},
		{"2/8", 8, Shard{2, 8}, ""},
		{"2/8", 4, Shard{}, "--shards 4: --shard 2/8 says 8"},
		{"8/8", 0, Shard{}, `--shard "8/8"`},
		{"-1/8", 0, Shard{}, `--shard "-1/8"`},
		{"3", 0, Shard{}, `--shard "3"`},
		{"auto", 0, Shard{}, "no engine's shard"},
	}
	for _, c := range cases {
		got, _, err := Resolve(c.value, c.count, none)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("Resolve(%q, %d): error %v, want %q", c.value, c.count, err, c.err)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("Resolve(%q, %d) = %v, %v; want %v", c.value, c.count, got, err, c.want)
		}
	}
	got, engine, err := Resolve("auto", 3, env(EnvK8sIndex, "2"))
	if err != nil || got != (Shard{2, 3}) || engine != "kubernetes" {
		t.Errorf("Resolve(auto, 3) under an Indexed Job = %v %q %v", got, engine, err)
	}
}

func TestShardOwnsPartitions(t *testing.T) {
	for _, n := range []int{1, 3, 8} {
		owners := make([]int, 50)
		for i := range n {
			for k := range owners {
				if (Shard{i, n}).Owns(k) {
					owners[k]++
				}
			}
		}
		for k, c := range owners {
			if c != 1 {
				t.Fatalf("n=%d: item %d owned by %d shards, want 1", n, k, c)
			}
		}
	}
}

func TestShardMissing(t *testing.T) {
	got := Missing([]Shard{{0, 4}, {2, 4}}, 4)
	want := []string{"shard 1/4 missing", "shard 3/4 missing"}
	if strings.Join(got, ";") != strings.Join(want, ";") {
		t.Fatalf("Missing = %q, want %q", got, want)
	}
	if m := Missing([]Shard{{0, 2}, {1, 2}}, 2); len(m) != 0 {
		t.Fatalf("Missing of a full set = %q", m)
	}
}
