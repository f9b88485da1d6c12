package report

import (
	"bytes"
	"testing"

	"github.com/sebdah/goldie/v2"
)

// The --live line is MeasureSleep's printf("Resolution: %lfms, Sleep(1)
// slept %lfms (delta: %lf)\n") to the character, so scripts that parse
// MeasureSleep read latlab's lines.
func TestLiveLineMeasureSleepFormat(t *testing.T) {
	tests := []struct {
		name       string
		res        float64 // label ms; negative: unreadable
		call       string
		slept, req int64
		labelName  string
	}{
		{"issue example", 0.4992, "Sleep(1)", 15_510_000, 1_000_000, "Resolution"},
		{"default interval", 15.625, "Sleep(1)", 15_623_412, 1_000_000, "Resolution"},
		{"0.5 ms granted", 0.5, "Sleep(1)", 1_496_800, 1_000_000, "Resolution"},
		{"woke early", 0.5, "Sleep(2)", 1_999_999, 2_000_000, "Resolution"},
		{"sub-microsecond", 1, "WaitableTimer(0.5ms)", 500_001, 500_000, "Resolution"},
		{"unreadable", -1, "Sleep(1)", 1_000_000, 1_000_000, "Resolution"},
		{"linux slack", 0.05, "nanosleep(1ms)", 1_069_300, 1_000_000, "Slack"},
	}
	var b bytes.Buffer
	for _, tc := range tests {
		b.Write(AppendLiveLine(AppendLiveLabel(nil, tc.labelName, tc.res), tc.call, tc.slept, tc.req))
	}
	goldie.New(t).Assert(t, "live-measuresleep", b.Bytes())
	// The exact line the research's MeasureSleep prints for these numbers.
	line := string(AppendLiveLine(AppendLiveLabel(nil, "Resolution", 4992/1e4), "Sleep(1)", 15_510_000, 1_000_000))
	if want := "Resolution: 0.499200ms, Sleep(1) slept 15.510000ms (delta: 14.510000)\n"; line != want {
		t.Errorf("got %q, want %q", line, want)
	}
	buf := make([]byte, 0, 128)
	if a := testing.AllocsPerRun(100, func() {
		buf = AppendLiveLine(AppendLiveLabel(buf[:0], "Resolution", 0.4992), "Sleep(1)", 15_510_000, 1_000_000)
	}); a != 0 {
		t.Errorf("a live line allocates %.1f times", a)
	}
}
