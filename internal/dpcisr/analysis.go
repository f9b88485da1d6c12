package dpcisr

import (
	"math"
	"strings"

	"github.com/latlab/latlab/internal/dpcverdict"
)

// Row is one bucket with its share of the histogram.
type Row struct {
	Bucket
	Pct    float64 `json:"pct"`     // of the bucket sum
	CumPct float64 `json:"cum_pct"` // share at or below the bucket's upper bound
}

// Quantile names the bucket holding a quantile. A histogram of power-of-two
// buckets cannot place a quantile more precisely than its bucket, so the
// bounds are the answer.
type Quantile struct {
	P      float64 `json:"p"`
	Bucket Bucket  `json:"bucket"`
}

// Summary is what latlab reports for one histogram.
type Summary struct {
	Count     int64      `json:"count"` // sum of the buckets
	Rows      []Row      `json:"rows"`
	Quantiles []Quantile `json:"quantiles"` // p50, p90, p99, p99.9
	Mode      *Bucket    `json:"mode,omitempty"`
	Max       *Bucket    `json:"max,omitempty"` // highest non-empty bucket: the worst case lies in it
}

// Percentiles reported for every histogram.
var Percentiles = []float64{50, 90, 99, 99.9}

// Summarize computes the shares, quantile buckets, most common and highest
// bucket of h. Quantiles are nearest-rank, like internal/stats: the bucket
// of the ceil(p/100 * N)-th smallest execution.
func Summarize(h Histogram) Summary {
	s := Summary{Count: h.Sum(), Rows: []Row{}}
	var cum int64
	for _, b := range h.Buckets {
		cum += b.Count
		r := Row{Bucket: b}
		if s.Count > 0 {
			r.Pct = 100 * float64(b.Count) / float64(s.Count)
			r.CumPct = 100 * float64(cum) / float64(s.Count)
		}
		s.Rows = append(s.Rows, r)
		if b.Count > 0 {
			bb := b
			s.Max = &bb
			if s.Mode == nil || b.Count > s.Mode.Count {
				s.Mode = &bb
			}
		}
	}
	if s.Count == 0 {
		return s
	}
	for _, p := range Percentiles {
		if b, ok := QuantileBucket(h, p); ok {
			s.Quantiles = append(s.Quantiles, Quantile{P: p, Bucket: b})
		}
	}
	return s
}

// QuantileBucket returns the bucket holding the nearest-rank p-quantile.
func QuantileBucket(h Histogram, p float64) (Bucket, bool) {
	n := h.Sum()
	if n == 0 {
		return Bucket{}, false
	}
	rank := int64(math.Ceil(p / 100 * float64(n)))
	rank = max(rank, 1)
	var cum int64
	for _, b := range h.Buckets {
		cum += b.Count
		if cum >= rank {
			return b, true
		}
	}
	return h.Buckets[len(h.Buckets)-1], true
}

// ShareAtMost is the share (0-100) of executions that took at most us
// microseconds. It is exact only when us is a bucket boundary; exact
// reports whether it is (a bucket straddling us makes it unknowable).
func ShareAtMost(h Histogram, us float64) (pct float64, exact bool) {
	n := h.Sum()
	if n == 0 {
		return math.NaN(), false
	}
	var below int64
	exact = true
	for _, b := range h.Buckets {
		switch {
		case b.Upper() <= us:
			below += b.Count
		case float64(b.GtUs) < us && b.Count > 0:
			exact = false
		}
	}
	return 100 * float64(below) / float64(n), exact
}

// bucketKey identifies a bucket by its bounds; the open bucket's upper
// bound is MaxInt64, so keys order as the buckets do.
type bucketKey struct{ gt, le int64 }

func (b Bucket) key() bucketKey {
	if b.LeUs == nil {
		return bucketKey{b.GtUs, math.MaxInt64}
	}
	return bucketKey{b.GtUs, *b.LeUs}
}

func (k bucketKey) less(o bucketKey) bool {
	if k.gt != o.gt {
		return k.gt < o.gt
	}
	return k.le < o.le
}

