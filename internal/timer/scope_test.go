package timer

import (
	"strings"
	"testing"
)

func TestRequestScope(t *testing.T) {
	u := func(v uint32) *uint32 { return &v }
	tests := []struct {
		name   string
		build  uint32
		server bool
		key    *uint32
		global bool
		reason string
		lines  []string // each must appear in the text
		not    []string // none may
	}{
		{"1909", 18363, false, nil, true, "before-2004",
			[]string{"global (before Windows 10 2004)", "GlobalTimerResolutionRequests: absent; it has no effect on this build"}, []string{"per-process"}},
		{"Server 2019 with the key", 17763, true, u(1), true, "before-2004",
			[]string{"global (before Windows 10 2004)", "set to 1; it has no effect on this build"}, nil},
		{"Windows 10 22H2", 19045, false, nil, false, "per-process",
			[]string{"per-process (Windows 10 2004+)", "absent; it has no effect on this build", "Windows 11 22000+ and Server 2022 20348+"}, []string{"brings back"}},
		{"Windows 10 22H2, key set", 19045, false, u(1), false, "per-process",
			[]string{"per-process", "set to 1; it has no effect on this build"}, []string{"brings back"}},
		{"Windows 11, key absent", 22631, false, nil, false, "per-process",
			[]string{"per-process", "GlobalTimerResolutionRequests: absent; 1 and a restart bring back the global", "Server 2022 ships with it set to 1"}, []string{"no effect"}},
		{"Windows 11, key 0", 22631, false, u(0), false, "per-process",
			[]string{"per-process", "GlobalTimerResolutionRequests: 0; 1 and a restart"}, nil},
		{"Windows 11, key 1", 22631, false, u(1), true, "global-key",
			[]string{"GlobalTimerResolutionRequests=1 brings back the", "pre-2004 behaviour", "Server 2022 ships with it set to 1", "read at boot"},
			[]string{"per-process", "made it"}},
		{"Windows 11 22000 exactly, key 1", 22000, false, u(1), true, "global-key", nil, nil},
		{"client build 20348 is not Server 2022", 20348, false, u(1), false, "per-process", []string{"no effect"}, nil},
		{"Server 2022, as shipped", 20348, true, u(1), true, "global-key", []string{"=1 brings back"}, nil},
		{"Server 2022, key removed", 20348, true, nil, false, "per-process", []string{"absent; 1 and a restart"}, nil},
		{"any non-zero value is on", 26100, false, u(2), true, "global-key", []string{"GlobalTimerResolutionRequests=2"}, nil},
	}
	for _, tc := range tests {
		s := RequestScope(tc.build, tc.server, tc.key)
		if s.Global != tc.global || s.Reason != tc.reason {
			t.Errorf("%s: global %v reason %s, want %v %s", tc.name, s.Global, s.Reason, tc.global, tc.reason)
		}
		lines := s.Lines()
		text := strings.Join(lines, "\n")
		for _, w := range tc.lines {
			if !strings.Contains(text, w) {
				t.Errorf("%s: text lacks %q:\n%s", tc.name, w, text)
			}
		}
		for _, w := range tc.not {
			if strings.Contains(text, w) {
				t.Errorf("%s: text has %q:\n%s", tc.name, w, text)
			}
		}
		for _, l := range lines {
			if len(l) > 80 {
				t.Errorf("%s: line wider than 80 columns: %q", tc.name, l)
			}
		}
	}
}

// GlobalTimerResolutionRequests=1 does not make every request global:
// PC-Tuning measured Sleep(1) falling back to 15.6 ms once the requester
// was minimised on Windows 11 22H2 with the key set, until it opted out
// with PROCESS_POWER_THROTTLING_IGNORE_TIMER_RESOLUTION ("Fixing Timing
// Precision in Windows After The Great Rule Change",
// https://github.com/valleyofdoom/PC-Tuning/blob/main/docs/research.md).
// The explanations said "as before Windows 10 2004" with no caveat.
func TestGlobalKeyMeaningHasTheOccludedCaveat(t *testing.T) {
	one := uint32(1)
	for _, got := range []string{GlobalRequestsMeaning(22631, false, &one), GlobalRequestsMeaning(0, false, &one),
		strings.Join(RequestScope(22631, false, &one).Lines(), " ")} {
		if !strings.Contains(got, "minimised or hidden requester still falls back to 15.625 ms") ||
			!strings.Contains(got, "PROCESS_POWER_THROTTLING_IGNORE_TIMER_RESOLUTION") {
			t.Errorf("no caveat: %q", got)
		}
	}
	for _, l := range RequestScope(22631, false, &one).Lines() {
		if len(l) > 80 {
			t.Errorf("wider than 80: %q", l)
		}
	}
}

// Bruce Dawson: after Windows 10 2004 "There is still an effect" of one
// process's request on another's sleeps (research 002:2): Sleep(1) took
// about 12 ms with another process at timeBeginPeriod(6), and one or two
// intervals at 8 ms (002:42-43); timeBeginPeriod still sets the global
// timer interrupt interval (002:36). The per-process wording said only
// the requester was affected.
func TestPerProcessMeaningSaysWhatStillChanges(t *testing.T) {
	zero := uint32(0)
	one := uint32(1)
	for _, got := range []string{GlobalRequestsMeaning(19045, false, nil), GlobalRequestsMeaning(0, false, nil),
		GlobalRequestsMeaning(19045, false, &one), GlobalRequestsMeaning(22631, false, &zero),
		strings.Join(strings.Fields(strings.Join(RequestScope(19045, false, nil).Lines(), " ")), " ")} {
		for _, want := range []string{"still sets the system's timer interrupt", "12 ms at a 6 ms interval, 8 or 16 ms at 8 ms"} {
			if !strings.Contains(got, want) {
				t.Errorf("lacks %q: %q", want, got)
			}
		}
		if strings.Contains(got, "only speeds up") {
			t.Errorf("says only the requester is affected: %q", got)
		}
	}
}
