package report

import (
	"fmt"
	"io"
	"time"

	"github.com/latlab/latlab/internal/textwrap"
	"github.com/latlab/latlab/internal/timer"
	"github.com/latlab/latlab/internal/units"
)

// timerStatusOS prints the facts of a Windows Status.
func timerStatusOS(w io.Writer, st *timer.Status) {
	ms := func(u uint32) string { return fmt.Sprintf("%.4fms (%d x 100ns)", float64(u)/1e4, u) }
	fmt.Fprintf(w, "coarsest: %s\nfinest:   %s\ncurrent:  %s\n", ms(st.Coarsest100ns), ms(st.Finest100ns), ms(st.Current100ns))
	if st.Current100ns > 0 {
		// The rule PC-Tuning and Bruce Dawson measured (timer.SleepTicks):
		// 0.5 ms gives 3 ticks, 1.5 ms; 0.5068 ms gives 2, 1.0136 ms.
		words, _ := timer.SleepPredictionOn(st.Build, time.Millisecond, time.Duration(st.Current100ns)*100)
		for i, l := range textwrap.Hanging("predicted: "+words, 0, 78) {
			if i > 0 {
				l = "  " + l
			}
			fmt.Fprintln(w, l)
		}
		fmt.Fprintf(w, "  (%s)\n", timer.SleepRuleNote(st.Build))
	}
	sc := st.EffectiveScope()
	if sc.Global {
		fmt.Fprintln(w, "note: current is the system-wide interval; with global requests it applies")
		fmt.Fprintln(w, "  to every process")
	} else {
		fmt.Fprintln(w, "note: current is the system-wide interval; it does not prove this process is")
		fmt.Fprintln(w, "  woken at that rate")
	}
	kind := "client"
	if st.Server != nil && *st.Server {
		kind = "server"
	}
	fmt.Fprintf(w, "build:    %d (%s)\n", st.Build, kind)
	for _, l := range sc.Lines() {
		fmt.Fprintln(w, l)
	}
}

// timerLine is the timer facts of a sleep or wake run in one line: on
// Windows the system timer interval now, its range, and whether it
// reaches this process (documents written before latlab recorded the
// scope get it worked out from the same facts).
func timerLine(st *timer.Status) string {
	why := "since build 19041 the current value does not prove this process gets it"
	if st.EffectiveScope().Global {
		why = "requests are global here, so it applies to every process"
	}
	return fmt.Sprintf("current %s, finest %s, coarsest %s (NtQueryTimerResolution; %s)",
		units.MsPrecise(time.Duration(st.Current100ns)*100), units.MsPrecise(time.Duration(st.Finest100ns)*100), units.MsPrecise(time.Duration(st.Coarsest100ns)*100), why)
}

// LiveCall names the measured call in a --live line as MeasureSleep
// does: "Sleep(1)" (whole ms, as Sleep takes them), else the call and the
// request in ms.
func LiveCall(method string, d time.Duration) string {
	switch method {
	case "sleep":
		return fmt.Sprintf("Sleep(%d)", d/time.Millisecond)
	case "ntdelay":
		return fmt.Sprintf("NtDelayExecution(%s)", units.MsPrecise(d))
	}
	return fmt.Sprintf("WaitableTimer(%s)", units.MsPrecise(d))
}
