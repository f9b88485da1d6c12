package cli

import (
	"fmt"
	"os"

	"github.com/latlab/latlab/internal/dpcwatch"
	"github.com/latlab/latlab/internal/report"
	"github.com/latlab/latlab/internal/timer"
)

const resolutionHelp = "timer resolution to request for the run (NtSetTimerResolution), e.g. 0.5ms; 0 = none"

func clockName() string { return "QueryPerformanceCounter" }

// liveLabel returns the appender of the first field of a --live line: the
// current system timer interval, queried for each line as MeasureSleep
// does, so that changes by other processes show. That is one
// NtQueryTimerResolution call and an append, no formatting garbage.
func liveLabel(*SleepOptions) func([]byte) []byte {
	return func(dst []byte) []byte {
		_, _, cur, err := timer.QueryResolution()
		if err != nil {
			return report.AppendLiveLabel(dst, "Resolution", -1)
		}
		return report.AppendLiveLabel(dst, "Resolution", float64(cur)/1e4)
	}
}

// dieBy ends the process after a second Ctrl-C with the status Windows
// gives a process ended by Ctrl-C (STATUS_CONTROL_C_EXIT).
func dieBy(os.Signal) {
	// The NTSTATUS does not fit a 32-bit int as a constant; through int32
	// it does, and ExitProcess takes the same 32 bits back as a UINT.
	status := uint32(statusControlCExit)
	os.Exit(int(int32(status)))
}

// statusControlCExit is STATUS_CONTROL_C_EXIT (winnt.h; scripts/windows-abi checks it).
const statusControlCExit = 0xC000013A

// dpcWatchPrivilege says what the watch needs when it is refused.
const dpcWatchPrivilege = "dpc watch needs an elevated (Administrator) prompt: a kernel trace session is a privileged operation"

// dpcWatchWhat is the watch's start line's subject.
func dpcWatchWhat(session string) string {
	return fmt.Sprintf("tracing DPCs and ISRs (session %q, flags %s)", session, dpcwatch.FlagNames)
}

// explainRefusal is why wake and noise --explain cannot run here ("" where
// it can).
const explainRefusal = "--explain is Linux-only for now (it reads scheduler and interrupt events through tracefs)"
