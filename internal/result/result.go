// Package result defines latlab's result document: the versioned JSON every
// measuring command writes with --json and every analysing command (compare,
// report) reads. The schema lives here and only here.
package result

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/latlab/latlab/internal/buildinfo"
	"github.com/latlab/latlab/internal/host"
	"github.com/latlab/latlab/internal/infile"
	"github.com/latlab/latlab/internal/probe"
	"github.com/latlab/latlab/internal/stats"
	"github.com/latlab/latlab/internal/timer"
)

// Schema is the identifier and major version of the document format.
// Readers accept any document whose schema starts with SchemaPrefix and has
// major version 1; fields are only ever added within a major version.
const (
	Schema       = "latlab.result/1"
	SchemaPrefix = "latlab.result/"
)

// Document kinds written by the foundation commands.
const (
	KindSleep = "sleep"
	KindWake  = "wake"
)

// Document is one result.
type Document struct {
	Schema   string            `json:"schema"`
	Kind     string            `json:"kind"`
	Created  time.Time         `json:"created"`
	Tool     Tool              `json:"tool"`
	Host     host.Facts        `json:"host"`
	Settings map[string]string `json:"settings"`
	Timer    *timer.Status     `json:"timer,omitempty"`

	Measurement *Measurement    `json:"measurement,omitempty"`
	Overhead    *probe.Overhead `json:"overhead,omitempty"`

	// Sleep and wake: Interrupted says whether the run was stopped
	// (Ctrl-C, SIGTERM) before its planned count; the statistics cover
	// the MeasuredCount samples taken until then. RequestedCount is the
	// planned count (samples for sleep, wake-ups of all threads for wake),
	// absent for a run until Ctrl-C. Set in every sleep and wake document.
	Interrupted    *bool `json:"interrupted,omitempty"`
	RequestedCount int64 `json:"requested_count,omitempty"`
	MeasuredCount  int64 `json:"measured_count,omitempty"`

	// Summary is of the measured quantity: slept time for sleep, wake-up
	// latency for wake. Overshoot (sleep) is slept - requested.
	Summary   *stats.Summary `json:"summary,omitempty"`
	Overshoot *stats.Summary `json:"overshoot,omitempty"`
	Histogram *Histogram     `json:"histogram,omitempty"`

	// Wake only: the same distribution with the periods missed by late
	// wakes filled in (coordinated-omission correction), and per thread.
	Overruns           int64          `json:"overruns,omitempty"`
	CorrectedSummary   *stats.Summary `json:"corrected_summary,omitempty"`
	CorrectedHistogram *Histogram     `json:"corrected_histogram,omitempty"`
	Threads            []Thread       `json:"threads,omitempty"`

	// Samples are the raw measured values in ns (slept time for sleep,
	// latency for wake, all threads in thread order), kept so compare can
	// run exact tests. Omitted above MaxSamples; the histogram remains.
	Samples []int64 `json:"samples_ns,omitempty"`

	Notes []string `json:"notes,omitempty"`

	// Flows is the per-flow table of `pcap dscp`, at the top level because
	// that is the command's documented interface ({"flows": [...]}).
	Flows json.RawMessage `json:"flows,omitempty"`

	// Data carries the payload of kinds defined by other packages (sweep,
	// crossproc, udp, ...). Each such package documents its own shape.
	Data json.RawMessage `json:"data,omitempty"`
}

// MaxSamples bounds the raw samples stored in a document.
const MaxSamples = 1_000_000

// Tool names the program that wrote the document.
type Tool struct {
	Name    string `json:"name"`
	Version string `json:"version"`
	Commit  string `json:"commit,omitempty"` // VCS revision of the build
	Dirty   bool   `json:"dirty,omitempty"`  // built from a tree with uncommitted changes
}

// Measurement describes how the samples were taken.
type Measurement struct {
	Method         string             `json:"method"`
	RequestedNs    int64              `json:"requested_ns,omitempty"` // sleep duration
	IntervalNs     int64              `json:"interval_ns,omitempty"`  // wake period
	WarmupNs       int64              `json:"warmup_discarded_ns"`    // the first sample, not in the statistics
	Interrupted    int                `json:"interrupted"`            // waits resumed after a signal
	ElapsedNs      int64              `json:"elapsed_ns"`
	Thread         *probe.ThreadSetup `json:"thread,omitempty"`
	ClockSource    string             `json:"clock_source"`
	PercentileNote string             `json:"percentile_definition"`
}

// Thread is one wake thread's outcome.
type Thread struct {
	probe.ThreadSetup
	Summary          stats.Summary  `json:"summary"`
	Overruns         int64          `json:"overruns"`
	CorrectedSummary *stats.Summary `json:"corrected_summary,omitempty"`
	WarmupNs         int64          `json:"warmup_discarded_ns"`
	Interrupted      int            `json:"interrupted"`
}

// Histogram is an HdrHistogram in its standard interchange encoding.
type Histogram struct {
	Unit     string `json:"unit"`
	Encoding string `json:"encoding"`
	Data     string `json:"data"`
}

// HistogramEncoding names the encoding used in Histogram.Data.
const HistogramEncoding = "hdrhistogram-v2-compressed-base64"

// PercentileDefinition is stated in every document.
const PercentileDefinition = "nearest-rank: the smallest sample with at least p% of samples at or below it"

// New returns a document of the given kind stamped with the tool and host.
func New(kind string) *Document {
	return &Document{
		Schema:   Schema,
		Kind:     kind,
		Created:  time.Now().UTC().Truncate(time.Second),
		Tool:     currentTool(),
		Host:     host.Collect(),
		Settings: map[string]string{},
	}
}

