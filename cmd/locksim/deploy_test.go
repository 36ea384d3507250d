package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"

	"github.com/locksim/locksim/internal/shard"
	"github.com/locksim/locksim/lock"
)

// indexedJob is what deploy_test reads of a Kubernetes Job.
type indexedJob struct {
	Kind string `yaml:"kind"`
	Spec struct {
		CompletionMode string `yaml:"completionMode"`
		Completions    int    `yaml:"completions"`
		Parallelism    int    `yaml:"parallelism"`
		Template       struct {
			Spec struct {
				RestartPolicy string `yaml:"restartPolicy"`
				Containers    []struct {
					Image string   `yaml:"image"`
					Args  []string `yaml:"args"`
					Env   []struct {
						Name string `yaml:"name"`
					} `yaml:"env"`
					VolumeMounts []struct {
						MountPath string `yaml:"mountPath"`
					} `yaml:"volumeMounts"`
				} `yaml:"containers"`
			} `yaml:"spec"`
		} `yaml:"template"`
	} `yaml:"spec"`
}

// TestDeployIndexedJob: deploy/k8s/explore-job.yaml is an Indexed Job
// whose completions, parallelism and --shards agree, whose args are an
// explore command line locksim's own flags accept with --shard auto
// resolving under every index, writing under its volume, and whose image
// is the tag deploy/Containerfile says to build. No cluster is reachable
// here: this is the check the manifest gets.
func TestDeployIndexedJob(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "..", "deploy", "k8s", "explore-job.yaml"))
	require.NoError(t, err)
	var job indexedJob
	require.NoError(t, yaml.Unmarshal(b, &job))
	assert.Equal(t, "Job", job.Kind)
	assert.Equal(t, "Indexed", job.Spec.CompletionMode)
	assert.Equal(t, "Never", job.Spec.Template.Spec.RestartPolicy)
	require.Len(t, job.Spec.Template.Spec.Containers, 1)
	c := job.Spec.Template.Spec.Containers[0]
	n := job.Spec.Completions
	assert.Positive(t, n)
	assert.Equal(t, n, job.Spec.Parallelism, "parallelism == completions: every shard at once")

	// The args, through the explore command's own flags.
	require.NotEmpty(t, c.Args)
	require.Equal(t, "explore", c.Args[0])
	explore, _, err := newRoot().Find(c.Args[:1])
	require.NoError(t, err)
	require.NoError(t, explore.ParseFlags(c.Args[1:]), "the Job's args parse as locksim explore's flags")
	fl := explore.Flags()
	get := func(name string) string {
		f := fl.Lookup(name)
		require.NotNil(t, f, name)
		return f.Value.String()
	}
	assert.Empty(t, fl.Args(), "no stray arguments")
	assert.Equal(t, shard.Auto, get("shard"))
	shards, err := strconv.Atoi(get("shards"))
	require.NoError(t, err)
	assert.Equal(t, n, shards, "--shards == completions")
	for _, a := range strings.Split(strings.Trim(get("algos"), "[]"), ",") {
		_, err := lock.Lookup(a)
		assert.NoError(t, err, "--algos %s", a)
	}
	for i := range n {
		s, engine, err := shard.Resolve(get("shard"), shards, func(k string) string {
			if k == shard.EnvK8sIndex {
				return strconv.Itoa(i)
			}
			return ""
		})
		require.NoError(t, err)
		assert.Equal(t, shard.Shard{Index: i, Count: n}, s)
		assert.Equal(t, "kubernetes", engine)
	}
	var envs []string
	for _, e := range c.Env {
		envs = append(envs, e.Name)
	}
	out := get("out-dir")
	if strings.Contains(out, "$("+shard.EnvK8sIndex+")") {
		assert.Contains(t, envs, shard.EnvK8sIndex, "$(%s) in args expands only from a declared env var", shard.EnvK8sIndex)
	}
	mounted := false
	for _, m := range c.VolumeMounts {
		mounted = mounted || strings.HasPrefix(out, m.MountPath+"/")
	}
	assert.True(t, mounted, "--out-dir %s is on a mounted volume", out)

	// The image is the Containerfile's documented tag.
	cf, err := os.ReadFile(filepath.Join("..", "..", "deploy", "Containerfile"))
	require.NoError(t, err)
	tag := regexp.MustCompile(`build -f deploy/Containerfile -t (\S+) \.`).FindSubmatch(cf)
	require.NotNil(t, tag, "the Containerfile says how to build and tag it")
	assert.Equal(t, string(tag[1]), c.Image)
	assert.Contains(t, string(cf), "redis-server redis-sentinel", "the image has redis-server and redis-sentinel")
}
