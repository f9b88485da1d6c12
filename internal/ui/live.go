package ui

import (
	"math"
	"slices"
	"sync"
	"time"

	"github.com/latlab/latlab/internal/dpcwatch"
	"github.com/latlab/latlab/internal/exporter"
	"github.com/latlab/latlab/internal/result"
)

// window is how far back the rolling percentiles look: the probes
// alternate, one burst a cycle, so ten seconds hold about five bursts of
// each.
const window = 10 * time.Second

// seriesLen is how many one-second points the time series keep: five
// minutes.
const seriesLen = 300

// Histogram bins of the wake-up lateness: log-spaced from histLo to
// histHi, histPerDecade to a decade, with the values outside counted in
// the first and last bins.
const (
	histLo        = 1e3 // 1 µs
	histHi        = 1e8 // 100 ms
	histPerDecade = 8
	histBins      = 5 * histPerDecade
)

// burst is one burst of samples, as the probe thread delivered it.
type burst struct {
	at      time.Time
	samples []int64 // wake: lateness; sleep: overshoot (ns)
}

// Stat is a probe's rolling figures, ns.
type Stat struct {
	N      int   `json:"n"`
	P50    int64 `json:"p50"`
	P99    int64 `json:"p99"`
	Max    int64 `json:"max"`
	Missed int64 `json:"missed,omitempty"` // wake: periods missed, whole session
}

// Point is one second of the time series: unix seconds and the rolling
// figures of each probe then (-1: no sample in the window).
type Point struct {
	T     float64 `json:"t"`
	Wake  Stat    `json:"wake"`
	Sleep Stat    `json:"sleep"`
}

// Snapshot is what each server-sent event carries.
type Snapshot struct {
	Status string   `json:"status"`
	Series []Point  `json:"series"`
	Edges  []int64  `json:"hist_edges_ns"` // histBins+1 bin edges
	Hist   []int64  `json:"hist"`          // wake-up lateness counts, whole session
	Total  [2]int64 `json:"total"`         // wake, sleep samples, whole session
	DPC    DPCPanel `json:"dpc"`
}

// live collects the probe thread's bursts and turns them into the page's
// figures once a second.
type live struct {
	mu       sync.Mutex
	interval int64 // ns: the sleep request, subtracted for the overshoot
	recent   map[string][]burst
	all      map[string][]int64 // the session, for record (bounded)
	missed   int64
	hist     [histBins]int64
	series   []Point
	status   string
	tick     chan struct{} // closed and replaced at each new point
	started  time.Time
	dpc      DPCPanel
}

func newLive(interval time.Duration) *live {
	return &live{interval: interval.Nanoseconds(), recent: map[string][]burst{}, all: map[string][]int64{},
		tick: make(chan struct{}), status: "starting the probes", started: time.Now(),
		dpc: DPCPanel{Status: "starting the watch", Rows: []DPCRow{}}}
}

// observe is exporter.Options.Observe: it runs on the probe thread
// between bursts, copies the samples and returns.
func (l *live) observe(probe string, samples []int64, overruns int64) {
	s := slices.Clone(samples)
	if probe == exporter.ProbeSleep {
		for i := range s {
			s[i] -= l.interval
		}
	}
	now := time.Now()
	l.mu.Lock()
	defer l.mu.Unlock()
	l.recent[probe] = append(l.recent[probe], burst{at: now, samples: s})
	if len(l.all[probe])+len(s) <= result.MaxSamples {
		l.all[probe] = append(l.all[probe], s...)
	}
	if probe == exporter.ProbeWake {
		l.missed += overruns
		for _, v := range s {
			l.hist[histBin(v)]++
		}
	}
	l.status = "measuring"
}

// dpcSummary is dpcwatch.Options.OnSummary: the watch's figures so far.
func (l *live) dpcSummary(s dpcwatch.Summary) {
	p := dpcPanel(s)
	l.mu.Lock()
	l.dpc = p
	l.mu.Unlock()
}

// dpcStopped records why the DPC and ISR watch is not running.
func (l *live) dpcStopped(p DPCPanel) {
	l.mu.Lock()
	l.dpc = p
	l.mu.Unlock()
}

// fail records that the probes stopped.
func (l *live) fail(msg string) {
	l.mu.Lock()
	l.status = msg
	l.mu.Unlock()
}

func histBin(v int64) int {
	if v <= histLo {
		return 0
	}
	b := int(math.Log10(float64(v)/histLo) * histPerDecade)
	return min(b, histBins-1)
}

func histEdges() []int64 {
	e := make([]int64, histBins+1)
	for i := range e {
		e[i] = int64(math.Round(histLo * math.Pow(10, float64(i)/histPerDecade)))
	}
	return e
}

// step adds the point of now: the rolling figures over the window.
func (l *live) step(now time.Time) {
	l.mu.Lock()
	defer l.mu.Unlock()
	p := Point{T: float64(now.UnixMilli()) / 1000}
	for _, name := range []string{exporter.ProbeWake, exporter.ProbeSleep} {
		bs := l.recent[name]
		k := 0
		for k < len(bs) && now.Sub(bs[k].at) > window {
			k++
		}
		bs = bs[k:]
		l.recent[name] = bs
		var vals []int64
		for _, b := range bs {
			vals = append(vals, b.samples...)
		}
		st := rolling(vals)
		if name == exporter.ProbeWake {
			st.Missed = l.missed
			p.Wake = st
		} else {
			p.Sleep = st
		}
	}
	l.series = append(l.series, p)
	if len(l.series) > seriesLen {
		l.series = slices.Delete(l.series, 0, len(l.series)-seriesLen)
	}
	close(l.tick)
	l.tick = make(chan struct{})
}

// rolling is the nearest-rank p50, p99 and max of vals (sorted in
// place); -1 each when there is none.
func rolling(vals []int64) Stat {
	if len(vals) == 0 {
		return Stat{P50: -1, P99: -1, Max: -1}
	}
	slices.Sort(vals)
	rank := func(p float64) int64 {
		i := int(math.Ceil(p*float64(len(vals)))) - 1
		return vals[max(i, 0)]
	}
	return Stat{N: len(vals), P50: rank(0.50), P99: rank(0.99), Max: vals[len(vals)-1]}
}

// snapshot is the figures to send, and the channel closed at the next
// point.
func (l *live) snapshot() (Snapshot, <-chan struct{}) {
	l.mu.Lock()
	defer l.mu.Unlock()
	s := Snapshot{Status: l.status, Series: append([]Point{}, l.series...), // [] before the first point, not null
		Edges: histEdges(), Hist: slices.Clone(l.hist[:]),
		Total: [2]int64{int64(len(l.all[exporter.ProbeWake])), int64(len(l.all[exporter.ProbeSleep]))},
		DPC:   l.dpc}
	s.DPC.Rows = slices.Clone(l.dpc.Rows)
	return s, l.tick
}

// samples is a copy of the session's samples of a probe.
func (l *live) samples(probe string) ([]int64, int64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.all[probe]), l.missed
}
