package report

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/latlab/latlab/internal/timer"
	"github.com/latlab/latlab/internal/units"
)

// timerStatusOS prints the facts of a Linux Status.
func timerStatusOS(w io.Writer, st *timer.Status) {
	fmt.Fprintf(w, "clock_getres(CLOCK_MONOTONIC): %dns\n", st.ClockResNs)
	fmt.Fprintf(w, "timer slack:   %s (this thread), default %s; realtime threads have none\n", units.Duration(time.Duration(st.TimerSlackNs)), units.Duration(time.Duration(st.DefaultTimerSlackNs)))
	fmt.Fprintf(w, "clocksource:   %s (available: %s)\n", st.Clocksource, strings.Join(st.AvailableClocksources, " "))
	if st.Tickless != "" {
		tick := st.Tickless
		if c := timer.TickConfig(tick); c != "" {
			tick += " (" + c + ")"
		}
		fmt.Fprintf(w, "tick mode:     %s\n", tick)
	}
	if st.NohzFullCPUs != "" {
		fmt.Fprintf(w, "nohz_full:     %s\n", st.NohzFullCPUs)
	}
	if st.ConfigHZ > 0 {
		fmt.Fprintf(w, "CONFIG_HZ:     %d\n", st.ConfigHZ)
	}
	if st.HighResTimers != nil {
		fmt.Fprintf(w, "high-resolution timers: %s\n", timer.HighResConfig(*st.HighResTimers))
	}
}

// timerLine is the timer facts of a sleep or wake run in one line: on
// Linux the clock's resolution, this thread's slack, the clocksource and
// the tick.
func timerLine(st *timer.Status) string {
	s := fmt.Sprintf("clock_getres %dns, timer slack %s (this thread), clocksource %s", st.ClockResNs, units.Ns(st.TimerSlackNs), st.Clocksource)
	if st.Tickless != "" {
		s += ", tickless " + st.Tickless
	}
	if st.ConfigHZ > 0 {
		s += fmt.Sprintf(", CONFIG_HZ=%d", st.ConfigHZ)
	}
	return s
}

// LiveCall names the measured call in a --live line: the method and the
// request in ms, "nanosleep(1ms)".
func LiveCall(method string, d time.Duration) string {
	return fmt.Sprintf("%s(%s)", method, units.MsPrecise(d))
}