// Version is the running latlab's version: stamped by a release build,
// else the module version, else "dev".
func Version() string { return buildinfo.Get().Version }

func currentTool() Tool {
	in := buildinfo.Get()
	return Tool{Name: "latlab", Version: in.Version, Commit: in.Commit, Dirty: in.Dirty}
}

// SetCounts records a sleep or wake run's planned and measured counts;
// stopped says the run ended on Ctrl-C. A planned count of 0 is a run until
// Ctrl-C, which is never interrupted.
func (d *Document) SetCounts(requested, measured int64, stopped bool) {
	in := stopped && requested > 0
	d.Interrupted = &in
	d.RequestedCount, d.MeasuredCount = requested, measured
}

// SetSamples stores samples when there are not too many.
func (d *Document) SetSamples(s []int64) {
	if len(s) <= MaxSamples {
		d.Samples = s
	} else {
		d.Samples = nil
		d.Notes = append(d.Notes, fmt.Sprintf("%d samples: raw values omitted above %d; the histogram holds the distribution", len(s), MaxSamples))
	}
}

// EncodeHistogram wraps a histogram (stats.HistogramOf) for the document.
func EncodeHistogram(h *hdrhistogram.Histogram) (*Histogram, error) {
	data, err := stats.EncodeHistogram(h)
	if err != nil {
		return nil, err
	}
	return &Histogram{Unit: "ns", Encoding: HistogramEncoding, Data: data}, nil
}

// Write writes the document as indented JSON.
func Write(w io.Writer, d *Document) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(d)
}

// WriteFile writes the document to path.
func WriteFile(path string, d *Document) error {
	var b bytes.Buffer
	if err := Write(&b, d); err != nil {
		return err
	}
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		return fmt.Errorf("write result: %w", err)
	}
	return nil
}

// ErrNotResult marks input that is not a latlab result document.
var ErrNotResult = errors.New("not a latlab result document")

// Read parses and checks a document. It reads at most infile.Max() bytes
// (beyond that it fails with an *infile.TooLargeError) and decodes as it
// reads, so the input is never held twice.
func Read(r io.Reader) (*Document, error) {
	dec := json.NewDecoder(infile.Limit(r, infile.Max()))
	var d Document
	if err := dec.Decode(&d); err != nil {
		return nil, readError(err, dec)
	}
	// Only white space may follow the document.
	if _, err := dec.Token(); err != io.EOF {
		if err == nil {
			return nil, fmt.Errorf("%w: more JSON after the document at byte %d", ErrNotResult, dec.InputOffset())
		}
		return nil, readError(err, dec)
	}
	if !strings.HasPrefix(d.Schema, SchemaPrefix) {
		return nil, fmt.Errorf("%w: schema %q, want %q", ErrNotResult, d.Schema, Schema)
	}
	if d.Schema != Schema {
		return nil, fmt.Errorf("%w: schema %q is a newer major version than this latlab reads (%q)", ErrNotResult, d.Schema, Schema)
	}
	if d.Kind == "" {
		return nil, fmt.Errorf("%w: no kind", ErrNotResult)
	}
	return &d, nil
}

func readError(err error, dec *json.Decoder) error {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.Is(err, infile.ErrLimit):
		return err
	case err == io.EOF:
		return fmt.Errorf("%w: empty input", ErrNotResult)
	case err == io.ErrUnexpectedEOF:
		return fmt.Errorf("%w: invalid JSON: the input ends inside the document, at byte %d", ErrNotResult, dec.InputOffset())
	case errors.As(err, &se):
		return fmt.Errorf("%w: invalid JSON at byte %d: %v", ErrNotResult, se.Offset, err)
	case errors.As(err, &te):
		return fmt.Errorf("%w: %v", ErrNotResult, err)
	}
	return err
}

// ReadFile reads a document from path, which must be a regular file no
// larger than infile.Max() (see infile.Open). Errors about the content
// name the file; errors about the path itself (missing, a directory, a
// device, too large) do not, so the caller can say "cannot read PATH: ...".
func ReadFile(path string) (*Document, error) {
	f, err := infile.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	d, err := Read(f)
	if err != nil {
		if errors.Is(err, infile.ErrLimit) {
			return nil, err
		}
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return d, nil
}

// Distribution returns the samples of a document: the raw values when
// stored, otherwise values reconstructed from the histogram (each bucket's
// count at its representative value).
func (d *Document) Distribution() ([]int64, error) {
	if len(d.Samples) > 0 {
		return d.Samples, nil
	}
	if d.Histogram == nil {
		return nil, fmt.Errorf("result of kind %q has neither samples nor a histogram", d.Kind)
	}
	h, err := stats.DecodeHistogram(d.Histogram.Data)
	if err != nil {
		return nil, err
	}
	// The histogram's counts are the document's word: a few bytes can claim
	// 2^62 samples. Rebuilding takes 8 bytes a sample, held to the same
	// cap as the input files.
	bars := h.Distribution()
	var n int64
	for _, b := range bars {
		if b.Count < 0 {
			return nil, fmt.Errorf("result of kind %q: histogram has a negative count", d.Kind)
		}
		n += b.Count
		if n < 0 || n > infile.Max()/8 {
			return nil, fmt.Errorf("result of kind %q: its histogram holds more than %d samples; rebuilding them would take more than the %s cap on input (%s raises it)",
				d.Kind, infile.Max()/8, infile.FormatSize(infile.Max()), infile.MaxFlag)
		}
	}
	out := make([]int64, 0, n)
	for _, b := range bars {
		for i := int64(0); i < b.Count; i++ {
			out = append(out, (b.From+b.To)/2)
		}
	}
	return out, nil
}
