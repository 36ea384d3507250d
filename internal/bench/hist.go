package bench

import (
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
)

// Latencies are recorded in nanoseconds from 1 µs to a minute with three
// significant digits: 0.1% resolution, about 120 KiB per histogram.
const (
	histLowest  = int64(time.Microsecond)
	histHighest = int64(time.Minute)
	histDigits  = 3
)

func newHist() *hdr.Histogram { return hdr.New(histLowest, histHighest, histDigits) }

// record clamps d into the histogram's range: a stall longer than a minute
// still counts, as a minute.
func record(h *hdr.Histogram, d time.Duration) {
	v := min(max(int64(d), histLowest), histHighest)
	_ = h.RecordValue(v) // cannot fail inside the range
}

// Percentiles summarise one latency distribution, in microseconds (floats,
// so sub-microsecond resolution survives JSON and CSV).
type Percentiles struct {
	Count int64   `json:"count"`
	Mean  float64 `json:"mean_us"`
	P50   float64 `json:"p50_us"`
	P90   float64 `json:"p90_us"`
	P99   float64 `json:"p99_us"`
	P999  float64 `json:"p999_us"`
	Max   float64 `json:"max_us"`
}

// percentiles reads h. HDR reports each percentile as the highest value
// equivalent to its bucket, and Max the same way, so p50 <= ... <= max
// always holds.
func percentiles(h *hdr.Histogram) Percentiles {
	if h == nil || h.TotalCount() == 0 {
		return Percentiles{}
	}
	us := func(v int64) float64 { return float64(v) / float64(time.Microsecond) }
	return Percentiles{
		Count: h.TotalCount(),
		Mean:  h.Mean() / float64(time.Microsecond),
		P50:   us(h.ValueAtQuantile(50)),
		P90:   us(h.ValueAtQuantile(90)),
		P99:   us(h.ValueAtQuantile(99)),
		P999:  us(h.ValueAtQuantile(99.9)),
		Max:   us(h.Max()),
	}
}

// Monotone reports whether p50 <= p90 <= p99 <= p99.9 <= max.
func (p Percentiles) Monotone() bool {
	return p.P50 <= p.P90 && p.P90 <= p.P99 && p.P99 <= p.P999 && p.P999 <= p.Max
}

// cdfPoint is one step of a cumulative distribution: the share of samples
// at or below Latency.
type cdfPoint struct {
	Latency time.Duration
	Share   float64
}

// cdf walks h's recorded buckets into a step function.
func cdf(h *hdr.Histogram) []cdfPoint {
	total := h.TotalCount()
	if total == 0 {
		return nil
	}
	var out []cdfPoint
	var seen int64
	for _, b := range h.Distribution() {
		if b.Count == 0 {
			continue
		}
		seen += b.Count
		out = append(out, cdfPoint{Latency: time.Duration(b.To), Share: float64(seen) / float64(total)})
	}
	return out
}
