package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"

	"github.com/locksim/locksim/checker/histgen"
	"github.com/locksim/locksim/internal/report"
	"github.com/locksim/locksim/sim"
)

// largeRunDir, when set, is where TestWriteLargeRunDir writes a run
// directory whose history has 1.4M operations of a million clients, for
// measuring `locksim check` on it:
//
//	go test ./cmd/locksim -run TestWriteLargeRunDir -large-run-dir /tmp/large
//	/usr/bin/time -v locksim check /tmp/large
var largeRunDir = flag.String("large-run-dir", "", "write a run directory with a 1.4M-operation history of a million clients here (TestWriteLargeRunDir)")

// largeRunBase is the committed run whose verdict.json and scenario.yaml
// a generated run directory starts from.
var largeRunBase = filepath.Join(examplesRuns, "gc-pause-after-check-redlock")

// writeManyClientsRun writes into dir a run directory whose history is
// histgen.ManyClients(1, ops, clients, overlapAt): verdict.json records
// clients and the verdict the history has (safe, or unsafe when overlapAt
// puts one exclusion violation in it) as saved and expected, and
// scenario.yaml is the base run's without its faults, requirements and
// client count, so the run played what it asked.
func writeManyClientsRun(t testing.TB, dir string, ops, clients, overlapAt int) {
	t.Helper()
	verdict := "safe"
	if overlapAt >= 0 {
		verdict = "unsafe"
	}
	b, err := os.ReadFile(filepath.Join(largeRunBase, report.FileVerdict))
	require.NoError(t, err)
	var v map[string]any
	require.NoError(t, json.Unmarshal(b, &v))
	v["verdict"], v["expected"] = verdict, verdict
	delete(v, "expected_checks")
	v["config"].(map[string]any)["clients"] = clients
	b, err = json.MarshalIndent(v, "", "  ")
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, report.FileVerdict), b, 0o644))

	b, err = os.ReadFile(filepath.Join(largeRunBase, report.FileScenario))
	require.NoError(t, err)
	var sc map[string]any
	require.NoError(t, yaml.Unmarshal(b, &sc))
	for _, k := range []string{"faults", "require", "expect", "clients"} {
		delete(sc, k)
	}
	b, err = yaml.Marshal(sc)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, report.FileScenario), b, 0o644))

	f, err := os.Create(filepath.Join(dir, report.FileHistory))
	require.NoError(t, err)
	require.NoError(t, histgen.ManyClients(1, ops, clients, overlapAt).WriteJSONL(f))
	require.NoError(t, f.Close())
}

// TestWriteLargeRunDir writes the run directory -large-run-dir names;
// skipped without it.
func TestWriteLargeRunDir(t *testing.T) {
	if *largeRunDir == "" {
		t.Skip("no -large-run-dir")
	}
	require.NoError(t, os.MkdirAll(*largeRunDir, 0o755))
	writeManyClientsRun(t, *largeRunDir, 1_400_000, 1_000_000, -1)
}

// TestCheckManyClients: locksim check decides a history of far more
// clients than a run may have (5000, most of them appearing once or
// twice), safe when it is and unsafe with one exclusion violation in it,
// each as the saved verdict says (exit 0).
func TestCheckManyClients(t *testing.T) {
	const clients = 5000
	require.Greater(t, clients, sim.MaxClients)
	for _, tc := range []struct {
		overlapAt int
		verdict   string
	}{{-1, "safe"}, {2000, "unsafe"}} {
		t.Run(tc.verdict, func(t *testing.T) {
			dir := t.TempDir()
			writeManyClientsRun(t, dir, 30_000, clients, tc.overlapAt)
			stdout, stderr, code := executeWithin(t, context.Background(), "check", "--json", dir)
			require.Equal(t, exitOK, code, "stdout:\n%s\nstderr:\n%s", stdout, stderr)
			var got struct {
				Verdict string            `json:"verdict"`
				Checks  map[string]string `json:"checks"`
			}
			require.NoError(t, json.Unmarshal([]byte(stdout), &got), stdout)
			assert.Equal(t, tc.verdict, got.Verdict)
			assert.Equal(t, tc.verdict, got.Checks["exclusion"])
		})
	}
}

// TestCheckClientBound: the clients a checked history may name are bound
// by this machine's memory (sim.HistoryLimit), not by run's 1000: a
// history naming client 1000 or the last client within the bound is
// read, and a verdict.json recording 5000 clients; a history naming the
// client at the bound is refused, and so is a verdict.json recording more
// clients than the bound, each in one line naming the file, the field and
// the limit (exit 2).
func TestCheckClientBound(t *testing.T) {
	lim := sim.HistoryLimit()
	require.Greater(t, lim.Clients, sim.MaxClients)
	run := checkedRun(t)
	appendClient := func(c int) func(t *testing.T, dir string) {
		return func(t *testing.T, dir string) {
			f, err := os.OpenFile(filepath.Join(dir, report.FileHistory), os.O_APPEND|os.O_WRONLY, 0)
			require.NoError(t, err)
			_, err = fmt.Fprintf(f, `{"kind":"acquire","client":%d,"key":"k","call":1,"return":2,"outcome":"fail"}`+"\n", c)
			require.NoError(t, err)
			require.NoError(t, f.Close())
		}
	}
	for _, tc := range []struct {
		name  string
		spoil func(t *testing.T, dir string)
		wants []string // nil: not refused
	}{
		{"history names the last client within the bound", appendClient(lim.Clients - 1), nil},
		{"history names client 1000", appendClient(1000), nil},
		{"history names the client at the bound", appendClient(lim.Clients),
			[]string{report.FileHistory, fmt.Sprintf("client %d", lim.Clients), fmt.Sprintf("at most %d clients", lim.Clients)}},
		{"verdict records 5000 clients", func(t *testing.T, dir string) { setSavedClients(t, dir, 5000) }, nil},
		{"verdict records more than the bound", func(t *testing.T, dir string) { setSavedClients(t, dir, lim.Clients+1) },
			[]string{report.FileVerdict, fmt.Sprintf("clients %d", lim.Clients+1), fmt.Sprintf("1 to %d clients", lim.Clients)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := copyRun(t, run)
			tc.spoil(t, dir)
			_, stderr, code := executeWithin(t, context.Background(), "check", dir)
			if tc.wants == nil {
				assert.NotEqual(t, exitUsage, code, stderr)
				assert.NotEqual(t, exitHarness, code, stderr)
				return
			}
			assert.Equal(t, exitUsage, code, stderr)
			msg := strings.TrimSpace(stderr)
			assert.NotContains(t, msg, "\n", "one line")
			for _, w := range tc.wants {
				assert.Contains(t, msg, w)
			}
		})
	}
}
