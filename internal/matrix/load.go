package matrix

import (
	"fmt"
	"math"
	"os"
	"runtime"
	"runtime/metrics"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Load is how hard a matrix worked the machine, measured so that a
// matrix run with too much parallelism for its machine says so: verdicts
// hinge on timing (a pause longer than a TTL), and a starved scheduler
// stretches every interval.
type Load struct {
	// CPUSeconds is user + system time of locksim and the redis-server
	// processes it started and stopped during the matrix.
	CPUSeconds float64 `json:"cpu_s"`
	// CPUShare is CPUSeconds over wall time x cores: 1 is a saturated machine.
	CPUShare float64 `json:"cpu_share"`
	// MachineShare is how busy the machine's cores were over the matrix,
	// whoever kept them busy (Linux /proc/stat; 0 where unknown): other
	// work on the machine stretches a run's timings as much as its own.
	MachineShare float64 `json:"machine_share"`
	// SchedP99MS is the 99th percentile of the Go scheduler's latency
	// (runnable to running) over the matrix: how late a timer or a reply
	// was acted on.
	SchedP99MS float64 `json:"sched_latency_p99_ms"`
}

// Overloaded reports whether the load was high enough to blur timings:
// the scheduler let a goroutine wait more than 10 ms in one case in a
// hundred, or the cores were more than 80% busy.
func (l Load) Overloaded() bool {
	return l.SchedP99MS > 10 || l.CPUShare > 0.8 || l.MachineShare > 0.8
}

func (l Load) String() string {
	s := fmt.Sprintf("locksim used %.1f CPU-s (%.0f%% of %d cores)", l.CPUSeconds, 100*l.CPUShare, runtime.NumCPU())
	if l.MachineShare > 0 {
		s += fmt.Sprintf(", the machine was %.0f%% busy", 100*l.MachineShare)
	}
	s += fmt.Sprintf(", Go scheduler latency p99 %.2f ms", l.SchedP99MS)
	if l.Overloaded() {
		s += " — ⚠ the machine was loaded: timing-dependent verdicts may be blurred (a lower --parallel helps if locksim is the load)"
	}
	return s
}

// loadMeter measures a Load from its start.
type loadMeter struct {
	start       time.Time
	cpu         float64
	busy, total uint64
	sched       *metrics.Float64Histogram
}

const schedMetric = "/sched/latencies:seconds"

func startLoad() loadMeter {
	m := loadMeter{start: time.Now(), cpu: cpuSeconds(), sched: schedHist()}
	m.busy, m.total = machineTicks()
	return m
}

func (m loadMeter) stop() Load {
	wall := time.Since(m.start).Seconds()
	l := Load{CPUSeconds: cpuSeconds() - m.cpu}
	if wall > 0 {
		l.CPUShare = l.CPUSeconds / (wall * float64(runtime.NumCPU()))
	}
	if busy, total := machineTicks(); total > m.total {
		l.MachineShare = float64(busy-m.busy) / float64(total-m.total)
	}
	if end := schedHist(); end != nil && m.sched != nil {
		l.SchedP99MS = 1000 * quantileSince(m.sched, end, 0.99)
	}
	return l
}

func cpuSeconds() float64 {
	var total float64
	for _, who := range []int{syscall.RUSAGE_SELF, syscall.RUSAGE_CHILDREN} {
		var ru syscall.Rusage
		if syscall.Getrusage(who, &ru) == nil {
			total += float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
		}
	}
	return total
}

func schedHist() *metrics.Float64Histogram {
	s := []metrics.Sample{{Name: schedMetric}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindFloat64Histogram {
		return nil
	}
	return s[0].Value.Float64Histogram()
}

// quantileSince is the q quantile of the samples end has and start had
// not, as the upper bound of its bucket (the lower bound when that is
// infinite).
func quantileSince(start, end *metrics.Float64Histogram, q float64) float64 {
	if len(start.Counts) != len(end.Counts) {
		return 0
	}
	var total uint64
	diff := make([]uint64, len(end.Counts))
	for i := range end.Counts {
		diff[i] = end.Counts[i] - start.Counts[i]
		total += diff[i]
	}
	if total == 0 {
		return 0
	}
	want := uint64(math.Ceil(q * float64(total)))
	var seen uint64
	for i, n := range diff {
		seen += n
		if seen >= want {
			if hi := end.Buckets[i+1]; !math.IsInf(hi, 1) {
				return hi
			}
			return end.Buckets[i]
		}
	}
	return 0
}

// machineTicks reads the busy and total CPU time of all cores from
// /proc/stat, in clock ticks; zeros where there is no /proc.
func machineTicks() (busy, total uint64) {
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return 0, 0
	}
	line, _, _ := strings.Cut(string(b), "\n")
	fields := strings.Fields(line)
	if len(fields) < 5 || fields[0] != "cpu" {
		return 0, 0
	}
	// user nice system idle iowait irq softirq steal (guest time is
	// already in user).
	for i, f := range fields[1:min(len(fields), 9)] {
		v, err := strconv.ParseUint(f, 10, 64)
		if err != nil {
			return 0, 0
		}
		total += v
		if i != 3 && i != 4 { // idle, iowait
			busy += v
		}
	}
	return busy, total
}
