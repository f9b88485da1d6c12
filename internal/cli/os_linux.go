package cli

import (
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/latlab/latlab/internal/report"
	"github.com/latlab/latlab/internal/timer"
)

const resolutionHelp = "timer slack to request for the measuring thread (PR_SET_TIMERSLACK), e.g. 1us; 0 = leave as is"

func clockName() string { return "CLOCK_MONOTONIC" }

// liveLabel returns the appender of the first field of a --live line: the
// measuring thread's timer slack. It cannot change during a run (only the
// thread itself sets it), so it is worked out once, before the first
// sample: the lines are printed while the probe measures, with the garbage
// collector off, and must not cost more than the append.
func liveLabel(o *SleepOptions) func([]byte) []byte {
	slack := 50 * time.Microsecond
	if st, err := timer.Query(); err == nil && st.DefaultTimerSlackNs > 0 {
		slack = time.Duration(st.DefaultTimerSlackNs)
	}
	if o.Resolution > 0 {
		slack = o.Resolution
	}
	if o.Priority == "realtime" {
		slack = 0 // the kernel ignores slack for realtime threads
	}
	label := report.AppendLiveLabel(nil, "Slack", float64(slack)/1e6)
	return func(dst []byte) []byte { return append(dst, label...) }
}

// dieBy ends the process by sig, as if latlab had not caught it, so that
// a shell sees the signal (bash stops a script on a child's SIGINT). If
// the signal was ignored when latlab started, it exits 128+sig instead.
func dieBy(sig os.Signal) {
	s, ok := sig.(syscall.Signal)
	if !ok {
		os.Exit(1)
	}
	signal.Reset(s)
	_ = syscall.Kill(os.Getpid(), s)
	time.Sleep(100 * time.Millisecond)
	os.Exit(128 + int(s))
}

// dpcWatchPrivilege says what the watch needs when it is refused.
const dpcWatchPrivilege = "dpc watch needs root: it traces interrupt events through tracefs"

// dpcWatchWhat is the watch's start line's subject.
func dpcWatchWhat(session string) string {
	return fmt.Sprintf("tracing hard interrupts and softirqs (tracefs instance %q)", session)
}

// explainRefusal is why wake and noise --explain cannot run here ("" where
// it can).
const explainRefusal = ""
