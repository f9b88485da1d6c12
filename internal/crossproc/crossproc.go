// Package crossproc automates Bruce Dawson's experiment: does another
// process's timer request change how this process sleeps? A child process
// cycles timer requests (Windows timeBeginPeriod, Linux its own timer
// slack) and reports each over a pipe; this process, which requests
// nothing, measures its own sleeps during each hold. It never prints.
package crossproc

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"slices"
	"time"

	"github.com/latlab/latlab/internal/probe"
	"github.com/latlab/latlab/internal/stats"
)

// Kind is the result document kind of `latlab crossproc`.
const Kind = "crossproc"

// Event is one line the child writes: its request is in force ("set"), or
// released ("released").
type Event struct {
	Event       string `json:"event"`
	RequestedNs int64  `json:"requested_ns,omitempty"`
	GrantedNs   int64  `json:"granted_ns,omitempty"`
	Error       string `json:"error,omitempty"`
}

// Serve is the child: it reads commands from r ("set NS" to request NS,
// "release" to drop the request) and answers each with an Event line on w.
// End of input releases any request. It must run on a goroutine locked to
// its OS thread: on Linux the slack belongs to the thread.
func Serve(r io.Reader, w io.Writer) error {
	sc := bufio.NewScanner(r)
	enc := json.NewEncoder(w)
	var release func()
	defer func() {
		if release != nil {
			release()
		}
	}()
	for sc.Scan() {
		var ns int64
		switch line := sc.Text(); {
		case line == "release":
			if release != nil {
				release()
				release = nil
			}
			if err := enc.Encode(Event{Event: "released"}); err != nil {
				return err
			}
		case sscan(line, &ns):
			if release != nil {
				release()
				release = nil
			}
			granted, rel, err := request(time.Duration(ns))
			ev := Event{Event: "set", RequestedNs: ns, GrantedNs: granted.Nanoseconds()}
			if err != nil {
				ev = Event{Event: "error", RequestedNs: ns, Error: err.Error()}
			} else {
				release = rel
			}
			if err := enc.Encode(ev); err != nil {
				return err
			}
		default:
			if err := enc.Encode(Event{Event: "error", Error: fmt.Sprintf("unknown command %q", line)}); err != nil {
				return err
			}
		}
	}
	return sc.Err()
}

func sscan(line string, ns *int64) bool {
	_, err := fmt.Sscanf(line, "set %d", ns)
	return err == nil && *ns > 0
}

// Child is a running requester process.
type Child struct {
	In  io.WriteCloser
	Out io.Reader
}

// Options configure the experiment.
type Options struct {
	Periods  []time.Duration // what the child requests, in turn
	Hold     time.Duration   // each request is held (and measured) this long
	Settle   time.Duration   // wait after the child's report before measuring
	Duration time.Duration   // the sleep measured (1 ms: Sleep(1))
	Method   string
	Thread   probe.Thread
	Progress func(done, total int)
}

// Row is one condition: the baseline (no request, RequestedNs 0) or one
// period held by the child.
type Row struct {
	RequestedNs    int64         `json:"requested_ns"`     // by the child; 0 = none
	ChildGrantedNs int64         `json:"child_granted_ns"` // what the child's OS call reported
	CurrentNs      int64         `json:"current_ns,omitempty"`
	TimeGetTimeNs  int64         `json:"timegettime_granularity_ns,omitempty"`
	Slept          stats.Summary `json:"slept"`
	Overshoot      stats.Summary `json:"overshoot"`
	ExpectedNs     int64         `json:"expected_if_global_ns,omitempty"`
	Tracked        bool          `json:"tracked"`
	Informative    bool          `json:"informative"`
}

// Result is the experiment's outcome: the Data of a crossproc document.
type Result struct {
	Method     string  `json:"method"`
	DurationNs int64   `json:"duration_ns"`
	HoldNs     int64   `json:"hold_ns"`
	Requester  string  `json:"requester"` // what the child called
	Rows       []Row   `json:"rows"`      // baseline first
	Verdict    Verdict `json:"verdict"`
}

