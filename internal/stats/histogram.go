package stats

import (
	"fmt"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
)

// Histogram geometry used for every latlab latency histogram: 1 ns to one
// hour with 3 significant digits (0.1% value precision).
const (
	HistLowest  = 1
	HistHighest = 3600 * 1_000_000_000
	HistDigits  = 3
)

// NewHistogram returns an empty histogram with latlab's standard geometry.
func NewHistogram() *hdrhistogram.Histogram {
	return hdrhistogram.New(HistLowest, HistHighest, HistDigits)
}

// clampForHist maps a sample into the histogram's range. Negative values
// (a wake reported before its deadline, possible only through clock error)
// and zero are recorded as the lowest value; the exact samples keep them.
func clampForHist(v int64) int64 {
	if v < HistLowest {
		return HistLowest
	}
	if v > HistHighest {
		return HistHighest
	}
	return v
}

// HistogramOf records samples into a new histogram.
func HistogramOf(samples []int64) *hdrhistogram.Histogram {
	h := NewHistogram()
	for _, v := range samples {
		_ = h.RecordValue(clampForHist(v)) // in range by construction
	}
	return h
}

// CorrectedHistogramOf records latencies of a periodic loop together with
// the latencies its skipped periods would have had. A wake lat late passed
// floor(lat/interval) further deadlines; the loop skips them (as cyclictest
// does), and a wake-up due at each would have been lat-k*interval late.
//
// This is HdrHistogram's coordinated-omission correction
// (RecordCorrectedValue) adapted to a loop that skips: RecordCorrectedValue
// stops at values below the interval because it assumes the next period was
// still measured; here it was not, so the last one is added too and the
// corrected count is exactly measured + overruns.
func CorrectedHistogramOf(samples []int64, interval int64) *hdrhistogram.Histogram {
	h := NewHistogram()
	for _, v := range samples {
		_ = h.RecordValue(clampForHist(v))
		if interval <= 0 {
			continue
		}
		for m := v - interval; m >= 0; m -= interval {
			_ = h.RecordValue(clampForHist(m))
		}
	}
	return h
}

// SummarizeHistogram summarises a histogram. Values are exact to the
// histogram's precision; mean and stdev are computed from bucket midpoints.
func SummarizeHistogram(h *hdrhistogram.Histogram) Summary {
	if h.TotalCount() == 0 {
		return Summary{}
	}
	return Summary{
		Count: h.TotalCount(),
		Min:   h.Min(),
		P50:   h.ValueAtPercentile(50),
		P90:   h.ValueAtPercentile(90),
		P99:   h.ValueAtPercentile(99),
		P999:  h.ValueAtPercentile(99.9),
		Max:   h.Max(),
		Mean:  h.Mean(),
		Stdev: h.StdDev(),
	}
}

// EncodeHistogram returns the standard HdrHistogram V2 compressed, base64
// encoding, readable by every HdrHistogram implementation.
func EncodeHistogram(h *hdrhistogram.Histogram) (string, error) {
	b, err := h.Encode(hdrhistogram.V2CompressedEncodingCookieBase)
	if err != nil {
		return "", fmt.Errorf("encode histogram: %w", err)
	}
	return string(b), nil
}

// DecodeHistogram reverses EncodeHistogram.
func DecodeHistogram(s string) (*hdrhistogram.Histogram, error) {
	h, err := hdrhistogram.Decode([]byte(s))
	if err != nil {
		return nil, fmt.Errorf("decode histogram: %w", err)
	}
	return h, nil
}
