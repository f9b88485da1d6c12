package timer

import (
	"fmt"
	"time"

	"github.com/latlab/latlab/internal/units"
)

// DefaultInterval is Windows's default clock interrupt interval: 1/64 s.
const DefaultInterval = 15_625 * time.Microsecond

// SleepTicks is how many clock interrupts of period p a Windows Sleep(d)
// lasts in a process the period applies to: floor(d/p)+1. The call starts
// just after a tick and the thread is readied at the first tick after the
// sleep is due, so a Sleep(1) takes one tick more than fit in 1 ms.
//
// The rule is the one the measurements agree on:
//   - PC-Tuning, "Micro-Adjusting Timer Resolution for Higher Precision"
//     (valleyofdoom, https://github.com/valleyofdoom/PC-Tuning/blob/main/docs/research.md):
//     MeasureSleep's Sleep(1) slept 1.497 ms at 0.4992 ms (3 ticks:
//     1.4976 ms), 1.012 ms at 0.5068 ms (2 ticks: 1.0136 ms) and 1.999 ms
//     at 0.9996 ms (2 ticks: 1.9992 ms); on Windows 11 22H2, 1.496 ms at
//     0.5 ms (3 ticks: 1.5 ms).
//   - Bruce Dawson, "Windows Timer Resolution: The Great Rule Change"
//     (https://randomascii.wordpress.com/2020/10/04/windows-timer-resolution-the-great-rule-change/):
//     Sleep(1) at a 1 ms interval took 2.0 ms on Windows 10, as on
//     Windows XP ("Sleep Variation Investigated",
//     https://randomascii.wordpress.com/2013/04/02/sleep-variation-investigated/).
//     Windows 7 and 8 slept 1.0 ms there: they rounded differently, and
//     this rule does not describe them (SleepTicksOn).
//
// A period of zero or below, or above the default, is taken as the
// default 15.625 ms (nothing asks for a coarser clock).
func SleepTicks(d, p time.Duration) int64 {
	p = sleepPeriod(p)
	if d < 0 {
		d = 0
	}
	return int64(d/p) + 1
}

// SleepDuration is SleepTicks ticks of p: how long Sleep(d) lasts at
// period p on Windows 10 and later.
func SleepDuration(d, p time.Duration) time.Duration {
	return time.Duration(SleepTicks(d, p)) * sleepPeriod(p)
}

func sleepPeriod(p time.Duration) time.Duration {
	if p <= 0 || p > DefaultInterval {
		return DefaultInterval
	}
	return p
}

// Builds whose Sleep rounding Bruce Dawson measured apart from Windows
// 10's: Windows XP and Server 2003 (2600-3790), Windows 7 and 8
// (7600-9200). Windows 10 starts at 10240.
const (
	buildWindows10 = 10240
	buildXPLast    = 3790
	build7First    = 7600
	build8Last     = 9200
)

// SleepTicksOn is SleepTicks where a measurement supports it on a Windows
// build (0: unknown, taken as Windows 10 or later). Before Windows 10
// only Bruce Dawson's Sleep(1) at a 1 ms interval is known: 2 ticks on
// Windows XP, 1 tick on Windows 7 and 8 ("Sleep Variation Investigated",
// https://randomascii.wordpress.com/2013/04/02/sleep-variation-investigated/,
// and "Windows Timer Resolution: The Great Rule Change"). Any other build
// or period before Windows 10 is unknown (ok false): latlab claims only
// what was measured.
func SleepTicksOn(build uint32, d, p time.Duration) (ticks int64, ok bool) {
	if build == 0 || build >= buildWindows10 {
		return SleepTicks(d, p), true
	}
	oneMs := d == time.Millisecond && (p-time.Millisecond).Abs() <= 25*time.Microsecond
	switch {
	case oneMs && build <= buildXPLast:
		return 2, true
	case oneMs && build >= build7First && build <= build8Last:
		return 1, true
	}
	return 0, false
}

// SleepDurationOn is SleepTicksOn ticks of p.
func SleepDurationOn(build uint32, d, p time.Duration) (time.Duration, bool) {
	n, ok := SleepTicksOn(build, d, p)
	return time.Duration(n) * sleepPeriod(p), ok
}

// SleepPrediction says in words what Sleep(d) lasts at period p on
// Windows 10 and later: "Sleep(1) at 0.5068 ms lasts 2 ticks = 1.0136 ms".
func SleepPrediction(d, p time.Duration) string {
	s, _ := SleepPredictionOn(0, d, p)
	return s
}

// SleepPredictionOn is SleepPrediction on a build, naming the measurement
// for a build before Windows 10; ok false where none is known.
func SleepPredictionOn(build uint32, d, p time.Duration) (string, bool) {
	n, ok := SleepTicksOn(build, d, p)
	if !ok {
		return fmt.Sprintf("Sleep(%s) at %s ms on build %d: not measured (Windows XP, 7 and 8 rounded differently from Windows 10)", units.Ms(d, 4), units.Ms(sleepPeriod(p), 4), build), false
	}
	ticks := "ticks"
	if n == 1 {
		ticks = "tick"
	}
	s := fmt.Sprintf("Sleep(%s) at %s ms lasts %d %s = %s ms", units.Ms(d, 4), units.Ms(sleepPeriod(p), 4), n, ticks, units.Ms(time.Duration(n)*sleepPeriod(p), 4))
	switch {
	case build != 0 && build <= buildXPLast:
		s += " (Windows XP, as Bruce Dawson measured)"
	case build != 0 && build < buildWindows10:
		s += " (Windows 7 and 8, as Bruce Dawson measured)"
	}
	return s, true
}

// SleepRuleNote is the rule behind SleepPredictionOn on a build, for the
// line after a prediction.
func SleepRuleNote(build uint32) string {
	if build == 0 || build >= buildWindows10 {
		return "floor(1/P)+1 ticks of the interval P, in a process woken at it"
	}
	return "before Windows 10 only Sleep(1) at 1 ms was measured"
}
