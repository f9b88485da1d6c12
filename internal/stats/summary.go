// Package stats summarises latency samples: exact order statistics, moments
// and HDR histograms. It never prints.
package stats

import (
	"math"
	"slices"
)

// Summary is the fixed set of statistics every latlab result reports. All
// values are nanoseconds.
//
// Percentiles use the nearest-rank definition (the smallest sample such that
// at least p% of samples are less than or equal to it), the definition
// HdrHistogram and most latency tools use; it never interpolates, so every
// reported percentile is a value that was actually observed.
type Summary struct {
	Count int64   `json:"count"`
	Min   int64   `json:"min_ns"`
	P50   int64   `json:"p50_ns"`
	P90   int64   `json:"p90_ns"`
	P99   int64   `json:"p99_ns"`
	P999  int64   `json:"p999_ns"`
	Max   int64   `json:"max_ns"`
	Mean  float64 `json:"mean_ns"`
	Stdev float64 `json:"stdev_ns"` // sample standard deviation (n-1)
}

// Summarize computes a Summary of samples. The input is not modified.
func Summarize(samples []int64) Summary {
	if len(samples) == 0 {
		return Summary{}
	}
	s := slices.Clone(samples)
	slices.Sort(s)
	return SummarizeSorted(s)
}

// SummarizeSorted is Summarize for samples already sorted ascending.
func SummarizeSorted(s []int64) Summary {
	n := len(s)
	if n == 0 {
		return Summary{}
	}
	mean, sd := MeanStdev(s)
	return Summary{
		Count: int64(n),
		Min:   s[0],
		P50:   QuantileSorted(s, 50),
		P90:   QuantileSorted(s, 90),
		P99:   QuantileSorted(s, 99),
		P999:  QuantileSorted(s, 99.9),
		Max:   s[n-1],
		Mean:  mean,
		Stdev: sd,
	}
}

// QuantileSorted returns the nearest-rank p-th percentile (p in 0..100) of
// ascending samples: the value at rank ceil(p/100 * n), 1-based.
func QuantileSorted(s []int64, p float64) int64 {
	n := len(s)
	if n == 0 {
		return 0
	}
	if p <= 0 {
		return s[0]
	}
	if p >= 100 {
		return s[n-1]
	}
	// A small epsilon keeps e.g. 0.9*1000 = 900.0000000000001 at rank 900.
	rank := int(math.Ceil(p/100*float64(n) - 1e-9))
	if rank < 1 {
		rank = 1
	}
	return s[rank-1]
}

// MeanStdev returns the mean and the sample standard deviation (n-1
// denominator, 0 for fewer than two samples), computed with Welford's method
// so large nanosecond values do not lose precision.
func MeanStdev(s []int64) (mean, stdev float64) {
	var m, m2 float64
	for i, v := range s {
		x := float64(v)
		d := x - m
		m += d / float64(i+1)
		m2 += d * (x - m)
	}
	if len(s) < 2 {
		return m, 0
	}
	return m, math.Sqrt(m2 / float64(len(s)-1))
}

// Shift returns samples with d subtracted from each (e.g. slept - requested).
func Shift(samples []int64, d int64) []int64 {
	out := make([]int64, len(samples))
	for i, v := range samples {
		out[i] = v - d
	}
	return out
}
