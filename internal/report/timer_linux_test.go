package report

import (
	"strings"
	"testing"

	"github.com/latlab/latlab/internal/timer"
)

func TestTimerStatusLinux(t *testing.T) {
	yes := true
	var b strings.Builder
	TimerStatus(&b, &timer.Status{ClockResNs: 1, TimerSlackNs: 50_000, DefaultTimerSlackNs: 50_000, Clocksource: "tsc",
		AvailableClocksources: []string{"tsc", "hpet"}, Tickless: "idle", ConfigHZ: 250, HighResTimers: &yes,
		Warnings: []string{"the clocksource is not tsc"}})
	want := `clock_getres(CLOCK_MONOTONIC): 1ns
timer slack:   50µs (this thread), default 50µs; realtime threads have none
clocksource:   tsc (available: tsc hpet)
tick mode:     idle (CONFIG_NO_HZ_IDLE)
CONFIG_HZ:     250
high-resolution timers: built in (CONFIG_HIGH_RES_TIMERS=y)
warning: the clocksource is not tsc
`
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
}
