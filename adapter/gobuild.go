package adapter

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// A GoPin is one published version of a Go lock library run as a process
// design: the adapter's sources under adapter/go/<Library>/ (Files, the
// ones this version compiles) built with that folder's pins/<Version>/go.mod
// and go.sum, which pin the library and every module it needs.
type GoPin struct {
	Library string
	Version string
	Files   []string
}

// buildTimeout bounds one adapter build (a first build downloads the
// pinned modules).
const buildTimeout = 5 * time.Minute

// Source is the adapter's source folder.
func (p GoPin) Source() string { return filepath.Join(Dir(), "go", p.Library) }

// inputs are the files the build reads, as (name in the build folder,
// path in the source tree).
func (p GoPin) inputs() [][2]string {
	var in [][2]string
	for _, f := range p.Files {
		in = append(in, [2]string{f, filepath.Join(p.Source(), f)})
	}
	pin := filepath.Join(p.Source(), "pins", p.Version)
	return append(in, [2]string{"go.mod", filepath.Join(pin, "go.mod")}, [2]string{"go.sum", filepath.Join(pin, "go.sum")})
}

// Binary is where the built adapter lives: the user cache dir's
// locksim/adapters/<library>@<version>-<hash of its inputs>/, so that an
// edited adapter or pin builds afresh and an unchanged one never again.
func (p GoPin) Binary() (string, error) {
	h := sha256.New()
	for _, in := range p.inputs() {
		b, err := os.ReadFile(in[1])
		if err != nil {
			return "", fmt.Errorf("%s@%s: its adapter source is missing (%s; set LOCKSIM_ADAPTER_DIR)", p.Library, p.Version, in[1])
		}
		fmt.Fprintf(h, "%s %d\n", in[0], len(b))
		h.Write(b)
	}
	cache, err := os.UserCacheDir()
	if err != nil {
		cache = os.TempDir()
	}
	dir := fmt.Sprintf("%s@%s-%s", p.Library, p.Version, hex.EncodeToString(h.Sum(nil))[:12])
	return filepath.Join(cache, "locksim", "adapters", dir, "adapter"), nil
}

var builds sync.Map // GoPin key -> func() (string, error)

// Build returns the adapter's binary, building it with the go command when
// the cache lacks it; once per process and version. A failure is one line.
func (p GoPin) Build() (string, error) {
	f, _ := builds.LoadOrStore(p.Library+"@"+p.Version, sync.OnceValues(p.build))
	return f.(func() (string, error))()
}

func (p GoPin) build() (string, error) {
	bin, err := p.Binary()
	if err != nil {
		return "", err
	}
	if _, err := os.Stat(bin); err == nil {
		return bin, nil
	}
	goCmd, err := exec.LookPath("go")
	if err != nil {
		return "", fmt.Errorf("%s@%s: the go command is not on PATH (it builds the adapter)", p.Library, p.Version)
	}
	if err := os.MkdirAll(filepath.Dir(bin), 0o755); err != nil {
		return "", fmt.Errorf("%s@%s: adapter cache: %w", p.Library, p.Version, err)
	}
	work, err := os.MkdirTemp(filepath.Dir(bin), "build-")
	if err != nil {
		return "", fmt.Errorf("%s@%s: adapter cache: %w", p.Library, p.Version, err)
	}
	defer os.RemoveAll(work)
	for _, in := range p.inputs() {
		b, err := os.ReadFile(in[1])
		if err == nil {
			err = os.WriteFile(filepath.Join(work, in[0]), b, 0o644)
		}
		if err != nil {
			return "", fmt.Errorf("%s@%s: adapter build: %w", p.Library, p.Version, err)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), buildTimeout)
	defer cancel()
	tmp := filepath.Join(work, "adapter")
	cmd := exec.CommandContext(ctx, goCmd, "build", "-mod=readonly", "-trimpath",
		"-ldflags", "-X main.version="+p.Version, "-o", tmp, ".")
	cmd.Dir = work
	// the pinned go.sum decides every module; a workspace or a vendor
	// setting of the caller's would not
	cmd.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=readonly")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		lines := strings.Split(strings.TrimSpace(out.String()), "\n")
		why := lines[len(lines)-1]
		if why == "" {
			why = err.Error()
		}
		return "", fmt.Errorf("%s@%s: go build of %s failed: %s", p.Library, p.Version, p.Source(), trim(why))
	}
	// a rename is atomic: a concurrent locksim sees the binary whole or not
	if err := os.Rename(tmp, bin); err != nil {
		return "", fmt.Errorf("%s@%s: adapter cache: %w", p.Library, p.Version, err)
	}
	return bin, nil
}
