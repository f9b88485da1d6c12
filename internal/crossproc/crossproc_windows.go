package crossproc

import (
	"fmt"
	"time"

	"github.com/latlab/latlab/internal/timer"
)

const requesterName = "timeBeginPeriod/timeEndPeriod (winmm.dll)"

// request calls timeBeginPeriod with whole milliseconds, as Dawson's test
// and most programs do, and reports NtQueryTimerResolution's current
// interval afterwards as what was granted system-wide.
func request(d time.Duration) (time.Duration, func(), error) {
	ms := uint32((d + time.Millisecond/2) / time.Millisecond)
	if ms == 0 || time.Duration(ms)*time.Millisecond != d {
		return 0, nil, fmt.Errorf("timeBeginPeriod takes whole milliseconds; %s is not", d)
	}
	if err := timer.TimeBeginPeriod(ms); err != nil {
		return 0, nil, err
	}
	_, _, cur, err := timer.QueryResolution()
	granted := time.Duration(cur) * 100
	if err != nil {
		granted = 0
	}
	return granted, func() { _ = timer.TimeEndPeriod(ms) }, nil
}

// readings are NtQueryTimerResolution's current (system-wide) interval and
// the granularity of this process's timeGetTime, measured over 100 ms.
func readings() (currentNs, timeGetTimeNs int64) {
	if _, _, cur, err := timer.QueryResolution(); err == nil {
		currentNs = int64(cur) * 100
	}
	if g, err := timer.TimeGetTimeGranularity(100 * time.Millisecond); err == nil {
		timeGetTimeNs = g.Nanoseconds()
	}
	return currentNs, timeGetTimeNs
}

// HostFacts are the facts the verdict's wording depends on.
func HostFacts() Facts {
	st, err := timer.Query()
	if err != nil {
		return Facts{Windows: true}
	}
	return Facts{Windows: true, Build: st.Build, GlobalSetting: st.GlobalValue}
}