// Run performs the experiment with a started child.
func Run(ctx context.Context, c Child, o Options) (*Result, error) {
	res := &Result{Method: o.Method, DurationNs: o.Duration.Nanoseconds(), HoldNs: o.Hold.Nanoseconds(), Requester: requesterName}
	events := bufio.NewScanner(c.Out)
	next := func() (Event, error) {
		type r struct {
			ev  Event
			err error
		}
		ch := make(chan r, 1)
		go func() {
			if !events.Scan() {
				err := events.Err()
				if err == nil {
					err = io.ErrUnexpectedEOF
				}
				ch <- r{err: fmt.Errorf("the requester process ended: %w", err)}
				return
			}
			var ev Event
			if err := json.Unmarshal(events.Bytes(), &ev); err != nil {
				ch <- r{err: fmt.Errorf("requester said %q: %w", events.Text(), err)}
				return
			}
			ch <- r{ev: ev}
		}()
		select {
		case x := <-ch:
			return x.ev, x.err
		case <-ctx.Done():
			return Event{}, ctx.Err()
		case <-time.After(10 * time.Second):
			return Event{}, fmt.Errorf("the requester process did not answer within 10s")
		}
	}
	total := len(o.Periods) + 1
	base, err := measure(ctx, o)
	if err != nil {
		return nil, err
	}
	res.Rows = append(res.Rows, base)
	if o.Progress != nil {
		o.Progress(1, total)
	}
	for i, p := range o.Periods {
		if _, err := fmt.Fprintf(c.In, "set %d\n", p.Nanoseconds()); err != nil {
			return nil, fmt.Errorf("tell the requester: %w", err)
		}
		ev, err := next()
		if err != nil {
			return nil, err
		}
		if ev.Event != "set" {
			return nil, fmt.Errorf("the requester could not request %s: %s", p, ev.Error)
		}
		row, err := measure(ctx, o)
		if err != nil {
			return nil, err
		}
		row.RequestedNs, row.ChildGrantedNs = ev.RequestedNs, ev.GrantedNs
		if _, err := fmt.Fprintln(c.In, "release"); err != nil {
			return nil, fmt.Errorf("tell the requester: %w", err)
		}
		if ev, err := next(); err != nil || ev.Event != "released" {
			return nil, fmt.Errorf("the requester did not release %s: %v %s", p, err, ev.Error)
		}
		res.Rows = append(res.Rows, row)
		if o.Progress != nil {
			o.Progress(i+2, total)
		}
	}
	res.Verdict = Classify(res.Rows, o.Duration, HostFacts())
	return res, nil
}

// measure waits Settle, takes the OS-specific readings, then times sleeps
// for the length of the hold.
func measure(ctx context.Context, o Options) (Row, error) {
	if o.Settle > 0 {
		select {
		case <-ctx.Done():
			return Row{}, ctx.Err()
		case <-time.After(o.Settle):
		}
	}
	var row Row
	row.CurrentNs, row.TimeGetTimeNs = readings()
	// The sleeps get the hold less the settle time; the readings above
	// (timeGetTime's step takes up to 100 ms to observe) come on top, so a
	// short hold still leaves time for sleeps.
	mctx, cancel := context.WithTimeout(ctx, o.Hold-o.Settle)
	defer cancel()
	r, err := probe.Sleep(mctx, probe.SleepOptions{Duration: o.Duration, Samples: 0, Method: o.Method, Thread: o.Thread, SkipOverhead: true})
	if err != nil {
		return Row{}, err
	}
	if ctx.Err() != nil {
		return Row{}, ctx.Err()
	}
	if len(r.Slept) == 0 {
		return Row{}, fmt.Errorf("no sleep completed within --hold %s", o.Hold)
	}
	s := slices.Clone(r.Slept)
	slices.Sort(s)
	row.Slept = stats.SummarizeSorted(s)
	row.Overshoot = stats.SummarizeSorted(stats.Shift(s, o.Duration.Nanoseconds()))
	return row, nil
}

// Behaviour is what the experiment found.
type Behaviour string

// Behaviours.
const (
	Isolated     Behaviour = "isolated"
	Global       Behaviour = "global"
	Inconclusive Behaviour = "inconclusive"
)

// Verdict explains the behaviour in terms of this OS and build.
type Verdict struct {
	Behaviour Behaviour `json:"behaviour"`
	Text      string    `json:"text"`
}

// Facts are what the verdict's wording depends on.
type Facts struct {
	Windows       bool
	Build         uint32
	GlobalSetting *uint32 // GlobalTimerResolutionRequests, when present
}

