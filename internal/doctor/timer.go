package doctor

import (
	"fmt"
	"strings"
	"time"

	"github.com/latlab/latlab/internal/knob"
	"github.com/latlab/latlab/internal/stats"
	"github.com/latlab/latlab/internal/timer"
	"github.com/latlab/latlab/internal/units"
)

// Timer is the timer section: the raw status and the facts that matter,
// in words.
type Timer struct {
	Status *timer.Status `json:"status,omitempty"`
	Error  string        `json:"error,omitempty"`
	Facts  []Fact        `json:"facts"`
}

// Fact is one line of the timer section.
type Fact struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

func timerSection(st timer.Status, err error, o Options) Timer {
	t := Timer{Facts: []Fact{}}
	if err != nil {
		t.Error = err.Error()
		t.Facts = append(t.Facts, Fact{"timer", "cannot read the timer state: " + err.Error()})
		return t
	}
	t.Status = &st
	t.Facts = osTimerFacts(st, o)
	for _, w := range st.Warnings {
		t.Facts = append(t.Facts, Fact{"warning", w})
	}
	return t
}

// LinuxTimerFacts puts a Linux timer status and the cpu_dma_latency
// reading in words.
func LinuxTimerFacts(st timer.Status, dma string) []Fact {
	fs := []Fact{
		{"clock_getres", fmt.Sprintf("%dns (CLOCK_MONOTONIC)", st.ClockResNs)},
		{"timer slack", fmt.Sprintf("%s (this thread; default %s; realtime threads have none)", units.Ns(st.TimerSlackNs), units.Ns(st.DefaultTimerSlackNs))},
	}
	cs := st.Clocksource
	if cs == "" {
		cs = "unknown"
	}
	if len(st.AvailableClocksources) > 0 {
		cs += " (available: " + strings.Join(st.AvailableClocksources, " ") + ")"
	}
	fs = append(fs, Fact{knob.ClocksourceName, cs})
	tick := st.Tickless
	if tick == "" {
		tick = "unknown (no kernel config found)"
	}
	if c := timer.TickConfig(tick); c != "" {
		tick += " (" + c + ")"
	}
	if st.NohzFullCPUs != "" {
		tick += ", nohz_full CPUs " + st.NohzFullCPUs
	}
	fs = append(fs, Fact{"tickless", tick})
	if st.ConfigHZ > 0 {
		fs = append(fs, Fact{"HZ", fmt.Sprintf("%d (a tick every %s)", st.ConfigHZ, units.Ns(int64(time.Second)/int64(st.ConfigHZ)))})
	}
	if st.HighResTimers != nil {
		fs = append(fs, Fact{"high-res timers", timer.HighResConfig(*st.HighResTimers)})
	}
	return append(fs, Fact{"cpu_dma_latency", dma})
}

// DMALatencyMeaning words a /dev/cpu_dma_latency reading (µs). The
// kernel's "no constraint" value is 2000 s.
func DMALatencyMeaning(us int32) string {
	switch {
	case us >= 2_000_000_000:
		return fmt.Sprintf("no request held (%d µs: no limit on CPU idle states)", us)
	case us == 0:
		return "held at 0 µs by some process: CPUs stay out of idle states with any exit latency"
	}
	return fmt.Sprintf("held at %d µs by some process: idle states slower to leave than that are off", us)
}

// WindowsTimerFacts puts a Windows timer status and the power-throttling
// state of this process in words.
func WindowsTimerFacts(st timer.Status, power string) []Fact {
	ms := func(u uint32) string { return units.MsPrecise(time.Duration(u) * 100) }
	fs := []Fact{{"resolution", fmt.Sprintf("current %s, finest %s, coarsest %s (NtQueryTimerResolution)",
		ms(st.Current100ns), ms(st.Finest100ns), ms(st.Coarsest100ns))}}
	switch {
	case st.Current100ns == 0 || st.Coarsest100ns == 0:
	case st.Current100ns < st.Coarsest100ns && st.Build != 0 && st.Build < 17134:
		// Go's runtime asks for 1 ms itself on these builds.
		fs = append(fs, Fact{"held", fmt.Sprintf("yes: %s, perhaps by latlab itself (the Go runtime requests 1ms on builds before 17134)", ms(st.Current100ns))})
	case st.Current100ns < st.Coarsest100ns:
		fs = append(fs, Fact{"held", fmt.Sprintf("yes: some process holds a request for %s (latlab had made none when it read this)", ms(st.Current100ns))})
	default:
		fs = append(fs, Fact{"held", "no: the system runs at its coarsest interval"})
	}
	server := st.Server != nil && *st.Server
	if st.Build != 0 {
		fs = append(fs, Fact{"build", fmt.Sprintf("%d (%s)", st.Build, map[bool]string{true: "server", false: "client"}[server])})
	}
	fs = append(fs, Fact{"timer rule", TimerRule(st.Build, server, st.GlobalValue)})
	if st.Build != 0 && st.Build < powerThrottlingBuild {
		// Asked there, GetProcessInformation is missing (before
		// Windows 8) or refuses the class: an error that says nothing
		// about the machine.
		power = fmt.Sprintf("none: build %d predates process power throttling (Windows 10 1709, build %d)", st.Build, powerThrottlingBuild)
	}
	return append(fs, Fact{"power throttling", power})
}

