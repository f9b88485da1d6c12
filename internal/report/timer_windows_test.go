package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/latlab/latlab/internal/timer"
)

// timer status predicts Sleep(1) with the rule PC-Tuning measured
// ("Micro-Adjusting Timer Resolution for Higher Precision",
// https://github.com/valleyofdoom/PC-Tuning/blob/main/docs/research.md):
// 1.497 ms at 0.4992 ms, 1.012 ms at 0.5068 ms.
func TestTimerStatusPredictsSleep1(t *testing.T) {
	for _, c := range []struct {
		current uint32
		want    string
	}{
		{4992, "predicted: Sleep(1) at 0.4992 ms lasts 3 ticks = 1.4976 ms"},
		{5068, "predicted: Sleep(1) at 0.5068 ms lasts 2 ticks = 1.0136 ms"},
	} {
		var b bytes.Buffer
		TimerStatus(&b, &timer.Status{Coarsest100ns: 156250, Finest100ns: 5000, Current100ns: c.current, Build: 22631})
		if !strings.Contains(b.String(), c.want) {
			t.Errorf("missing %q in\n%s", c.want, b.String())
		}
	}
}

// timer status says when GlobalTimerResolutionRequests brings the global
// behaviour back, instead of the per-process line, and when the key has
// no effect.
func TestTimerStatusGlobalKeyWindows(t *testing.T) {
	u := func(v uint32) *uint32 { return &v }
	b := func(v bool) *bool { return &v }
	tests := []struct {
		build     uint32
		server    bool
		key       *uint32
		want, not []string
	}{
		{22631, false, u(1), []string{"timer requests: global: GlobalTimerResolutionRequests=1", "pre-2004 behaviour", "Server 2022 ships with it set to 1", "with global requests it applies"},
			[]string{"per-process", "does not prove"}},
		{20348, true, u(1), []string{"timer requests: global: GlobalTimerResolutionRequests=1"}, []string{"per-process"}},
		{22631, false, nil, []string{"per-process", "absent; 1 and a restart", "Server 2022 ships with it set to 1"}, []string{"no effect"}},
		{19045, false, u(1), []string{"per-process", "set to 1; it has no effect on this build"}, []string{"brings back"}},
		{18363, false, nil, []string{"global (before Windows 10 2004)", "no effect on this build"}, []string{"per-process"}},
	}
	for _, tc := range tests {
		st := timer.Status{Coarsest100ns: 156250, Finest100ns: 5000, Current100ns: 10000, Build: tc.build, Server: b(tc.server), GlobalValue: tc.key}
		var sb strings.Builder
		TimerStatus(&sb, &st)
		out := sb.String()
		for _, w := range tc.want {
			if !strings.Contains(out, w) {
				t.Errorf("build %d key %v: lacks %q:\n%s", tc.build, tc.key, w, out)
			}
		}
		for _, w := range tc.not {
			if strings.Contains(out, w) {
				t.Errorf("build %d key %v: has %q:\n%s", tc.build, tc.key, w, out)
			}
		}
		for _, l := range strings.Split(out, "\n") {
			if len(l) > 80 {
				t.Errorf("line wider than 80 columns: %q", l)
			}
		}
	}
}