// Classify decides whether this process's sleeps followed the other
// process's requests. For each period it compares the median sleep with two
// predictions: the baseline (isolated: nothing changes) and what a global
// timer would give (expectedIfGlobal). A period is informative when the two
// predictions differ by at least half the baseline, and tracked when the
// measurement is closer to the global prediction. Global: at least two
// thirds of the informative periods tracked; isolated: none did.
func Classify(rows []Row, d time.Duration, f Facts) Verdict {
	if len(rows) < 2 {
		return Verdict{Behaviour: Inconclusive, Text: "no requests were measured"}
	}
	base := float64(rows[0].Slept.P50)
	informative, tracked := 0, 0
	for i := 1; i < len(rows); i++ {
		r := &rows[i]
		exp := float64(f.expectedIfGlobal(time.Duration(r.RequestedNs), d))
		if f.Windows {
			// A global interval is the finest in force anywhere: a request
			// coarser than what this process already gets changes nothing.
			exp = math.Min(exp, base)
		}
		r.ExpectedNs = int64(exp)
		if math.Abs(exp-base) < 0.5*base {
			continue
		}
		r.Informative = true
		informative++
		got := float64(r.Slept.P50)
		if math.Abs(got-exp) < math.Abs(got-base) {
			r.Tracked = true
			tracked++
		}
	}
	v := Verdict{Behaviour: Inconclusive}
	switch {
	case informative == 0:
		v.Text = fmt.Sprintf("inconclusive: with no request of its own this process already sleeps %s, which no requested period would change much; close programs that raise the timer resolution and rerun", fmtMs(base))
		return v
	case tracked == 0:
		v.Behaviour = Isolated
	case float64(tracked) >= 2.0/3*float64(informative):
		v.Behaviour = Global
	default:
		v.Text = fmt.Sprintf("inconclusive: this process's sleeps followed %d of %d informative requests of the other process", tracked, informative)
		return v
	}
	v.Text = describe(v.Behaviour, f, tracked, informative, base)
	return v
}

// expectedIfGlobal predicts this process's sleep of d were the other
// process's request p in force here too.
//
// Windows: Sleep(d) ends on a timer tick at least d after it started:
// about ceil(d/p) periods, plus on average half a period when it starts
// between ticks. Linux: a nanosleep of d is deferred by up to the slack,
// and with nothing to coalesce with it fires at the end of that window.
func (f Facts) expectedIfGlobal(p, d time.Duration) time.Duration {
	if !f.Windows {
		return d + p
	}
	if p <= 0 {
		return d
	}
	n := (d + p - 1) / p
	return n*p + p/2
}

func describe(b Behaviour, f Facts, tracked, informative int, base float64) string {
	if !f.Windows {
		if b == Isolated {
			return fmt.Sprintf("isolated: the other process's timer slack never changed this process's sleeps (0 of %d informative periods; median %s throughout), as on every Linux: timer slack is per thread", informative, fmtMs(base))
		}
		return fmt.Sprintf("global: this process's sleeps followed the other process's timer slack in %d of %d periods; timer slack is per thread on Linux, so look for something else changing in step (a shared cgroup or a tuned profile)", tracked, informative)
	}
	post2004 := f.Build >= 19041
	globalSet := f.GlobalSetting != nil && *f.GlobalSetting == 1
	switch {
	case b == Isolated && post2004:
		return fmt.Sprintf("post-2004 isolated behaviour (build %d): another process's timeBeginPeriod did not speed up this process's Sleep (0 of %d informative periods); each process must request its own resolution", f.Build, informative)
	case b == Isolated:
		return fmt.Sprintf("isolated although build %d predates Windows 10 2004, where requests were global: unexpected; check that the requester ran", f.Build)
	case post2004 && globalSet:
		return fmt.Sprintf("global behaviour restored by GlobalTimerResolutionRequests=1 (build %d): another process's timeBeginPeriod sped up this process's Sleep in %d of %d informative periods", f.Build, tracked, informative)
	case post2004:
		return fmt.Sprintf("global behaviour on build %d without GlobalTimerResolutionRequests=1: another process's request sped up this process's Sleep in %d of %d informative periods (unexpected after Windows 10 2004)", f.Build, tracked, informative)
	}
	return fmt.Sprintf("old global behaviour (build %d, before Windows 10 2004): any process's timeBeginPeriod speeds up every process's Sleep (%d of %d informative periods)", f.Build, tracked, informative)
}

func fmtMs(ns float64) string { return fmt.Sprintf("%.3f ms", ns/1e6) }