// WindowsSleepVerdict explains a Windows Sleep(1) overshoot with the
// rule timer.SleepTicks states (floor(1/P)+1 ticks of the interval P):
// at 0.5 ms that is 3 ticks, 1.5 ms, and a request just above 0.5 ms
// (0.5068 ms: 2 ticks, 1.0136 ms) ends it nearer 1 ms. PC-Tuning measured
// both ("Micro-Adjusting Timer Resolution for Higher Precision",
// https://github.com/valleyofdoom/PC-Tuning/blob/main/docs/research.md:
// 1.497 ms at 0.4992 ms, 1.012 ms at 0.5068 ms). A sleep near the default
// tick while the interval is finer is the per-process rule of Windows 10
// 2004 and later: another process's request does not apply here.
func WindowsSleepVerdict(over stats.Summary, st timer.Status) string {
	const req = time.Millisecond
	cur := time.Duration(st.Current100ns) * 100
	slept := req + time.Duration(over.P50)
	if s, few := tooFewSleeps(over); few {
		return s
	}
	if cur <= 0 {
		if over.P50 < 100_000 {
			return "Sleep(1) ends close to 1 ms"
		}
		return fmt.Sprintf("Sleep(1) took %s ms (p50); the timer interval could not be read", units.Ms(slept, 4))
	}
	// Within a tenth of a tick (at least 50 µs): a rule one tick off
	// misses by a whole tick.
	near := func(pred time.Duration, p time.Duration) bool {
		return (slept - pred).Abs() <= max(p/10, 50*time.Microsecond)
	}
	pred, known := timer.SleepDurationOn(st.Build, req, cur)
	words, _ := timer.SleepPredictionOn(st.Build, req, cur)
	switch {
	case !known:
		return fmt.Sprintf("Sleep(1) took %s ms (p50); %s", units.Ms(slept, 4), words)
	case near(pred, cur):
		s := fmt.Sprintf("Sleep(1) took %s ms (p50), as predicted: %s", units.Ms(slept, 4), words)
		if pred-req < 100*time.Microsecond {
			return s + ", close to 1 ms"
		}
		return s + "; an interval just above 1/k ms ends it nearer 1 ms (PC-Tuning: 0.5068 ms gave 1.012 ms where 0.4992 ms gave 1.497 ms): find one with `latlab sweep`"
	case cur < timer.DefaultInterval && near(timer.SleepDuration(req, timer.DefaultInterval), timer.DefaultInterval):
		return defaultTickVerdict(slept, cur, st)
	}
	return fmt.Sprintf("Sleep(1) took %s ms (p50) where %s: the rest is wake-up delay (a busy CPU, a slow exit from an idle state)", units.Ms(slept, 4), words)
}

// defaultTickVerdict explains a Sleep(1) of the default 15.625 ms tick
// while the interval is finer by the timer rule of this build and
// GlobalTimerResolutionRequests (TimerRule, the same words as the timer
// section): per process, another process's request is not this one's;
// with the key honoured, the research's case is a requester that is
// minimised or hidden (PC-Tuning measured Sleep(1) back at 15.6 ms on
// Windows 11 22H2 with the key set once it minimised the requester,
// "Fixing Timing Precision in Windows After The Great Rule Change");
// before 2004 every sleep follows the interval, so the request must have
// gone while this ran.
func defaultTickVerdict(slept, cur time.Duration, st timer.Status) string {
	server := st.Server != nil && *st.Server
	head := fmt.Sprintf("Sleep(1) took %s ms (p50): the default 15.625 ms tick, although the interval is %s ms", units.Ms(slept, 4), units.Ms(cur, 4))
	rule := TimerRule(st.Build, server, st.GlobalValue)
	switch {
	case st.Build == 0:
		return head + "; the build could not be read, so whose request this is cannot be said (timer rule: " + rule + ")"
	case st.Build < timer.BuildPerProcess:
		return head + "; on this build every sleep follows the finest request (timer rule: " + rule + "), so the request that set the interval was probably released while this ran"
	case timer.RequestScope(st.Build, server, st.GlobalValue).Global:
		return head + "; requests are global here (timer rule: " + rule + "), so the requester is probably minimised or hidden: PC-Tuning saw exactly this with the key set"
	}
	return head + "; the interval is another process's request (timer rule: " + rule + ")"
}

// TimerRule states whose timer resolution request a process gets on a
// Windows build, in the words knob get and knob list use for
// GlobalTimerResolutionRequests (timer.GlobalRequestsMeaning): global
// before Windows 10 2004 (build 19041), per process since, global again
// where the value is set and the build reads it (Windows 11 22000+,
// Server 2022 20348+).
func TimerRule(build uint32, server bool, global *uint32) string {
	if build == 0 {
		return "unknown: the build could not be read"
	}
	return timer.GlobalRequestsMeaning(build, server, global)
}
