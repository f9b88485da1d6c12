package doctor

import (
	"fmt"
	"unsafe"

	"golang.org/x/sys/windows"

	"github.com/latlab/latlab/internal/sched"
	"github.com/latlab/latlab/internal/stats"
	"github.com/latlab/latlab/internal/timer"
	"github.com/latlab/latlab/internal/winapi"
)

func osTimerFacts(st timer.Status, o Options) []Fact {
	return WindowsTimerFacts(st, powerThrottling())
}

// processPowerThrottlingState is PROCESS_POWER_THROTTLING_STATE.
type processPowerThrottlingState struct {
	Version     uint32
	ControlMask uint32
	StateMask   uint32
}

// powerThrottling reads this process's power-throttling state
// (GetProcessInformation, ProcessPowerThrottling) before any probe opts
// out: it is what a program that never opts out gets.
func powerThrottling() string {
	st := processPowerThrottlingState{Version: 1}
	const processPowerThrottling = 4
	err := winapi.GetProcessInformation(windows.CurrentProcess(), processPowerThrottling,
		unsafe.Pointer(&st), uint32(unsafe.Sizeof(st)))
	if winapi.Missing(err) {
		return "unknown: kernel32.dll has no GetProcessInformation (Windows 8 and later have it)"
	}
	if err != nil {
		return fmt.Sprintf("unknown: GetProcessInformation(ProcessPowerThrottling): %v", err)
	}
	return PowerThrottlingMeaning(st.ControlMask, st.StateMask)
}

// SleepVerdict explains a Windows Sleep(1) overshoot: WindowsSleepVerdict.
func SleepVerdict(over stats.Summary, st timer.Status) string {
	return WindowsSleepVerdict(over, st)
}

// Cmdline is "" on Windows: it has no kernel command line to compare.
func Cmdline(string) string { return "" }

// numCPU is how many CPUs the per-CPU probe uses: every processor
// group's. Go counts only the group the process started in, and the
// probe pins its threads by latlab's numbering over all groups
// (sched.PinThread).
func numCPU() int { return sched.NumCPU() }
