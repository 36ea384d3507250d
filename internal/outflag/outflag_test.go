package outflag

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/spf13/pflag"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func parse(t *testing.T, args ...string) *Flags {
	t.Helper()
	var f Flags
	fs := pflag.NewFlagSet("x", pflag.ContinueOnError)
	f.Register(fs, "explore", "<stamp>")
	require.NoError(t, fs.Parse(args))
	return &f
}

func TestResolveUnderRoot(t *testing.T) {
	root := t.TempDir()
	dir, err := parse(t, "--out", root).Resolve("explore", "20300102T030405Z-s1")
	require.NoError(t, err)
	assert.Equal(t, filepath.Join(root, "explore", "20300102T030405Z-s1"), dir)

	require.NoError(t, os.MkdirAll(dir, 0o755))
	dir, err = parse(t, "--out", root).Resolve("explore", "20300102T030405Z-s1")
	require.NoError(t, err)
	assert.Equal(t, filepath.Join(root, "explore", "20300102T030405Z-s1-2"), dir, "a taken name gets the next free suffix")

	dir, err = parse(t).Resolve("review", "s")
	require.NoError(t, err)
	assert.Equal(t, filepath.Join("results", "review", "s"), dir, "the default root")
}

func TestResolveExactDir(t *testing.T) {
	want := filepath.Join(t.TempDir(), "mine")
	dir, err := parse(t, "--out-dir", want).Resolve("explore", "x")
	require.NoError(t, err)
	assert.Equal(t, want, dir)
}

func TestResolveErrorsNameTheFlag(t *testing.T) {
	full := t.TempDir()
	file := filepath.Join(full, "f")
	require.NoError(t, os.WriteFile(file, nil, 0o644))
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--out", "a", "--out-dir", "b"}, "--out and --out-dir: give one"},
		{[]string{"--out-dir", full}, `--out-dir "` + full + `": exists and is not empty`},
		{[]string{"--out", file}, `--out "` + file + `": exists and is not a directory`},
	} {
		_, err := parse(t, tc.args...).Resolve("explore", "x")
		require.Error(t, err, tc.args)
		assert.Contains(t, err.Error(), tc.want)
	}
	root := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(root, "explore"), nil, 0o644))
	_, err := parse(t, "--out", root).Resolve("explore", "x")
	require.Error(t, err)
	assert.Contains(t, err.Error(), `--out "`+root+`": explore inside it`)
}
