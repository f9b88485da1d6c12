package result

import (
	"errors"
	"fmt"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/latlab/latlab/internal/infile"
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
	// (false: rebuilt from the histogram, to its precision).
	Values() (values []int64, raw bool, err error)
}

// ErrNoDistribution marks a payload that stores neither samples nor a
// histogram.
var ErrNoDistribution = errors.New("neither samples nor a histogram")

// Values returns samples when stored, otherwise values rebuilt from the
// histogram (each bucket's count at its representative value).
func Values(samples []int64, h *Histogram) ([]int64, bool, error) {
	if len(samples) > 0 {
		return samples, true, nil
	}
	if h == nil {
		return nil, false, ErrNoDistribution
	}
	hist, err := stats.DecodeHistogram(h.Data)
	if err != nil {
		return nil, false, err
	}
	// The histogram's counts are the document's word: a few bytes can claim
	// 2^62 samples. Rebuilding takes 8 bytes a sample, held to the same
	// cap as the input files.
	bars := hist.Distribution()
	var n int64
	for _, b := range bars {
		if b.Count < 0 {
			return nil, false, errors.New("histogram has a negative count")
		}
		n += b.Count
		if n < 0 || n > infile.Max()/8 {
			return nil, false, fmt.Errorf("its histogram holds more than %d samples; rebuilding them would take more than the %s cap on input (%s raises it)",
				infile.Max()/8, infile.FormatSize(infile.Max()), infile.MaxFlag)
		}
	}
	out := make([]int64, 0, n)
	for _, b := range bars {
		for i := int64(0); i < b.Count; i++ {
			out = append(out, (b.From+b.To)/2)
		}
	}
	return out, false, nil
}
