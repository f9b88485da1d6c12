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
	"errors"
	"fmt"
	"io"
	"math"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/latlab/latlab/internal/probe"
	"github.com/latlab/latlab/internal/stats"
	"github.com/latlab/latlab/internal/timer"
	"github.com/latlab/latlab/internal/units"
)

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

// requester is the running requester process's end of the protocol.
type requester struct {
	in  io.Writer
	out io.Reader
}

// Options configure the experiment.
type Options struct {
	// Requester is the other process, not yet started: it speaks Serve's
	// protocol on its standard input and output (`latlab crossproc
	// --child`). Run starts it and ends it.
	Requester *exec.Cmd
	Periods   []time.Duration // what the child requests, in turn
	Hold      time.Duration   // each request is held (and measured) this long
	Settle    time.Duration   // wait after the child's report before measuring
	Duration  time.Duration   // the sleep measured (1 ms: Sleep(1))
	Method    string
	Thread    probe.Thread
	Progress  func(done, total int)
	// MaxSamples bounds the sleeps kept per row (0: MaxSamplesPerRow).
	MaxSamples int
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
	// Samples are every sleep measured, in the order taken, so a plot can
	// show the distribution (the research's 8/16 ms split is invisible in
	// a mean). At most MaxSamples are kept; Dropped counts the rest.
	Samples []int64 `json:"slept_ns,omitempty"`
	Dropped int     `json:"slept_ns_dropped,omitempty"`
	// IntervalNs is the clock interrupt interval the expectations assume:
	// the current interval read during the hold, else the request.
	IntervalNs int64 `json:"interval_ns,omitempty"`
	// ExpectedNs is the median sleep if the other process's request applied
	// here (the global rule); ExpectedIsolatedNs if it did not (Windows 10
	// 2004 and later: imitating the default interval; Linux: the baseline).
	ExpectedNs         int64        `json:"expected_if_global_ns,omitempty"`
	ExpectedIsolatedNs int64        `json:"expected_if_isolated_ns,omitempty"`
	ExpectedGlobal     *Expectation `json:"expected_global,omitempty"`
	ExpectedIsolated   *Expectation `json:"expected_isolated,omitempty"`
	// Tracked: the median was nearer the global expectation than the
	// isolated one; only Informative rows (expectations far enough apart)
	// count.
	Tracked     bool `json:"tracked"`
	Informative bool `json:"informative"`
}

// MaxSamplesPerRow bounds the sleeps kept per condition by default (a long
// --hold of short sleeps would otherwise grow the document without bound).
const MaxSamplesPerRow = 100_000

// Result is the experiment's outcome: the Data of a crossproc document.
type Result struct {
	Method     string `json:"method"`
	DurationNs int64  `json:"duration_ns"`
	HoldNs     int64  `json:"hold_ns"`
	Requester  string `json:"requester"` // what the child called
	// Rule is what this build should do (Facts.ExpectedRule).
	Rule    Rule    `json:"expected_rule"`
	Rows    []Row   `json:"rows"` // baseline first
	Verdict Verdict `json:"verdict"`
	// Planned is the number of holds planned (the baseline included) when
	// ctx stopped the run: Rows then holds the complete ones. 0 for a run
	// that ended on its own.
	Planned int `json:"-"`
	// timerAfter is the timer state Run read once the requester had
	// stopped; nil when unread.
	timerAfter *timer.Status
}

// ExpectedRule is the rule this build should follow: Windows 10 2004 and
// later isolate processes unless GlobalTimerResolutionRequests=1 is set
// where it is honoured (Windows 11, Server 2022: build 20348 and later);
// earlier builds are global; Linux slack is per thread.
func (f Facts) ExpectedRule() Rule {
	switch {
	case !f.Windows:
		return PerThread
	case f.Build != 0 && f.Build < build2004:
		return GlobalRule
	case f.GlobalSetting != nil && *f.GlobalSetting == 1 && f.Build >= buildGlobalKey:
		return GlobalRule
	}
	return Isolated2004
}

// Builds where the rules change: Windows 10 2004, and the first with
// GlobalTimerResolutionRequests (Server 2022; Windows 11 is 22000).
const (
	build2004      = 19041
	buildGlobalKey = 20348
)

// requesterGrace is how long the requester has to exit once its input
// is closed (it releases its request first) before it is killed.
const requesterGrace = 5 * time.Second

