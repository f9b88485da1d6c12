package try

import (
	"encoding/json"
	"fmt"
	"slices"

	"github.com/latlab/latlab/internal/compare"
	"github.com/latlab/latlab/internal/result"
	"github.com/latlab/latlab/internal/stats"
	"github.com/latlab/latlab/internal/timer"
)

// Document is the result document of a run: kind try, the Result as its
// data, the probe's measurement facts and the timer state.
func Document(res *Result, settings map[string]string) (*result.Document, error) {
	doc := result.New(Kind)
	doc.Settings = settings
	if st, err := timer.Query(); err == nil {
		doc.Timer = &st
	}
	m := res.meta
	doc.Measurement = &result.Measurement{
		Method:         m.method,
		WarmupNs:       m.warmupNs,
		ClockSource:    doc.Host.ClockSource,
		PercentileNote: result.PercentileDefinition,
		ElapsedNs:      res.ElapsedNs,
	}
	if m.setup.Priority != "" {
		s := m.setup
		doc.Measurement.Thread = &s
	}
	doc.Measurement.RequestedNs, doc.Measurement.IntervalNs = m.requestedNs, m.intervalNs
	doc.Overhead = m.overhead
	in := res.Interrupted
	doc.Interrupted = &in
	total := 0
	for _, b := range res.Runs {
		total += len(b.Samples)
	}
	if total > result.MaxSamples {
		// Raw samples would make the document too large: each block keeps
		// its histogram (0.1% precision), which compare and report read.
		res.SamplesInHistograms = true
		for i := range res.Runs {
			b := &res.Runs[i]
			if len(b.Samples) == 0 {
				continue
			}
			h, err := result.EncodeHistogram(stats.HistogramOf(b.Samples))
			if err != nil {
				return nil, err
			}
			b.Histogram, b.Samples = h, nil
		}
		doc.Notes = append(doc.Notes, fmt.Sprintf("%d samples: each block keeps a histogram instead of its raw samples (more than %d in all)", total, result.MaxSamples))
	}
	doc.Notes = append(doc.Notes, res.Notes...)
	b, err := json.Marshal(res)
	if err != nil {
		return nil, err
	}
	doc.Data = b
	return doc, nil
}

// Read decodes the Result of a try document.
func Read(doc *result.Document) (*Result, error) {
	if doc.Kind != Kind {
		return nil, fmt.Errorf("a %s result, not a try result", doc.Kind)
	}
	var r Result
	if err := json.Unmarshal(doc.Data, &r); err != nil {
		return nil, fmt.Errorf("unreadable try data: %v", err)
	}
	if len(r.Arms) < 2 {
		return nil, fmt.Errorf("a try result with %d arms (want the baseline and a value at least)", len(r.Arms))
	}
	for i, b := range r.Runs {
		if b.Arm < 0 || b.Arm >= len(r.Arms) {
			return nil, fmt.Errorf("block %d names arm %d of %d", i, b.Arm, len(r.Arms))
		}
	}
	return &r, nil
}

// blockSamples are a block's values: its raw samples, or those its
// histogram stands for.
func blockSamples(b *Block) ([]int64, error) {
	if len(b.Samples) > 0 || b.Histogram == nil {
		return b.Samples, nil
	}
	d := result.Document{Kind: Kind, Histogram: b.Histogram}
	return d.Distribution()
}

// ArmSamples are the values of an arm's complete blocks, in run order.
func ArmSamples(r *Result, arm int) ([]int64, error) {
	var out []int64
	for i := range r.Runs {
		b := &r.Runs[i]
		if b.Arm != arm || !b.Complete {
			continue
		}
		s, err := blockSamples(b)
		if err != nil {
			return nil, fmt.Errorf("block %d: %w", b.Index, err)
		}
		out = append(out, s...)
	}
	return out, nil
}

// CompareInputs turns a try document into one compare input per arm (the
// baseline first), each a document of the probe's kind holding the
// samples of the arm's complete blocks, labelled "label[arm]". compare
// reads them as it reads sleep or wake results. The pooled samples ignore
// the blocks: the try document's own verdicts add the block test.
func CompareInputs(label string, doc *result.Document) ([]compare.Input, error) {
	r, err := Read(doc)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", label, err)
	}
	var out []compare.Input
	for i, a := range r.Arms {
		s, err := ArmSamples(r, i)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", label, err)
		}
		d := &result.Document{Schema: doc.Schema, Kind: r.Probe, Created: doc.Created, Tool: doc.Tool, Host: doc.Host,
			Settings: map[string]string{}, Measurement: doc.Measurement, Samples: slices.Clone(s)}
		for k, v := range doc.Settings {
			d.Settings[k] = v
		}
		if len(s) > 0 {
			sum := stats.Summarize(s)
			d.Summary = &sum
		}
		out = append(out, compare.Input{Label: fmt.Sprintf("%s[%s]", label, a.Label), Doc: d})
	}
	return out, nil
}
