package doctor

import (
	"fmt"
	"sort"
	"strings"

	"github.com/latlab/latlab/internal/dpcwatch"
	"github.com/latlab/latlab/internal/explain"
	"github.com/latlab/latlab/internal/stats"
	"github.com/latlab/latlab/internal/units"
)

// Cause is what the check-up found behind its worst wake-ups: on Linux
// (as root) what ran on the late CPU, from a second, traced wake run (the
// machinery of `latlab wake --explain`); on Windows (as administrator) the
// driver with the most DPC and ISR time and the longest single DPC or ISR,
// from a few seconds of `latlab dpc watch`. The figures the check-up
// judges come from the untraced run: tracing adds work to every event, so
// the traced run only names what ran.
type Cause struct {
	// Source is how it was found: "tracefs" or "etw"; "" when nothing
	// was traced, and Missing says why.
	Source string `json:"source,omitempty"`
	// Kind of the main cause: thread, irq (a hard interrupt handler or a
	// system vector), softirq; idle, timer, wake-to-run or return-to-user
	// when nothing else ran; driver on Windows.
	Kind string `json:"kind,omitempty"`
	Name string `json:"name,omitempty"`
	// PID is a thread's id as the kernel's scheduler events give it (for
	// a multi-threaded program, the thread's, not the process's).
	PID int `json:"pid,omitempty"`
	// CPUs are the CPUs it ran on in the explained wake-ups.
	CPUs []int `json:"cpus,omitempty"`
	// SharePct is its part of the lateness of the explained wake-ups:
	// the time it held the CPU between their deadlines and time stamps
	// over the sum of their latencies.
	SharePct float64 `json:"share_pct,omitempty"`
	// Text is the cause in words, the summary's line.
	Text string `json:"text,omitempty"`
	// Run says which run the cause came from.
	Run string `json:"run,omitempty"`
	// Traced is the summary of the traced run's lateness (Linux), to be
	// set beside the untraced figures.
	Traced         *stats.Summary `json:"traced_summary,omitempty"`
	TracedOverruns int64          `json:"traced_missed_periods,omitempty"`
	// Explained are the worst wake-ups of the traced run, explained
	// (wake --explain's entries), worst first.
	Explained []explain.Wakeup `json:"explained,omitempty"`
	// Drivers are the Windows watch's modules by DPC and ISR time, most
	// first (at most 5).
	Drivers []DriverTime `json:"drivers,omitempty"`
	// Longest is the Windows watch's longest single DPC or ISR with its
	// verdict in LatencyMon's terms.
	Longest *Longest `json:"longest,omitempty"`
	// Missing says why there is no cause and how to get one ("sudo
	// latlab names the cause").
	Missing string   `json:"missing,omitempty"`
	Notes   []string `json:"notes,omitempty"`
}

// DriverTime is one driver's DPC and ISR time in a Windows watch.
type DriverTime struct {
	Module  string  `json:"module"`
	DPCUs   float64 `json:"dpc_us"`
	ISRUs   float64 `json:"isr_us"`
	TotalUs float64 `json:"total_us"`
	Count   int64   `json:"count"`
}

// Longest is the longest single DPC or ISR of a watch.
type Longest struct {
	Section string  `json:"section"` // DPC or ISR
	Module  string  `json:"module"`
	MaxUs   float64 `json:"max_us"`
	Level   string  `json:"level"` // dpc watch's verdict level
	Verdict string  `json:"verdict"`
}

// culprit is one thing that held a CPU in the explained wake-ups.
type culprit struct {
	kind, name string
	pid        int
	own        bool // latlab's own thread (explain.Ran.Own)
	ns         int64
	wakeups    int
	cpus       map[int]int64
}

// culprits sums what held the CPUs in the explained wake-ups ws, the
// idle task left out, by thread (pid), handler or softirq, longest
// first; total is the sum of the wake-ups' latencies.
func culprits(ws []explain.Wakeup) (out []*culprit, total int64) {
	m := map[string]*culprit{}
	for _, w := range ws {
		total += w.LatencyNs
		for _, r := range w.Ran {
			if r.Kind == explain.KindIdle {
				continue
			}
			pid := 0
			if r.Kind == explain.KindThread {
				pid = r.PID
			}
			k := fmt.Sprintf("%s\x00%s\x00%d", r.Kind, r.Name, pid)
			c := m[k]
			if c == nil {
				c = &culprit{kind: r.Kind, name: r.Name, pid: pid, own: r.Own, cpus: map[int]int64{}}
				m[k] = c
				out = append(out, c)
			}
			c.ns += r.DurationNs
			c.wakeups++
			c.cpus[w.CPU] += r.DurationNs
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].ns > out[j].ns })
	return out, total
}

func (c *culprit) cpuList() []int {
	var l []int
	for cpu := range c.cpus {
		l = append(l, cpu)
	}
	sort.Ints(l)
	return l
}

