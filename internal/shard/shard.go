// Package shard is one shard of a sharded command: its index and the
// shard count, parsed from "i/n" or read from the environment of the
// engine that started the process (a Kubernetes Indexed Job, a GitLab CI
// parallel job, a Slurm job array), and which items of a deterministic
// sequence it runs.
package shard

import (
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// Shard is shard Index (0-based) of Count.
type Shard struct {
	Index, Count int
}

// All is the one shard of an unsharded command.
var All = Shard{0, 1}

// String is "i/n", the form Parse reads.
func (s Shard) String() string { return fmt.Sprintf("%d/%d", s.Index, s.Count) }

// Owns reports whether item k of a sequence is this shard's: k mod Count ==
// Index, so that n shards split a sequence evenly and their union is the
// sequence, whatever its length.
func (s Shard) Owns(k int) bool { return k%s.Count == s.Index }

// Auto is the value of --shard that reads the shard from the environment.
const Auto = "auto"

// ErrBad marks a shard that cannot be used: a malformed "i/n", an
// environment that names no shard or two that disagree.
var ErrBad = errors.New("bad shard")

// badShard is an ErrBad whose message is the one line alone, as the
// command prints it.
type badShard struct{ msg string }

func (e *badShard) Error() string        { return e.msg }
func (e *badShard) Is(target error) bool { return target == ErrBad }

func bad(format string, args ...any) error {
	return &badShard{fmt.Sprintf(format, args...)}
}

// Parse reads "i/n" with 0 <= i < n.
func Parse(s string) (Shard, error) {
	a, b, ok := strings.Cut(s, "/")
	i, err1 := strconv.Atoi(strings.TrimSpace(a))
	n, err2 := strconv.Atoi(strings.TrimSpace(b))
	if !ok || err1 != nil || err2 != nil || n < 1 || i < 0 || i >= n {
		return Shard{}, bad("--shard %q: want i/n with 0 <= i < n, e.g. 0/4, or auto", s)
	}
	return Shard{i, n}, nil
}

// Environment variables the engines set, and LOCKSIM_SHARDS, the count a
// Kubernetes Indexed Job's pod is given (a pod's environment has its
// completion index, not the Job's completions).
const (
	EnvK8sIndex    = "JOB_COMPLETION_INDEX"
	EnvShards      = "LOCKSIM_SHARDS"
	EnvGitLabIndex = "CI_NODE_INDEX"
	EnvGitLabTotal = "CI_NODE_TOTAL"
	EnvSlurmID     = "SLURM_ARRAY_TASK_ID"
	EnvSlurmCount  = "SLURM_ARRAY_TASK_COUNT"
	EnvSlurmMin    = "SLURM_ARRAY_TASK_MIN"
	EnvSlurmStep   = "SLURM_ARRAY_TASK_STEP"
)

// FromEnv reads the shard from the engine that started the process,
// through getenv (os.Getenv in a program). count is the shard count given
// on the command line (--shards; 0 when not given): a Kubernetes Indexed
// Job needs it or LOCKSIM_SHARDS, and for the other engines it must agree
// with theirs. The engine's name comes back for the log.
//
//   - Kubernetes Indexed Job: JOB_COMPLETION_INDEX (0-based); the count
//     from count or LOCKSIM_SHARDS.
//   - GitLab CI parallel: CI_NODE_INDEX (1-based) and CI_NODE_TOTAL.
//   - Slurm job array: (SLURM_ARRAY_TASK_ID - SLURM_ARRAY_TASK_MIN) /
//     SLURM_ARRAY_TASK_STEP of SLURM_ARRAY_TASK_COUNT, so that an array
//     --array=1-8 or 0-14:2 is shards 0..n-1.
//
// No engine's variables, two engines that disagree, an index out of its
// range or a count that disagrees with count are ErrBad, in one line
// naming the variables.
func FromEnv(getenv func(string) string, count int) (Shard, string, error) {
	if count < 0 {
		return Shard{}, "", bad("--shards %d: at least 1", count)
	}
	type found struct {
		engine string
		s      Shard
	}
	var all []found
	for _, e := range engines {
		s, ok, err := e.read(getenv, count)
		if err != nil {
			return Shard{}, "", err
		}
		if ok {
			all = append(all, found{e.name, s})
		}
	}
	if len(all) == 0 {
		return Shard{}, "", bad("--shard auto: no engine's shard in the environment (%s, %s/%s, %s/%s); give --shard i/n", EnvK8sIndex, EnvGitLabIndex, EnvGitLabTotal, EnvSlurmID, EnvSlurmCount)
	}
	for _, f := range all[1:] {
		if f.s != all[0].s {
			return Shard{}, "", bad("--shard auto: %s says shard %s, %s says %s; unset one or give --shard i/n", all[0].engine, all[0].s, f.engine, f.s)
		}
	}
	names := make([]string, len(all))
	for i, f := range all {
		names[i] = f.engine
	}
	sort.Strings(names)
	s := all[0].s
	if count > 0 && s.Count != count {
		return Shard{}, "", bad("--shards %d: %s says %d shards", count, all[0].engine, s.Count)
	}
	return s, strings.Join(names, "+"), nil
}

type engine struct {
	name string
	read func(getenv func(string) string, count int) (Shard, bool, error)
}

var engines = []engine{
	{"kubernetes", readK8s},
	{"gitlab", readGitLab},
	{"slurm", readSlurm},
}

// intVar reads an integer variable; ok is false when it is unset.
func intVar(getenv func(string) string, name string) (int, bool, error) {
	v := strings.TrimSpace(getenv(name))
	if v == "" {
		return 0, false, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil {
		return 0, false, bad("%s=%q: not an integer", name, v)
	}
	return n, true, nil
}

func readK8s(getenv func(string) string, count int) (Shard, bool, error) {
	i, ok, err := intVar(getenv, EnvK8sIndex)
	if err != nil || !ok {
		return Shard{}, false, err
	}
	n, nok, err := intVar(getenv, EnvShards)
	if err != nil {
		return Shard{}, false, err
	}
	switch {
	case nok && count > 0 && n != count:
		return Shard{}, false, bad("--shards %d: %s=%d says otherwise", count, EnvShards, n)
	case !nok && count == 0:
		return Shard{}, false, bad("--shard auto: %s=%d but no shard count: give --shards N (the Job's completions) or %s", EnvK8sIndex, i, EnvShards)
	case !nok:
		n = count
	}
	if n < 1 {
		return Shard{}, false, bad("%s=%d: at least 1", EnvShards, n)
	}
	if i < 0 || i >= n {
		return Shard{}, false, bad("%s=%d: out of range for %d shards (0 to %d)", EnvK8sIndex, i, n, n-1)
	}
	return Shard{i, n}, true, nil
}

func readGitLab(getenv func(string) string, _ int) (Shard, bool, error) {
	i, iok, err := intVar(getenv, EnvGitLabIndex)
	if err != nil {
		return Shard{}, false, err
	}
	n, nok, err := intVar(getenv, EnvGitLabTotal)
	if err != nil {
		return Shard{}, false, err
	}
	switch {
	case !iok && !nok:
		return Shard{}, false, nil
	case iok != nok:
		return Shard{}, false, bad("--shard auto: %s and %s come together (GitLab's parallel:); one is unset", EnvGitLabIndex, EnvGitLabTotal)
	case n < 1:
		return Shard{}, false, bad("%s=%d: at least 1", EnvGitLabTotal, n)
	case i < 1 || i > n:
		return Shard{}, false, bad("%s=%d: out of range for %s=%d (1 to %d)", EnvGitLabIndex, i, EnvGitLabTotal, n, n)
	}
	return Shard{i - 1, n}, true, nil
}

func readSlurm(getenv func(string) string, _ int) (Shard, bool, error) {
	id, iok, err := intVar(getenv, EnvSlurmID)
	if err != nil {
		return Shard{}, false, err
	}
	n, nok, err := intVar(getenv, EnvSlurmCount)
	if err != nil {
		return Shard{}, false, err
	}
	lo, _, err := intVar(getenv, EnvSlurmMin) // unset: 0
	if err != nil {
		return Shard{}, false, err
	}
	step, sok, err := intVar(getenv, EnvSlurmStep)
	if err != nil {
		return Shard{}, false, err
	}
	if !sok {
		step = 1
	}
	switch {
	case !iok && !nok:
		return Shard{}, false, nil
	case iok != nok:
		return Shard{}, false, bad("--shard auto: %s and %s come together (a Slurm job array); one is unset", EnvSlurmID, EnvSlurmCount)
	case n < 1:
		return Shard{}, false, bad("%s=%d: at least 1", EnvSlurmCount, n)
	case step < 1:
		return Shard{}, false, bad("%s=%d: at least 1", EnvSlurmStep, step)
	case id < lo || (id-lo)%step != 0 || (id-lo)/step >= n:
		return Shard{}, false, bad("%s=%d: not one of the %d tasks from %s=%d by %d (a sparse --array such as 1,5,9 has no shard index; use 0-N or --shard i/n)", EnvSlurmID, id, n, EnvSlurmMin, lo, step)
	}
	return Shard{(id - lo) / step, n}, true, nil
}

// Resolve is the shard a --shard value names: "i/n", or Auto, read from
// the environment through getenv with count from --shards (0: not given).
// A count with an explicit "i/n" must agree with it.
func Resolve(value string, count int, getenv func(string) string) (Shard, string, error) {
	if strings.TrimSpace(value) == Auto {
		return FromEnv(getenv, count)
	}
	s, err := Parse(value)
	if err != nil {
		return Shard{}, "", err
	}
	if count > 0 && count != s.Count {
		return Shard{}, "", bad("--shards %d: --shard %s says %d", count, s, s.Count)
	}
	return s, "", nil
}

// Missing lists the shards of n that are not in have, as "shard i/n
// missing", for a merge that must not summarise fewer shards silently.
func Missing(have []Shard, n int) []string {
	seen := map[int]bool{}
	for _, s := range have {
		seen[s.Index] = true
	}
	var out []string
	for i := range n {
		if !seen[i] {
			out = append(out, fmt.Sprintf("shard %d/%d missing", i, n))
		}
	}
	return out
}
