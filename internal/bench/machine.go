package bench

import (
	"bufio"
	"fmt"
	"os"
	"runtime"
	"strings"
)

// Machine is what a reader needs to weigh the numbers: the same run on
// another machine gives other absolute figures (the ratios travel better).
type Machine struct {
	GOOS       string `json:"goos"`
	GOARCH     string `json:"goarch"`
	Cores      int    `json:"cores"`
	GOMAXPROCS int    `json:"gomaxprocs"`
	CPU        string `json:"cpu"` // model name from /proc/cpuinfo, "unknown" elsewhere
	Go         string `json:"go"`
}

// ThisMachine describes the machine the process runs on.
func ThisMachine() Machine {
	return Machine{
		GOOS:       runtime.GOOS,
		GOARCH:     runtime.GOARCH,
		Cores:      runtime.NumCPU(),
		GOMAXPROCS: runtime.GOMAXPROCS(0),
		CPU:        cpuModel("/proc/cpuinfo"),
		Go:         runtime.Version(),
	}
}

func (m Machine) String() string {
	return fmt.Sprintf("%s/%s, %d cores, %s", m.GOOS, m.GOARCH, m.Cores, m.CPU)
}

// cpuModel reads the first "model name" line (x86) or, failing that, a
// "Hardware"/"CPU part" style line some ARM kernels give instead.
func cpuModel(path string) string {
	f, err := os.Open(path)
	if err != nil {
		return "unknown CPU"
	}
	defer f.Close()
	fallback := ""
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if !ok {
			continue
		}
		k, v = strings.TrimSpace(k), strings.Join(strings.Fields(v), " ")
		switch {
		case k == "model name" && v != "":
			return v
		case (k == "Hardware" || k == "cpu model") && fallback == "":
			fallback = v
		}
	}
	if fallback != "" {
		return fallback
	}
	return "unknown CPU"
}
