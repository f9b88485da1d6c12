package crossproc

import (
	"math"
	"slices"
	"time"

	"github.com/latlab/latlab/internal/timer"
)

// Rule names which process's timer request a sleep follows.
type Rule string

// Rules: Windows 10 2004 and later (a process that asked for nothing
// imitates the default interval), the global rule of earlier builds and of
// GlobalTimerResolutionRequests=1, and Linux, where timer slack belongs to
// the thread.
const (
	Isolated2004 Rule = "isolated"
	GlobalRule   Rule = "global"
	PerThread    Rule = "per-thread"
)

// DefaultInterval is Windows's default clock interrupt interval: 1/64 s.
const DefaultInterval = timer.DefaultInterval

// imitationSlack is how far past the imitated default tick a wake may
// still come, spread uniformly over the calls. It is fitted, not measured:
// it is the value that reproduces the research's one-in-five one-interval
// sleeps at an 8 ms interval (the next tick after 15.625 ms, 16 ms, is
// 0.375 ms late; 0.375/1.875 = 20%), and it leaves the research's 6 and 7
// ms points as they are (their next ticks are 2.375 and 5.375 ms late).
const imitationSlack = 1875 * time.Microsecond

// Outcome is one length a sleep takes and the share of sleeps that take it.
type Outcome struct {
	SleepNs int64   `json:"sleep_ns"`
	Share   float64 `json:"share"`
}

// Expectation is the distribution of back-to-back sleeps a rule predicts.
type Expectation struct {
	Rule     Rule      `json:"rule"`
	Outcomes []Outcome `json:"outcomes"` // ascending
	MeanNs   float64   `json:"mean_ns"`
	MedianNs int64     `json:"median_ns"`
}

// Expected predicts how long a sleep of d, called again as soon as the
// previous one returns (Bruce Dawson's loop), takes in a process that asked
// for nothing while the clock interrupt runs every interval (the finest
// request anywhere; the default when nobody asks).
//
// Global rule (before Windows 10 2004, or GlobalTimerResolutionRequests=1
// where it is honoured): the sleep follows the interval in force and lasts
// timer.SleepDuration, floor(d/P)+1 intervals. Bruce Dawson measured that
// at 1 ms on Windows 10 before 2004 (2.0 ms, as on Windows XP; Windows 7
// and 8 slept 1.0 ms, but latlab does not run there), and PC-Tuning at
// 0.5 and 0.5068 ms (see timer.SleepTicks for both sources).
//
// Isolated rule (Windows 10 2004 and later), from the research's
// measurements of Sleep(1) with another process at timeBeginPeriod(p):
// about 12 ms at p = 6 and 14 ms at p = 7 (two intervals), and at p = 8
// one interval 20% of the time and two the rest (14.5 ms mean). The sleep
// imitates the default 15.625 ms as well as whole intervals allow: it ends
// at the last tick at or before the default tick it imitates, unless the
// next tick comes within imitationSlack after it, which a share of the
// calls then wait for. An interval at or above the default changes nothing.
//
// PerThread (Linux): another process's slack does not apply; the sleep is
// d with this thread's own slack, which the caller knows from its baseline.
// Expected returns d plus interval, what a global slack would give, for
// comparison.
func Expected(rule Rule, interval, d time.Duration) Expectation {
	return ExpectedOn(0, rule, interval, d)
}

// ExpectedOn is Expected on a Windows build (0: Windows 10 or later).
// Before Windows 10 the global rule is known only where Bruce Dawson
// measured it (timer.SleepTicksOn: Sleep(1) at 1 ms, 2 ticks on Windows
// XP, 1 on Windows 7 and 8); elsewhere it returns no outcomes and a zero
// median, and the period decides nothing.
func ExpectedOn(build uint32, rule Rule, interval, d time.Duration) Expectation {
	switch rule {
	case PerThread:
		return expectation(rule, []Outcome{{SleepNs: int64(d + interval), Share: 1}})
	case GlobalRule:
		dur, ok := timer.SleepDurationOn(build, d, interval)
		if !ok {
			return Expectation{Rule: rule}
		}
		return expectation(rule, []Outcome{{SleepNs: int64(dur), Share: 1}})
	}
	imitated := ceilTo(max(d, 1), DefaultInterval)
	if interval <= 0 || interval >= DefaultInterval {
		return expectation(rule, []Outcome{{SleepNs: int64(imitated), Share: 1}})
	}
	p := interval
	n := max(imitated/p, d/p+1) // never before the sleep is due
	late := (n+1)*p - imitated  // how far past the imitated tick the next one comes
	shortShare := min(1, float64(late)/float64(imitationSlack))
	if late <= 0 || shortShare >= 1 {
		return expectation(rule, []Outcome{{SleepNs: int64(n * p), Share: 1}})
	}
	return expectation(rule, []Outcome{{SleepNs: int64(n * p), Share: shortShare}, {SleepNs: int64((n + 1) * p), Share: 1 - shortShare}})
}

func ceilTo(d, unit time.Duration) time.Duration { return (d + unit - 1) / unit * unit }

func expectation(r Rule, o []Outcome) Expectation {
	slices.SortFunc(o, func(a, b Outcome) int { return int(a.SleepNs - b.SleepNs) })
	e := Expectation{Rule: r, Outcomes: o}
	cum := 0.0
	for _, x := range o {
		e.MeanNs += float64(x.SleepNs) * x.Share
		cum += x.Share
		if e.MedianNs == 0 && cum >= 0.5-1e-12 {
			e.MedianNs = x.SleepNs // nearest-rank, as every latlab percentile
		}
	}
	e.MeanNs = math.Round(e.MeanNs)
	return e
}