// Culprits are what held the CPUs in the explained wake-ups, a line
// each, longest first: "thread stress (pid 4123) on CPU 1: 41.2ms in 10
// wake-ups (93%)": the time it held the CPU, in how many wake-ups, and
// its share of their lateness.
func Culprits(ws []explain.Wakeup) []string {
	cs, total := culprits(ws)
	out := make([]string, 0, len(cs))
	for _, c := range cs {
		out = append(out, fmt.Sprintf("%s on CPU %s: %s in %d %s (%.0f%%)", explain.Name(c.kind, c.name, c.pid, c.own),
			cpuList(c.cpuList()), units.NsShort(float64(c.ns)), c.wakeups, plural(c.wakeups, "wake-up", "wake-ups"),
			100*float64(c.ns)/float64(max(total, 1))))
	}
	return out
}

// CauseOf names the main cause of the explained wake-ups ws: what held
// their CPUs longest in all (a thread by its pid, an interrupt handler or
// softirq by its name), with its share of their lateness. When nothing
// but the idle task ran for a tenth of the lateness, the main cause is
// what the explanations call most of them (the timer's own delay, the way
// from wake-up to running, ...).
func CauseOf(ws []explain.Wakeup) Cause {
	cs, total := culprits(ws)
	// latlab's own threads (the trace's reader) ran only in the traced
	// run: they are listed (Culprits), never the cause of the untraced
	// run's lateness.
	var top *culprit
	for _, c := range cs {
		if !c.own {
			top = c
			break
		}
	}
	if total <= 0 {
		return Cause{Kind: "none", Text: "no wake-up of the traced run was late"}
	}
	if top != nil && top.ns*10 >= total {
		c := Cause{Kind: top.kind, Name: top.name, PID: top.pid, SharePct: 100 * float64(top.ns) / float64(total), CPUs: top.cpuList()}
		c.Text = fmt.Sprintf("%s on CPU %s: %.0f%% of the lateness", explain.Name(c.Kind, c.Name, c.PID, false), cpuList(c.CPUs), c.SharePct)
		return c
	}
	// Nothing else ran for long: the kind of delay most explanations name.
	votes := map[string]int{}
	best := ""
	for _, w := range ws {
		k := w.Cause
		if strings.Contains(k, " ") { // "thread x", "irq y": too short to count
			continue
		}
		votes[k]++
		if best == "" || votes[k] > votes[best] {
			best = k
		}
	}
	c := Cause{Kind: best}
	switch best {
	case "timer", explain.KindIdle:
		c.Kind = "timer"
		c.Text = "the CPU was idle: the timer itself fired late (idle-state exit; on a VM, the host)"
	case "wake-to-run":
		c.Text = "the thread was woken on time but waited to run (scheduler)"
	case "return-to-user":
		c.Text = "between the switch to the thread and its time stamp (the return to user space)"
	default:
		c.Kind = "unknown"
		c.Text = "nothing on the traced CPUs held them for a tenth of the lateness"
	}
	return c
}

// cpuList spells CPUs as "1" or "0,1".
func cpuList(cpus []int) string {
	s := make([]string, len(cpus))
	for i, c := range cpus {
		s[i] = fmt.Sprint(c)
	}
	return strings.Join(s, ",")
}

// DPCCause names, from a DPC/ISR watch's summary, the driver with the
// most DPC and ISR time and the longest single execution with its verdict.
func DPCCause(s dpcwatch.Summary) Cause {
	c := Cause{Source: "etw", Kind: "driver", Notes: s.Notes}
	m := map[string]*DriverTime{}
	add := func(stats []dpcwatch.ModuleStat, isr bool) {
		for _, st := range stats {
			d := m[st.Module]
			if d == nil {
				d = &DriverTime{Module: st.Module}
				m[st.Module] = d
			}
			if isr {
				d.ISRUs += st.TotalUs
			} else {
				d.DPCUs += st.TotalUs
			}
			d.TotalUs += st.TotalUs
			d.Count += st.Count
		}
	}
	add(s.DPC, false)
	add(s.ISR, true)
	for _, d := range m {
		c.Drivers = append(c.Drivers, *d)
	}
	sort.Slice(c.Drivers, func(i, j int) bool {
		if c.Drivers[i].TotalUs != c.Drivers[j].TotalUs {
			return c.Drivers[i].TotalUs > c.Drivers[j].TotalUs
		}
		return c.Drivers[i].Module < c.Drivers[j].Module
	})
	if len(c.Drivers) > 5 {
		c.Drivers = c.Drivers[:5]
	}
	v := s.Verdict
	if len(c.Drivers) == 0 {
		c.Kind = "none"
		c.Text = fmt.Sprintf("no DPC or ISR in %.1f s of tracing", s.Seconds)
		return c
	}
	top := c.Drivers[0]
	c.Name = top.Module
	c.Longest = &Longest{Section: v.Section, Module: v.Module, MaxUs: v.MaxUs, Level: v.Level, Verdict: v.Text}
	c.Text = fmt.Sprintf("driver %s: most DPC+ISR time (%s in %.1f s); longest %s %s by %s: %s",
		top.Module, units.Us(top.TotalUs), s.Seconds, v.Section, units.Us(v.MaxUs), v.Module, levelWords(v.Level))
	return c
}

// levelWords is dpc watch's verdict level in the check-up's words.
func levelWords(level string) string {
	switch level {
	case dpcwatch.LevelBad:
		return "over 2 ms, drop-outs likely"
	case dpcwatch.LevelWarn:
		return "over 1 ms, drop-outs possible"
	case dpcwatch.LevelOK:
		return "under 1 ms, fine for real-time audio"
	}
	return level
}