// Merge adds histograms bucket by bucket (a module listed in several
// blocks, or several modules). Buckets with the same bounds are summed;
// the result is sorted by lower bound. Label and footer are dropped.
func Merge(module string, hs ...Histogram) Histogram {
	out := Histogram{Module: module, Buckets: []Bucket{}}
	if len(hs) > 0 {
		out.Line = hs[0].Line
	}
	idx := map[bucketKey]int{}
	for _, h := range hs {
		out.Total += h.Total
		for _, b := range h.Buckets {
			k := b.key()
			if i, ok := idx[k]; ok {
				out.Buckets[i].Count += b.Count
				continue
			}
			idx[k] = len(out.Buckets)
			nb := Bucket{GtUs: b.GtUs, LeUs: b.LeUs, Count: b.Count, Line: b.Line}
			out.Buckets = append(out.Buckets, nb)
		}
	}
	sortBuckets(out.Buckets)
	return out
}

// Pick returns the histogram of a section a comparison looks at: the
// named module's blocks merged (case-insensitive), or, with no module,
// the overall histogram, or all module blocks merged when the file has no
// overall histogram (hand-edited files often drop it).
func (s Section) Pick(module string) (Histogram, bool) {
	if module == "" {
		if s.Overall != nil {
			h := *s.Overall
			return h, true
		}
		if len(s.Modules) == 0 {
			return Histogram{}, false
		}
		return Merge("", s.Modules...), true
	}
	var hs []Histogram
	name := module
	for _, m := range s.Modules {
		if strings.EqualFold(m.Module, module) {
			hs = append(hs, m)
			name = m.Module
		}
	}
	if len(hs) == 0 {
		return Histogram{}, false
	}
	return Merge(name, hs...), true
}

// HistogramView is a histogram with its summary, for output.
type HistogramView struct {
	Histogram
	Summary Summary `json:"summary"`
}

// SectionView is a section with summarised histograms, for output.
type SectionView struct {
	Section
	Overall *HistogramView  `json:"overall,omitempty"`
	Modules []HistogramView `json:"modules"`
}

// ReportView is the analysed report, for output.
type ReportView struct {
	File   string `json:"file"`
	Module string `json:"module_filter,omitempty"`
	// Verdict is the verdict the text opens with, in dpc watch's words
	// (dpcverdict). For a LatencyMon report it is judged on its highest
	// DPC and ISR routine execution times (LatencyMon.Verdict), each time
	// the view is made. For a dpc watch document it is the watch's own,
	// judged on the exact longest executions the buckets do not keep, and
	// only without a module filter: it judges the whole trace. It is
	// absent for a LatencyMon report with neither highest line and for
	// xperf's reports and .etl traces, whose text has no verdict.
	Verdict *dpcverdict.Verdict `json:"verdict,omitempty"`
	*Report
	Sections []SectionView `json:"sections"`
	// Watch is latlab dpc watch's own summary of a live trace (the
	// intervals, the longest executions, the verdict); absent for a report
	// of xperf's. Package dpcwatch owns its shape (dpcwatch.Summary); read
	// back it is a generic JSON value.
	Watch any `json:"watch,omitempty"`
}

// View summarises every histogram of r.
func (r *Report) View(file, module string) ReportView {
	v := ReportView{File: file, Module: module, Report: r, Sections: []SectionView{}}
	switch {
	case r.Source == SourceLatencyMon && r.LatencyMon != nil:
		if lv, ok := r.LatencyMon.Verdict(); ok {
			v.Verdict = &lv
		}
	case r.watchVerdict != nil && module == "":
		wv := *r.watchVerdict
		v.Verdict = &wv
	}
	for _, s := range r.Sections {
		sv := SectionView{Section: s, Modules: []HistogramView{}}
		if s.Overall != nil {
			sv.Overall = &HistogramView{Histogram: *s.Overall, Summary: Summarize(*s.Overall)}
		}
		for _, m := range s.Modules {
			sv.Modules = append(sv.Modules, HistogramView{Histogram: m, Summary: Summarize(m)})
		}
		v.Sections = append(v.Sections, sv)
	}
	return v
}
