package try

import (
	"fmt"
	"strings"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/latlab/latlab/internal/dpcisr"
	"github.com/latlab/latlab/internal/probe"
	"github.com/latlab/latlab/internal/result"
	"github.com/latlab/latlab/internal/stats"
)

// The arms of a noise or dpcisr try are handed to compare as the
// documents the probe's own command writes: an arm of a noise try is a
// noise document, each CPU its counts over its runtime and the lengths
// of its interruptions, pooled over the arm's complete blocks (as
// analyzeNoiseRate pools them); an arm of a dpcisr try is a dpcisr
// report, the arm's complete blocks pooled (PoolReports) and compared by
// the module the try's block test follows. compare then compares them as
// it compares two noise runs, or as latlab dpcisr compare compares two
// reports.

// maxBlockRuntime bounds a noise block's runtime on a CPU: twice the
// longest block.
const maxBlockRuntime = 2 * int64(MaxBlockDuration)

// armNoiseDocument is a noise document of an arm's complete blocks, with
// the try document's envelope. noLengths says why its CPUs have no
// lengths when the blocks kept one histogram for all their CPUs (""
// when they have them).
func armNoiseDocument(doc *result.Document, r *Result, arm int) (d *result.Document, noLengths string, err error) {
	td, _ := Kind.Of(doc)
	cpus := r.NoiseCPUList()
	out := make([]probe.NoiseCPU, len(cpus))
	raw := make([][]int64, len(cpus))
	hists := make([]*hdrhistogram.Histogram, len(cpus))
	for c, cpu := range cpus {
		out[c].CPU = cpu
	}
	var blocks, elapsed int64
	inHistograms := false
	for i := range r.Runs {
		b := &r.Runs[i]
		if b.Arm != arm || !b.Complete {
			continue
		}
		// With each block's runtime bounded, this bounds the arm's sums
		// (runtime, counts, noise, lengths kept) far from overflowing.
		if blocks == MaxBlocks {
			return nil, "", fmt.Errorf("%s has more than %d complete blocks: latlab try runs at most %d blocks per arm", r.Arms[arm].Label, MaxBlocks, MaxBlocks)
		}
		rec := b.noiseRecords()
		if len(rec) != len(cpus) {
			return nil, "", fmt.Errorf("block %d has the counts of %d CPU(s): the run measures CPUs %s", b.Index, len(rec), CPUWords(cpus))
		}
		var kept int64
		for c, n := range rec {
			if n.CPU != cpus[c] {
				return nil, "", fmt.Errorf("block %d counts on CPU %d where the run measures CPU %d", b.Index, n.CPU, cpus[c])
			}
			// A block's thread spins at most the block's duration; with
			// the number of blocks, the bound keeps the arm's sums from
			// overflowing.
			if n.RuntimeNs <= 0 || n.RuntimeNs > maxBlockRuntime {
				return nil, "", fmt.Errorf("block %d spun %d ns on CPU %d: a block's runtime is above 0 and at most %s", b.Index, n.RuntimeNs, n.CPU, 2*MaxBlockDuration)
			}
			if n.Count < 0 || n.Count > n.RuntimeNs || n.Kept < 0 || n.Kept > n.Count || n.NoiseNs < 0 {
				return nil, "", fmt.Errorf("block %d counts %d interruptions, %d kept, in %d ns: a count is at least 0 and at most the runtime in ns, kept at most the count",
					b.Index, n.Count, n.Kept, n.RuntimeNs)
			}
			// Noise is time lost within the runtime (probe.NoiseThread):
			// bounded so, the arm's sum of it cannot overflow either.
			if n.NoiseNs > n.RuntimeNs {
				return nil, "", fmt.Errorf("block %d lost %d ns to noise in %d ns on CPU %d: noise is at most the runtime", b.Index, n.NoiseNs, n.RuntimeNs, n.CPU)
			}
			o := &out[c]
			o.RuntimeNs += n.RuntimeNs
			o.Count += n.Count
			o.Kept += n.Kept
			o.NoiseNs += n.NoiseNs
			o.MaxNs = max(o.MaxNs, n.MaxNs)
			kept += n.Kept
		}
		blocks++
		elapsed += b.ElapsedNs
		switch {
		case len(b.Samples) > 0:
			// A block's samples are the lengths on each of its CPUs in
			// turn, as many as each kept.
			if int64(len(b.Samples)) != kept {
				return nil, "", fmt.Errorf("block %d keeps %d lengths for the %d interruptions it kept", b.Index, len(b.Samples), kept)
			}
			at := int64(0)
			for c, n := range rec {
				s := b.Samples[at : at+n.Kept]
				raw[c] = append(raw[c], s...)
				if err := addToHistogram(&hists[c], stats.HistogramOf(s)); err != nil {
					return nil, "", err
				}
				at += n.Kept
			}
		case b.Histogram != nil:
			inHistograms = true
			if len(cpus) > 1 {
				continue // one histogram for all the CPUs: not theirs apart
			}
			h, err := stats.DecodeHistogram(b.Histogram.Data)
			if err != nil {
				return nil, "", fmt.Errorf("block %d: %w", b.Index, err)
			}
			if err := addToHistogram(&hists[0], h); err != nil {
				return nil, "", err
			}
		case kept > 0:
			return nil, "", fmt.Errorf("block %d keeps no lengths for the %d interruptions it kept", b.Index, kept)
		}
	}
	if blocks == 0 {
		return nil, "", fmt.Errorf("no complete block of %s to compare", r.Arms[arm].Label)
	}
	for c := range out {
		o := &out[c]
		o.PerSecond = float64(o.Count) * 1e9 / float64(o.RuntimeNs)
		o.AvailablePct = 100 * float64(o.RuntimeNs-o.NoiseNs) / float64(o.RuntimeNs)
		switch {
		case o.Kept == 0:
		case !inHistograms:
			o.LengthsNs = raw[c]
			o.Summary = stats.Summarize(raw[c])
		case len(cpus) == 1:
			h, err := result.EncodeHistogram(hists[c])
			if err != nil {
				return nil, "", err
			}
			o.Histogram = h
			o.Summary = stats.SummarizeHistogram(hists[c])
		default:
			noLengths = fmt.Sprintf("its blocks kept one histogram of the lengths on all %d CPUs (more than %d in all)", len(cpus), result.MaxSamples)
		}
	}
	data := &probe.NoiseData{
		Measurement: probe.NoiseMeasurement{Method: td.Measurement.Method, ClockSource: td.Measurement.ClockSource, ThresholdNs: r.NoiseThresholdNs,
			DurationNs: blocks * r.BlockDurationNs, ElapsedNs: elapsed, PercentileNote: result.PercentileDefinition},
		CPUs: out,
	}
	return envelope(probe.KindNoise.New(doc.Host, data), doc), noLengths, nil
}

