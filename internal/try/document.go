package try

import (
	"fmt"
	"slices"

	"github.com/latlab/latlab/internal/clock"
	"github.com/latlab/latlab/internal/compare"
	"github.com/latlab/latlab/internal/host"
	"github.com/latlab/latlab/internal/netload"
	"github.com/latlab/latlab/internal/probe"
	"github.com/latlab/latlab/internal/result"
	"github.com/latlab/latlab/internal/stats"
	"github.com/latlab/latlab/internal/timer"
)

// Data is the payload of a try document: the Result, with how the probe
// measured and the timer state after the run.
type Data struct {
	// Timer is the timer state after the run; absent when unreadable.
	Timer       *timer.Status     `json:"timer,omitempty"`
	Measurement probe.Measurement `json:"measurement"`
	Overhead    *probe.Overhead   `json:"overhead,omitempty"`
	Result
}

// Kind is the document `latlab try --json` writes.
var Kind = result.Register[Data]("try", "a setting measured as an experiment: arms, blocks in the order run, verdicts (latlab try)")

// Measured says how the samples were taken.
func (d *Data) Measured() *probe.Measurement { return &d.Measurement }

// Document is the result document of a run on the host facts: kind try,
// the Result as its data, the probe's measurement facts and the timer
// state.
func Document(facts host.Facts, res *Result, settings map[string]string) (*result.Document, error) {
	m := res.meta
	data := &Data{Timer: m.timer}
	data.Measurement = probe.Measurement{
		Method:         m.method,
		WarmupNs:       m.warmupNs,
		ClockSource:    clock.Source(),
		PercentileNote: result.PercentileDefinition,
		ElapsedNs:      res.ElapsedNs,
	}
	if m.setup.Priority != "" {
		s := m.setup
		data.Measurement.Thread = &s
	}
	data.Measurement.RequestedNs, data.Measurement.IntervalNs = m.requestedNs, m.intervalNs
	data.Overhead = m.overhead
	var notes []string
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
		notes = append(notes, fmt.Sprintf("%d samples: each block keeps a histogram instead of its raw samples (more than %d in all)", total, result.MaxSamples))
	}
	data.Result = *res
	doc := Kind.New(facts, data)
	doc.Settings = settings
	doc.Notes = append(append(doc.Notes, notes...), res.Notes...)
	return doc, nil
}

// Read returns the Result of a try document.
func Read(doc *result.Document) (*Result, error) {
	if doc.Kind != Kind.Name() {
		return nil, fmt.Errorf("a %s result, not a try result", doc.Kind)
	}
	d, ok := Kind.Of(doc)
	if !ok {
		return nil, fmt.Errorf("unreadable try data: a %T payload", doc.Data)
	}
	r := &d.Result
	if len(r.Arms) < 2 {
		return nil, fmt.Errorf("a try result with %d arms (want the baseline and a value at least)", len(r.Arms))
	}
	for i, b := range r.Runs {
		if b.Arm < 0 || b.Arm >= len(r.Arms) {
			return nil, fmt.Errorf("block %d names arm %d of %d", i, b.Arm, len(r.Arms))
		}
	}
	return r, nil
}

// blockSamples are a block's values: its raw samples, or those its
// histogram stands for, charged to budget.
func blockSamples(b *Block, budget *result.Budget) ([]int64, error) {
	if len(b.Samples) > 0 || b.Histogram == nil {
		return b.Samples, nil
	}
	v, _, err := result.Values(nil, b.Histogram, budget)
	return v, err
}

// ArmSamples are the values of an arm's complete blocks, in run order;
// those rebuilt from histograms are charged to budget (nil: a budget of
// this call's own).
func ArmSamples(r *Result, arm int, budget *result.Budget) ([]int64, error) {
	if budget == nil {
		budget = result.NewBudget()
	}
	var out []int64
	for i := range r.Runs {
		b := &r.Runs[i]
		if b.Arm != arm || !b.Complete {
			continue
		}
		s, err := blockSamples(b, budget)
		if err != nil {
			return nil, fmt.Errorf("block %d: %w", b.Index, err)
		}
		out = append(out, s...)
	}
	return out, nil
}

// CompareInputs turns a try document into one compare input per arm (the
// baseline first), each a document of the probe's kind holding the arm's
// complete blocks, labelled "label[arm]": the samples of a sleep, wake or
// udp try, which compare reads as it reads sleep or wake results; the
// counts and lengths of a noise try's CPUs, compared as noise results;
// the pooled report of a dpcisr try, compared as latlab dpcisr compare
// compares reports. The pooling ignores the blocks: the try document's
// own verdicts add the block test, and a note says what they are. The
// samples rebuilt from the blocks' histograms are charged to budget, the
// comparison's (compare.Arms).
func CompareInputs(label string, doc *result.Document, budget *result.Budget) ([]compare.Input, error) {
	r, err := Read(doc)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", label, err)
	}
	if r.Probe == ProbeDPCISR && r.Module == "" {
		return nil, fmt.Errorf("%s: no DPC was recorded in its blocks: nothing to compare", label)
	}
	var out []compare.Input
	for i, a := range r.Arms {
		in := compare.Input{Label: fmt.Sprintf("%s[%s]", label, a.Label), Arm: true}
		var d *result.Document
		switch r.Probe {
		case ProbeNoise:
			d, in.NoLengths, err = armNoiseDocument(doc, r, i)
		case ProbeDPCISR:
			d, err = armDPCISRDocument(doc, r, i, in.Label)
		default:
			var s []int64
			if s, err = ArmSamples(r, i, budget); err == nil {
				d, err = armDocument(doc, r.Probe, s)
			}
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", label, err)
		}
		in.Doc = d
		out = append(out, in)
	}
	if n := ownVerdicts(label, r); n != "" {
		out[0].Notes = []string{n}
	}
	return out, nil
}

// armDocument is a document of the probe's kind holding one arm's samples,
// with the try document's envelope and measurement.
func armDocument(doc *result.Document, kind string, s []int64) (*result.Document, error) {
	td, _ := Kind.Of(doc)
	s = slices.Clone(s)
	var sum stats.Summary
	if len(s) > 0 {
		sum = stats.Summarize(s)
	}
	var d *result.Document
	switch kind {
	case probe.KindSleep.Name():
		d = probe.KindSleep.New(doc.Host, &probe.SleepData{Measurement: td.Measurement, Summary: sum, Samples: s})
	case probe.KindWake.Name():
		d = probe.KindWake.New(doc.Host, &probe.WakeData{Measurement: td.Measurement, Summary: sum, CorrectedSummary: sum, Samples: s})
	case netload.KindUDP.Name():
		d = netload.KindUDP.New(doc.Host, &netload.UDPData{Measurement: td.Measurement, UDPResult: &netload.UDPResult{}, Summary: &sum, Samples: s})
	default:
		return nil, fmt.Errorf("a try of the %s probe cannot be compared", kind)
	}
	return envelope(d, doc), nil
}
