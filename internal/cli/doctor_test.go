package cli

import (
	"strings"
	"testing"
	"time"

	"github.com/latlab/latlab/internal/stats"
)

func TestWakeVerdict(t *testing.T) {
	us := int64(time.Microsecond)
	cases := []struct {
		s        stats.Summary
		overruns int64
		want     string
	}{
		{stats.Summary{P99: 150 * us, Max: 5000 * us}, 0, "poor: some wake-ups came later than a 240 Hz frame (4 ms)"},
		{stats.Summary{P99: 150 * us, Max: 5000 * us}, 2, "poor: some wake-ups came later than a 240 Hz frame (4 ms)"},
		// Missed periods with nothing near 4 ms late: their own message.
		{stats.Summary{P99: 150 * us, Max: 1500 * us}, 1, "mediocre: 1 missed periods: some wake-ups (up to 1.5ms late) came after the next 1ms deadline had passed"},
		{stats.Summary{P99: 1500 * us, Max: 3000 * us}, 0, "mediocre: 1 in 100 wake-ups is over 1 ms late"},
		{stats.Summary{P99: 300 * us, Max: 900 * us}, 0, "fair:"},
		{stats.Summary{P99: 150 * us, Max: 900 * us}, 0, "good:"},
	}
	for _, c := range cases {
		got := wakeVerdict(c.s, c.overruns, time.Millisecond)
		if !strings.HasPrefix(got, c.want) {
			t.Errorf("p99 %d max %d overruns %d: %q, want it to start %q", c.s.P99, c.s.Max, c.overruns, got, c.want)
		}
		if c.s.Max <= 4000*us && strings.Contains(got, "4 ms") {
			t.Errorf("max %d, yet the verdict speaks of 4 ms: %q", c.s.Max, got)
		}
	}
}

// The check-up runs end to end: timer, sleep, wake, overhead and the
// suggested next commands, in that order.
func TestDoctor(t *testing.T) {
	code, out, errs := runCLI(t, "doctor")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	last := -1
	for _, want := range []string{"latlab check-up", "\ntimer: ", "\nsleep: asking ", "\nwake: a 1ms periodic wake-up, ", "\ntool overhead: clock read ", "\nnext: `latlab sleep --live`"} {
		i := strings.Index(out, want)
		if i <= last {
			t.Fatalf("output lacks %q after byte %d:\n%s", want, last, out)
		}
		last = i
	}
	for _, verdict := range []string{"good:", "fair:", "mediocre:", "poor:"} {
		if strings.Contains(out, "\n  "+verdict) {
			return
		}
	}
	t.Errorf("no wake verdict:\n%s", out)
}