// addToHistogram adds h to *into, which it starts when nil.
func addToHistogram(into **hdrhistogram.Histogram, h *hdrhistogram.Histogram) error {
	if *into == nil {
		*into = stats.NewHistogram()
	}
	if dropped := (*into).Merge(h); dropped > 0 {
		return fmt.Errorf("%d lengths of interruptions out of a histogram's range", dropped)
	}
	return nil
}

// armDPCISRDocument is a dpcisr document of an arm's complete blocks
// pooled, filtered to the module the try's block test follows.
func armDPCISRDocument(doc *result.Document, r *Result, arm int, label string) (*result.Document, error) {
	var rs []*dpcisr.Report
	var executions int64
	for i := range r.Runs {
		b := &r.Runs[i]
		if b.Arm != arm || !b.Complete || b.DPCISR == nil {
			continue
		}
		// The document's to claim: bounds and counts are checked as
		// latlab dpcisr compare checks a report it reads, and the arm's
		// sum bounded, before the pooled counts are added up.
		n, err := b.DPCISR.CheckHistograms()
		if err != nil {
			return nil, fmt.Errorf("block %d: %w", b.Index, err)
		}
		if executions += n; executions > dpcisr.MaxCount {
			return nil, fmt.Errorf("the blocks of %s hold more than 2^53 executions", r.Arms[arm].Label)
		}
		rs = append(rs, b.DPCISR)
	}
	if len(rs) == 0 {
		return nil, fmt.Errorf("no complete block of %s to compare", r.Arms[arm].Label)
	}
	v := PoolReports(rs).View(label, r.Module)
	return envelope(dpcisr.Kind.New(doc.Host, &v), doc), nil
}

// envelope gives d the try document's envelope: schema, time, tool,
// host and settings.
func envelope(d, doc *result.Document) *result.Document {
	d.Schema, d.Created, d.Tool, d.Host = doc.Schema, doc.Created, doc.Tool, doc.Host
	for k, v := range doc.Settings {
		d.Settings[k] = v
	}
	return d
}

// ownVerdicts is the note a comparison of a try's arms ends with: the
// arms are its complete blocks pooled, and the try's own verdicts, which
// also ask its rounds to agree, say (empty for a try without verdicts).
func ownVerdicts(label string, r *Result) string {
	var vs []string
	for _, a := range r.Arms[1:] {
		if a.Verdict == nil {
			return ""
		}
		o := string(a.Verdict.Outcome)
		if a.Verdict.Outcome == TooFew {
			o = "no verdict"
		}
		vs = append(vs, fmt.Sprintf("%s[%s]: %s", label, a.Label, o))
	}
	if len(vs) == 0 {
		return ""
	}
	return fmt.Sprintf("each arm of %s is its complete blocks pooled, compared as separate results are; the try's own verdicts, which also ask its rounds to agree (block test), say: %s",
		label, strings.Join(vs, "; "))
}
