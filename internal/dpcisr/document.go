package dpcisr

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"

	"github.com/latlab/latlab/internal/dpcverdict"
	"github.com/latlab/latlab/internal/result"
)

// The kinds of the dpcisr commands' documents. Before they were
// latlab.result/1 documents, `latlab dpcisr FILE --json` wrote the report
// view alone, with "schema": "latlab.dpcisr/1"; Formerly reads those.
var (
	Kind = result.Register[ReportView]("dpcisr", "an xperf DPC/ISR report analysed: histograms and percentiles per module (latlab dpcisr, dpcisr capture)",
		result.Formerly("latlab.dpcisr/1"))
	KindCompare = result.Register[Comparison]("dpcisr-compare", "DPC/ISR execution times of two or more reports compared, chi-squared per section (latlab dpcisr compare)")
)

// maxCount bounds a histogram's executions in a JSON document: far above
// any trace (2^53 is a few thousand years of DPCs at a million a second),
// low enough that sums and shares stay exact in float64.
const maxCount = 1 << 53

// MaxCount is maxCount for the reports other packages pool
// (CheckHistograms).
const MaxCount = maxCount

// Read reads a report in any form latlab accepts: xperf's text report, a
// LatencyMon report (IsLatencyMon), or a JSON document (the result
// document of kind dpcisr that 'dpc watch' and 'dpcisr capture' write, or
// the output of 'latlab dpcisr FILE --json'). JSON is recognised by its
// first non-blank byte, '{'; a LatencyMon report by a phrase of its own
// in the first 64 KiB; anything else is read as xperf's.
func Read(r io.Reader) (*Report, error) {
	// A file is peeked at and rewound, so Parse can still seek back to
	// its start (it rereads a file that turns out to be ANSI).
	if rs, ok := r.(io.ReadSeeker); ok {
		if start, err := rs.Seek(0, io.SeekCurrent); err == nil {
			head := make([]byte, lmSniff)
			n, _ := io.ReadFull(rs, head)
			if _, err := rs.Seek(start, io.SeekStart); err == nil {
				return readAs(head[:n], rs)
			}
		}
	}
	br := bufio.NewReaderSize(r, lmSniff)
	head, _ := br.Peek(lmSniff)
	return readAs(head, br)
}

func readAs(head []byte, r io.Reader) (*Report, error) {
	switch {
	case isJSON(head):
		return ReadDocument(r)
	case IsLatencyMon(head):
		return ParseLatencyMon(r)
	}
	return Parse(r)
}

func isJSON(b []byte) bool {
	b = bytes.TrimPrefix(b, []byte("\xef\xbb\xbf"))
	b = bytes.TrimLeft(b, " \t\r\n")
	return len(b) > 0 && b[0] == '{'
}

// DocumentError says why a JSON document is not a DPC/ISR report.
type DocumentError struct{ Msg string }

func (e *DocumentError) Error() string { return e.Msg }

func docErrorf(format string, a ...any) error {
	return &DocumentError{Msg: fmt.Sprintf(format, a...)}
}

// ReadDocument reads a JSON document holding a report (see Read) through
// result.Read (strict about kinds and versions; documents of schema
// latlab.dpcisr/1 are read as kind dpcisr) and checks what the analysis
// relies on: section names, bucket bounds in order and not overlapping,
// counts in range, per-CPU rows of equal length.
func ReadDocument(r io.Reader) (*Report, error) {
	b, err := io.ReadAll(io.LimitReader(r, MaxInput+1))
	if err != nil {
		return nil, err
	}
	if len(b) > MaxInput {
		return nil, docErrorf("JSON document larger than %d MiB", MaxInput>>20)
	}
	b = bytes.TrimPrefix(b, []byte("\xef\xbb\xbf")) // Notepad's UTF-8 mark
	doc, err := result.Read(bytes.NewReader(b))
	if err != nil {
		return nil, docErrorf("%v", err)
	}
	v, ok := Kind.Of(doc)
	if !ok {
		return nil, docErrorf("a result document of kind %q, not %q: want one written by 'latlab dpcisr', 'latlab dpcisr capture' or 'latlab dpc watch'", doc.Kind, Kind.Name())
	}
	rep := v.ReportOf()
	if rep.Source == "" {
		rep.Source = SourceXperf // documents from before sources were named
	}
	if err := rep.check(); err != nil {
		return nil, err
	}
	return rep, nil
}

