package cli

import (
	"fmt"
	"io"
	"strconv"
	"time"

	"github.com/latlab/latlab/internal/timer"
)

const resolutionHelp = "timer resolution to request for the run (NtSetTimerResolution), e.g. 0.5ms; 0 = none"

func clockName() string { return "QueryPerformanceCounter" }

func liveCall(method string, d time.Duration) string {
	switch method {
	case "sleep":
		return fmt.Sprintf("Sleep(n=%d)", d/time.Millisecond)
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
		dst = append(dst, "Resolution: "...)
		_, _, cur, err := timer.QueryResolution()
		if err != nil {
			return append(dst, '?')
		}
		dst = strconv.AppendFloat(dst, float64(cur)/1e4, 'f', 4, 64)
		return append(dst, "ms"...)
	}
}

func timerLine(st *timer.Status) string {
	return fmt.Sprintf("current %s, finest %s, coarsest %s (NtQueryTimerResolution; since build 19041 the current value does not prove this process gets it)",
		timer.FormatMs(time.Duration(st.Current100ns)*100), timer.FormatMs(time.Duration(st.Finest100ns)*100), timer.FormatMs(time.Duration(st.Coarsest100ns)*100))
}

func printTimerStatusOS(w io.Writer, st *timer.Status) {
	ms := func(u uint32) string { return fmt.Sprintf("%.4fms (%d x 100ns)", float64(u)/1e4, u) }
	fmt.Fprintf(w, "coarsest: %s\nfinest:   %s\ncurrent:  %s\n", ms(st.Coarsest100ns), ms(st.Finest100ns), ms(st.Current100ns))
	fmt.Fprintln(w, "note: current is the system-wide interval; it does not prove this process is woken at that rate")
	kind := "client"
	if st.Server != nil && *st.Server {
		kind = "server"
	}
	fmt.Fprintf(w, "build:    %d (%s)\n", st.Build, kind)
	if st.PerProcessRule != nil && *st.PerProcessRule {
		fmt.Fprintln(w, "per-process timer resolution (Windows 10 2004+): a request only speeds up the process that made it")
	} else {
		fmt.Fprintln(w, "global timer resolution (before Windows 10 2004): any process's request speeds up every process")
	}
	switch {
	case st.GlobalSupported == nil || !*st.GlobalSupported:
		fmt.Fprintln(w, "GlobalTimerResolutionRequests: not available on this build (needs Windows 11 22000+ or Server 2022 20348+)")
	case st.GlobalValue == nil:
		fmt.Fprintln(w, "GlobalTimerResolutionRequests: supported, not set")
	default:
		fmt.Fprintf(w, "GlobalTimerResolutionRequests: %d\n", *st.GlobalValue)
	}
}
