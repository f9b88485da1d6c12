package cli

import (
	"fmt"
	"io"
	"time"

	"github.com/latlab/latlab/internal/timer"
)

const resolutionHelp = "timer resolution to request for the run (NtSetTimerResolution), e.g. 0.5ms; 0 = none"

func clockName() string { return "QueryPerformanceCounter" }

func liveCall(method string, d time.Duration) string {
	switch method {
	case "sleep":
		return fmt.Sprintf("Sleep(%d)", d/time.Millisecond)
	case "ntdelay":
		return fmt.Sprintf("NtDelayExecution(%s)", timer.FormatMs(d))
	}
	return fmt.Sprintf("WaitableTimer(%s)", timer.FormatMs(d))
}

// liveLabel returns the appender of the first field of a --live line: the
// current system timer interval, queried for each line as MeasureSleep
// does, so that changes by other processes show. That is one
// NtQueryTimerResolution call and an append, no formatting garbage.
func liveLabel(*SleepOptions) func([]byte) []byte {
	return func(dst []byte) []byte {
		_, _, cur, err := timer.QueryResolution()
		if err != nil {
			return appendMsLabel(dst, "Resolution", -1)
		}
		return appendMsLabel(dst, "Resolution", float64(cur)/1e4)
	}
}

// scopeOf is st's request scope; documents written before latlab
// recorded it get it worked out from the same facts.
func scopeOf(st *timer.Status) timer.Scope {
	if st.Scope != nil {
		return *st.Scope
	}
	return timer.RequestScope(st.Build, st.Server != nil && *st.Server, st.GlobalValue)
}

func timerLine(st *timer.Status) string {
	why := "since build 19041 the current value does not prove this process gets it"
	if scopeOf(st).Global {
		why = "requests are global here, so it applies to every process"
	}
	return fmt.Sprintf("current %s, finest %s, coarsest %s (NtQueryTimerResolution; %s)",
		timer.FormatMs(time.Duration(st.Current100ns)*100), timer.FormatMs(time.Duration(st.Finest100ns)*100), timer.FormatMs(time.Duration(st.Coarsest100ns)*100), why)
}

func printTimerStatusOS(w io.Writer, st *timer.Status) {
	ms := func(u uint32) string { return fmt.Sprintf("%.4fms (%d x 100ns)", float64(u)/1e4, u) }
	fmt.Fprintf(w, "coarsest: %s\nfinest:   %s\ncurrent:  %s\n", ms(st.Coarsest100ns), ms(st.Finest100ns), ms(st.Current100ns))
	sc := scopeOf(st)
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