func (r *Report) check() error {
	if r.Source != SourceXperf && r.Source != SourceLatencyMon && !Live(r.Source) {
		return docErrorf("source %q: want %q, %q, %q or %q", r.Source, SourceXperf, SourceETW, SourceTracefs, SourceLatencyMon)
	}
	if r.HardFaults != nil {
		if err := r.HardFaults.check(); err != nil {
			return err
		}
	}
	if len(r.Sections) == 0 && (r.HardFaults == nil || r.HardFaults.Events == 0) && r.LatencyMon == nil {
		return docErrorf("no sections: the document holds no DPC or ISR histogram")
	}
	for i, s := range r.Sections {
		where := fmt.Sprintf("section %d", i+1)
		linux := s.Name == SoftIRQ || s.Name == HardIRQ
		if s.Name != DPC && s.Name != ISR && !(linux && r.Source == SourceTracefs) {
			return docErrorf("%s: name %q, want %q or %q (%q or %q in a Linux trace)", where, s.Name, DPC, ISR, SoftIRQ, HardIRQ)
		}
		hs := s.Modules
		if s.Overall != nil {
			hs = append([]Histogram{*s.Overall}, hs...)
		}
		for _, h := range hs {
			if err := h.check(); err != nil {
				return docErrorf("%s (%s), %s: %v", where, s.Name, h.Name(), err)
			}
		}
		for _, u := range s.Usage {
			if len(u.Percent) != len(u.Usec) {
				return docErrorf("%s: usage of %s has %d times and %d percentages", where, u.Module, len(u.Usec), len(u.Percent))
			}
		}
		if s.Intervals != nil {
			for _, row := range s.Intervals.Rows {
				if len(row.Percent) != len(row.Usec) {
					return docErrorf("%s: interval %d-%d ms has %d times and %d percentages", where, row.StartMs, row.EndMs, len(row.Usec), len(row.Percent))
				}
			}
		}
	}
	return nil
}

// CheckHistograms checks what pooling and comparing r's histograms rely
// on, as ReadDocument checks a report read alone: bucket bounds in order
// and not overlapping, counts from 0 to 2^53. A report held inside
// another document (a block of a try) is not read by ReadDocument and is
// checked so before it is pooled. executions is the sum of every
// histogram's counts (overall and per module alike); it too is at most
// MaxCount, so that the reports to be pooled can be bounded by adding up
// theirs without overflowing.
func (r *Report) CheckHistograms() (executions int64, err error) {
	for i, s := range r.Sections {
		hs := s.Modules
		if s.Overall != nil {
			hs = append([]Histogram{*s.Overall}, hs...)
		}
		for _, h := range hs {
			if err := h.check(); err != nil {
				return 0, docErrorf("section %d (%s), %s: %v", i+1, s.Name, h.Name(), err)
			}
			if executions += h.Sum(); executions > MaxCount {
				return 0, docErrorf("more than 2^53 executions")
			}
		}
	}
	return executions, nil
}

func (h Histogram) check() error {
	var sum int64
	for i, b := range h.Buckets {
		if b.GtUs < 0 || (b.LeUs != nil && *b.LeUs <= b.GtUs) {
			return fmt.Errorf("bucket %s: bounds out of order", b.Range())
		}
		if b.Count < 0 || b.Count > maxCount {
			return fmt.Errorf("bucket %s: count %d out of range 0 to 2^53", b.Range(), b.Count)
		}
		if sum += b.Count; sum > maxCount {
			return fmt.Errorf("more than 2^53 executions")
		}
		if i > 0 {
			p := h.Buckets[i-1]
			if p.LeUs == nil || *p.LeUs > b.GtUs {
				return fmt.Errorf("bucket %s overlaps or precedes %s", b.Range(), p.Range())
			}
		}
	}
	return nil
}

// ReportOf is the report a view was made of, as a document read back
// holds it: the view's sections (which shadow the report's in JSON) carry
// the histograms.
func (v *ReportView) ReportOf() *Report {
	var r Report
	if v.Report != nil {
		r = *v.Report
	}
	if len(r.Sections) == 0 && len(v.Sections) > 0 {
		r.Sections = make([]Section, 0, len(v.Sections))
		for _, sv := range v.Sections {
			s := sv.Section
			if sv.Overall != nil {
				h := sv.Overall.Histogram
				s.Overall = &h
			}
			s.Modules = make([]Histogram, 0, len(sv.Modules))
			for _, m := range sv.Modules {
				s.Modules = append(s.Modules, m.Histogram)
			}
			r.Sections = append(r.Sections, s)
		}
	}
	if Live(r.Source) {
		r.watchVerdict = v.watchVerdict()
	}
	return &r
}

// watchVerdict is the verdict a document of a live trace holds: its watch
// summary's (the document dpc watch wrote), else its own (the one
// 'latlab dpcisr --json' wrote of such a document, without the summary);
// nil when neither has a text.
func (v *ReportView) watchVerdict() *dpcverdict.Verdict {
	if v.Watch != nil {
		// The summary is dpcwatch's type when the watch just ran, a
		// generic JSON value when read back: its verdict is read from
		// its JSON either way.
		var w struct {
			Verdict dpcverdict.Verdict `json:"verdict"`
		}
		if b, err := json.Marshal(v.Watch); err == nil && json.Unmarshal(b, &w) == nil && w.Verdict.Text != "" {
			return &w.Verdict
		}
		return nil
	}
	if v.Verdict != nil && v.Verdict.Text != "" {
		c := *v.Verdict
		return &c
	}
	return nil
}