// Run is the work of `latlab crossproc`: it starts the requester, measures
// this process's sleeps with no request and then during each of the
// requester's, and classifies what it saw. A failure of the requester
// carries the first line it wrote to its standard error.
func Run(ctx context.Context, o Options) (*Result, error) {
	cmd := o.Requester
	if cmd == nil {
		return nil, errors.New("crossproc.Run: no requester process")
	}
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	// The requester's stderr is written by exec's copying goroutine until
	// the process has been waited for: it is read only after stop.
	var childErr strings.Builder
	cmd.Stderr = &childErr
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start the requester process: %w", err)
	}
	var once sync.Once
	stop := func() {
		once.Do(func() {
			in.Close()
			done := make(chan struct{})
			go func() { cmd.Wait(); close(done) }()
			select {
			case <-done:
			case <-time.After(requesterGrace):
				cmd.Process.Kill()
				<-done
			}
		})
	}
	defer stop()
	res, err := run(ctx, requester{in: in, out: out}, o)
	if err != nil {
		stop()
		if s := firstLine(childErr.String()); s != "" {
			err = fmt.Errorf("%w (requester: %s)", err, s)
		}
		return res, fmt.Errorf("crossproc: %w", err) // res: the holds done before ctx ended, or nil
	}
	stop()
	if st, err := timer.Query(); err == nil {
		res.timerAfter = &st
	}
	return res, nil
}

// firstLine is the first line of s, trimmed.
func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	return s
}

