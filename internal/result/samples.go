package result

import (
	"errors"
	"fmt"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/latlab/latlab/internal/stats"
)

// The pieces below are shared by the payloads of several kinds (sleep,
// wake, udp, ...); result does not know which.

// Histogram is an HdrHistogram in its standard interchange encoding.
type Histogram struct {
	Unit     string `json:"unit"`
	Encoding string `json:"encoding"`
	Data     string `json:"data"`
}

// HistogramEncoding names the encoding used in Histogram.Data.
const HistogramEncoding = "hdrhistogram-v2-compressed-base64"

// PercentileDefinition is stated in every document with percentiles.
const PercentileDefinition = "nearest-rank: the smallest sample with at least p% of samples at or below it"

// MaxSamples bounds the raw samples stored in a document.
const MaxSamples = 1_000_000

// EncodeHistogram wraps a histogram (stats.HistogramOf) for a payload.
func EncodeHistogram(h *hdrhistogram.Histogram) (*Histogram, error) {
	data, err := stats.EncodeHistogram(h)
	if err != nil {
		return nil, err
	}
	return &Histogram{Unit: "ns", Encoding: HistogramEncoding, Data: data}, nil
}

// KeepSamples returns the samples to store: all of them, or none above
// MaxSamples with a note saying so (the histogram then holds the
// distribution).
func KeepSamples(s []int64) (kept []int64, note string) {
	if len(s) <= MaxSamples {
		return s, ""
	}
	return nil, fmt.Sprintf("%d samples: raw values omitted above %d; the histogram holds the distribution", len(s), MaxSamples)
}

// Sampled is a payload that holds one distribution of values (ns):
// compare and report read it through this.
type Sampled interface {
	// Values returns the values, and whether they are the raw samples
	// (false: rebuilt from the histogram, to its precision, charged to b;
	// nil b: a budget of this call's own).
	Values(b *Budget) (values []int64, raw bool, err error)
}

// Ordered is a Sampled payload that says whether the raw samples Values
// returns are in the order they were measured, so that a reader can
// measure their serial dependence. Values rebuilt from a histogram have
// no order, whatever it says.
type Ordered interface {
	SamplesInOrder() bool
}

// ErrNoDistribution marks a payload that stores neither samples nor a
// histogram.
var ErrNoDistribution = errors.New("neither samples nor a histogram")

// Values returns samples when stored, otherwise values rebuilt from the
// histogram (each bucket's count at its representative value), charged
// to b (nil: a budget of this call's own). The values rebuilt are shared
// with later calls for the same histogram: callers copy before changing
// them.
func Values(samples []int64, h *Histogram, b *Budget) ([]int64, bool, error) {
	if len(samples) > 0 {
		return samples, true, nil
	}
	if h == nil {
		return nil, false, ErrNoDistribution
	}
	if b == nil {
		b = NewBudget()
	}
	v, err := b.rebuild(h)
	if err != nil {
		return nil, false, err
	}
	return v, false, nil
}
