package doctor

import (
	"fmt"
	"unsafe"

	"golang.org/x/sys/windows"

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
		return "unknown: " + err.Error()
	}
	if err != nil {
		return fmt.Sprintf("unknown: GetProcessInformation(ProcessPowerThrottling): %v", err)
	}
	return PowerThrottlingMeaning(st.ControlMask, st.StateMask)
}

// SleepVerdict explains a Windows Sleep(1) overshoot in terms of the
// timer interval: Sleep rounds up to whole ticks.
func SleepVerdict(over stats.Summary, st timer.Status) string {
	cur := int64(st.Current100ns) * 100
	switch {
	case cur > 0 && over.P50 > cur/2:
		return fmt.Sprintf("Sleep(1) is rounded up to the %.4f ms timer interval; a resolution request (latlab timer set 0.5ms) shortens it", float64(cur)/1e6)
	case over.P50 > 400_000:
		return "Sleep(1) takes about 1.5 ms: the classic 0.5 ms resolution effect; try `latlab sweep` to find a request such as 0.5068ms that gives ~1.0 ms"
	}
	return "Sleep(1) ends close to 1 ms"
}
