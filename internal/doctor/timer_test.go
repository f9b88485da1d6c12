package doctor

import (
	"strings"
	"testing"

	"github.com/latlab/latlab/internal/timer"
)

func u32(n uint32) *uint32 { return &n }

// The timer rule of each build: the builds the Windows tests also run
// the audit on.
func TestTimerRule(t *testing.T) {
	cases := []struct {
		build  uint32
		server bool
		global *uint32
		want   string
	}{
		{17763, false, nil, "global: build 17763 predates Windows 10 2004 (19041)"},
		{17763, false, u32(1), "global: build 17763 predates"},
		{19041, false, nil, "per process (Windows 10 2004+, build"},
		{19041, false, u32(1), "GlobalTimerResolutionRequests=1 is ignored by build 19041"},
		{19041, false, u32(0), "per process (Windows 10 2004+, build"},
		{22621, false, nil, "per process (Windows 10 2004+, build"},
		{22621, false, u32(1), "global again: GlobalTimerResolutionRequests=1 is honoured on build 22621"},
		{20348, true, u32(1), "global again: GlobalTimerResolutionRequests=1 is honoured on build 20348"},
		{20348, false, u32(1), "is ignored by build 20348"}, // a client build number below Windows 11
		{0, false, nil, "unknown"},
	}
	for _, c := range cases {
		if got := TimerRule(c.build, c.server, c.global); !strings.HasPrefix(got, c.want) && !strings.Contains(got, c.want) {
			t.Errorf("build %d server %v global %v: %q, want %q", c.build, c.server, c.global, got, c.want)
		}
	}
}

func TestWindowsTimerFacts(t *testing.T) {
	server := false
	st := timer.Status{Coarsest100ns: 156250, Finest100ns: 5000, Current100ns: 10000, Build: 22621, Server: &server, GlobalValue: u32(1)}
	fs := WindowsTimerFacts(st, PowerThrottlingMeaning(0, 0))
	got := map[string]string{}
	for _, f := range fs {
		got[f.Name] = f.Value
	}
	for name, want := range map[string]string{
		"resolution":       "current 1ms, finest 0.5ms, coarsest 15.625ms",
		"held":             "yes: some process holds a request for 1ms",
		"build":            "22621 (client)",
		"timer rule":       "global again",
		"power throttling": "timer requests: Windows decides",
	} {
		if !strings.Contains(got[name], want) {
			t.Errorf("%s: %q, want %q", name, got[name], want)
		}
	}
	st.Build = 7601 // the Go runtime holds 1 ms itself there
	for _, f := range WindowsTimerFacts(st, "") {
		if f.Name == "held" && !strings.Contains(f.Value, "perhaps by latlab itself") {
			t.Errorf("build 7601: held %q", f.Value)
		}
	}
	// Before Windows 10 1709 there is no power throttling to read: the
	// error of asking is not the answer.
	for build, want := range map[uint32]string{
		7601:  "none: build 7601 predates process power throttling",
		15063: "none: build 15063 predates",
		16299: "timer requests: Windows decides",
	} {
		st.Build = build
		for _, f := range WindowsTimerFacts(st, PowerThrottlingMeaning(0, 0)) {
			if f.Name == "power throttling" && !strings.HasPrefix(f.Value, want) {
				t.Errorf("build %d: power throttling %q, want %q", build, f.Value, want)
			}
		}
	}
	st.Build = 7601
	st.Current100ns = st.Coarsest100ns
	for _, f := range WindowsTimerFacts(st, "") {
		if f.Name == "held" && !strings.HasPrefix(f.Value, "no") {
			t.Errorf("at the coarsest interval: held %q", f.Value)
		}
	}
}

func TestPowerThrottlingMeaning(t *testing.T) {
	for _, c := range []struct {
		control, state uint32
		want           string
	}{
		{0, 0, "timer requests: Windows decides"},
		{4, 0, "timer requests: always honoured (opted out of throttling)"},
		{4, 4, "timer requests: ignored while in the background (opted in)"},
		{1, 1, "execution speed: throttled"},
		{1, 0, "execution speed: never throttled"},
	} {
		if got := PowerThrottlingMeaning(c.control, c.state); !strings.Contains(got, c.want) {
			t.Errorf("control %x state %x: %q, want %q", c.control, c.state, got, c.want)
		}
	}
}

func TestLinuxTimerFacts(t *testing.T) {
	hr := true
	st := timer.Status{ClockResNs: 1, TimerSlackNs: 50000, DefaultTimerSlackNs: 50000, Clocksource: "tsc",
		AvailableClocksources: []string{"tsc", "hpet"}, Tickless: "idle", ConfigHZ: 250, HighResTimers: &hr}
	var lines []string
	for _, f := range LinuxTimerFacts(st, DMALatencyMeaning(2_000_000_000)) {
		lines = append(lines, f.Name+": "+f.Value)
	}
	got := strings.Join(lines, "\n")
	for _, want := range []string{"clock_getres: 1ns", "timer slack: 50µs (this thread; default 50µs", "clocksource: tsc (available: tsc hpet)",
		"tickless: idle (CONFIG_NO_HZ_IDLE)", "HZ: 250 (a tick every 4ms)", "high-res timers: built in (CONFIG_HIGH_RES_TIMERS=y)", "cpu_dma_latency: no request held"} {
		if !strings.Contains(got, want) {
			t.Errorf("facts lack %q:\n%s", want, got)
		}
	}
	for us, want := range map[int32]string{0: "held at 0 µs", 20: "held at 20 µs", 2_000_000_000: "no request held"} {
		if got := DMALatencyMeaning(us); !strings.Contains(got, want) {
			t.Errorf("%d: %q", us, got)
		}
	}
}