// run performs the experiment with a started requester.
func run(ctx context.Context, c requester, o Options) (*Result, error) {
	res := &Result{Method: o.Method, DurationNs: o.Duration.Nanoseconds(), HoldNs: o.Hold.Nanoseconds(), Requester: requesterName}
	events := bufio.NewScanner(c.out)
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
	// stopped is the outcome of a run ctx ended: the complete holds, with
	// the verdict on those, so that Ctrl-C does not throw away what was
	// measured (it did: only "interrupted" was printed).
	stopped := func(err error) (*Result, error) {
		if ctx.Err() == nil || len(res.Rows) == 0 {
			return nil, err
		}
		f := HostFacts()
		res.Rule = f.ExpectedRule()
		res.Verdict = Classify(res.Rows, o.Duration, f)
		res.Planned = total
		return res, err
	}
	base, err := measure(ctx, o)
	if err != nil {
		return nil, err
	}
	res.Rows = append(res.Rows, base)
	if o.Progress != nil {
		o.Progress(1, total)
	}
	for i, p := range o.Periods {
		if _, err := fmt.Fprintf(c.in, "set %d\n", p.Nanoseconds()); err != nil {
			return stopped(fmt.Errorf("tell the requester: %w", err))
		}
		ev, err := next()
		if err != nil {
			return stopped(err)
		}
		if ev.Event != "set" {
			return stopped(fmt.Errorf("the requester could not request %s: %s", p, ev.Error))
		}
		row, err := measure(ctx, o)
		if err != nil {
			return stopped(err)
		}
		row.RequestedNs, row.ChildGrantedNs = ev.RequestedNs, ev.GrantedNs
		if _, err := fmt.Fprintln(c.in, "release"); err != nil {
			return stopped(fmt.Errorf("tell the requester: %w", err))
		}
		if ev, err := next(); err != nil || ev.Event != "released" {
			return stopped(fmt.Errorf("the requester did not release %s: %v %s", p, err, ev.Error))
		}
		res.Rows = append(res.Rows, row)
		if o.Progress != nil {
			o.Progress(i+2, total)
		}
	}
	f := HostFacts()
	res.Rule = f.ExpectedRule()
	res.Verdict = Classify(res.Rows, o.Duration, f)
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
	limit := o.MaxSamples
	if limit <= 0 {
		limit = MaxSamplesPerRow
	}
	keep := min(len(r.Slept), limit)
	row.Samples = slices.Clone(r.Slept[:keep])
	row.Dropped = len(r.Slept) - keep
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
// process's requests. For each period it compares the median sleep with
// two expectations (Expected): the global rule (the other process's
// interval applies here) and the isolated one (Windows 10 2004 and later:
// a process that asked for nothing imitates the default 15.625 ms as well
// as whole intervals allow; Linux: the baseline, slack being per thread).
// A period is informative when the two expected medians differ by at
// least a quarter of the larger (Windows) or half the baseline (Linux),
// and its median and the baseline's rest on MinSleepsPerRow sleeps or
// more; tracked when the measured median is nearer the global one.
// Global: at least two thirds of the informative periods tracked;
// isolated: none did.
func Classify(rows []Row, d time.Duration, f Facts) Verdict {
	if len(rows) < 2 {
		return Verdict{Behaviour: Inconclusive, Text: "no requests were measured"}
	}
	if n := rows[0].Slept.Count; n < MinSleepsPerRow {
		return Verdict{Behaviour: Inconclusive, Text: fmt.Sprintf("inconclusive: too few sleeps with no request (%d): a median needs at least %d; hold each request longer (--hold)", n, MinSleepsPerRow)}
	}
	base := float64(rows[0].Slept.P50)
	if f.Windows {
		// With no request anywhere both rules give the default tick; a
		// baseline far below it means this process gets a finer timer,
		// and no other process's request can show anything.
		if def := float64(Expected(GlobalRule, DefaultInterval, d).MedianNs); base < 0.5*def {
			return Verdict{Behaviour: Inconclusive, Text: fmt.Sprintf("inconclusive: with no request of its own this process already sleeps %s, far below the default tick's %s; close programs that raise the timer resolution and rerun", units.MsFixed(base), units.MsFixed(def))}
		}
	}
	informative, tracked, few := 0, 0, 0
	for i := 1; i < len(rows); i++ {
		r := &rows[i]
		interval := time.Duration(r.RequestedNs)
		if f.Windows && r.CurrentNs > 0 {
			interval = time.Duration(r.CurrentNs)
		}
		r.IntervalNs = int64(interval)
		var glob, iso Expectation
		var minGap float64
		if f.Windows {
			glob, iso = ExpectedOn(f.Build, GlobalRule, interval, d), Expected(Isolated2004, interval, d)
			minGap = 0.25 * float64(max(glob.MedianNs, iso.MedianNs))
			if glob.MedianNs == 0 {
				// No measurement of this build's rounding at this
				// interval: the period cannot tell the rules apart.
				r.ExpectedIsolated, r.ExpectedIsolatedNs = &iso, iso.MedianNs
				continue
			}
		} else {
			glob = Expected(PerThread, interval, d)
			iso = expectation(PerThread, []Outcome{{SleepNs: int64(base), Share: 1}})
			minGap = 0.5 * base
		}
		r.ExpectedGlobal, r.ExpectedIsolated = &glob, &iso
		r.ExpectedNs, r.ExpectedIsolatedNs = glob.MedianNs, iso.MedianNs
		ge, ie := float64(glob.MedianNs), float64(iso.MedianNs)
		if math.Abs(ge-ie) < minGap {
			continue
		}
		if r.Slept.Count < MinSleepsPerRow {
			few++
			continue
		}
		r.Informative = true
		informative++
		got := float64(r.Slept.P50)
		if math.Abs(got-ge) < math.Abs(got-ie) {
			r.Tracked = true
			tracked++
		}
	}
	v := Verdict{Behaviour: Inconclusive}
	switch {
	case informative == 0 && few > 0:
		v.Text = fmt.Sprintf("inconclusive: too few sleeps while the other process held its request (fewest %d): a median needs at least %d; hold each request longer (--hold)", fewest(rows[1:]), MinSleepsPerRow)
		return v
	case informative == 0:
		v.Text = fmt.Sprintf("inconclusive: no requested period separates the two rules (this process sleeps %s with no request); request periods further from the default", units.MsFixed(base))
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

// MinSleepsPerRow is the fewest sleeps a median of Classify rests on:
// stats.MinSamples of p50, as compare requires to judge one. A 15 ms
// --hold gave 4 sleeps with no request and 5 at 1 ms, and the verdict
// still called the behaviour isolated.
var MinSleepsPerRow = int64(stats.MinSamples(stats.Quantile(50), 0.95))

// fewest is the smallest sleep count of rows.
func fewest(rows []Row) int64 {
	n := int64(math.MaxInt64)
	for _, r := range rows {
		n = min(n, r.Slept.Count)
	}
	return n
}

func describe(b Behaviour, f Facts, tracked, informative int, base float64) string {
	if !f.Windows {
		if b == Isolated {
			return fmt.Sprintf("isolated: the other process's timer slack never changed this process's sleeps (0 of %d informative periods; median %s throughout), as on every Linux: timer slack is per thread", informative, units.MsFixed(base))
		}
		return fmt.Sprintf("global: this process's sleeps followed the other process's timer slack in %d of %d periods; timer slack is per thread on Linux, so look for something else changing in step (a shared cgroup or a tuned profile)", tracked, informative)
	}
	post2004 := f.Build >= build2004
	globalSet := f.GlobalSetting != nil && *f.GlobalSetting == 1
	switch {
	case b == Isolated && post2004:
		return fmt.Sprintf("post-2004 isolated behaviour (build %d): this process's Sleep did not follow another process's timeBeginPeriod (0 of %d informative periods); as the research measured, it imitates the default 15.625 ms as well as whole intervals of the faster clock allow (12 ms at 6 ms, 14 ms at 7 ms, 8 or 16 ms at 8 ms); each process must request its own resolution", f.Build, informative)
	case b == Isolated:
		return fmt.Sprintf("isolated although build %d predates Windows 10 2004, where requests were global: unexpected; check that the requester ran", f.Build)
	case post2004 && globalSet && f.Build >= buildGlobalKey:
		return fmt.Sprintf("global behaviour restored by GlobalTimerResolutionRequests=1 (build %d): another process's timeBeginPeriod sped up this process's Sleep in %d of %d informative periods", f.Build, tracked, informative)
	case post2004:
		return fmt.Sprintf("global behaviour on build %d without GlobalTimerResolutionRequests=1 in force: another process's request sped up this process's Sleep in %d of %d informative periods (unexpected after Windows 10 2004; the key is honoured from build %d)", f.Build, tracked, informative, buildGlobalKey)
	}
	return fmt.Sprintf("old global behaviour (build %d, before Windows 10 2004): any process's timeBeginPeriod speeds up every process's Sleep (%d of %d informative periods)", f.Build, tracked, informative)
}
