package doctor

import (
	"testing"

	"github.com/latlab/latlab/internal/stats"
	"github.com/latlab/latlab/internal/timer"
)

// The Linux sleep verdict quotes the overshoot it explains, and names
// the causes it cannot tell apart instead of asserting one.
func TestLinuxSleepVerdictQuotesTheOvershoot(t *testing.T) {
	for _, c := range []struct {
		slack, p50 int64
		want       string
	}{
		{50_000, 68_000, "most of the overshoot is the 50µs timer slack of normal threads; `latlab timer set 1us -- CMD` or realtime priority removes it"},
		{1_000, 12_000, "sleeps end close to the requested time (overshoot p50 12µs)"},
		{1_000, 23_167, "sleeps overshoot by more than the 1µs timer slack explains (p50 23.167µs): the rest is the wake-up itself (its own cost, see tool overhead; a busy CPU; a slow exit from an idle state)"},
		{0, 40_000, "sleeps overshoot by 40µs (p50) with no timer slack (a realtime thread): the wake-up itself"},
	} {
		got := SleepVerdict(stats.Summary{Count: 100, P50: c.p50}, timer.Status{TimerSlackNs: c.slack})
		if len(got) < len(c.want) || got[:len(c.want)] != c.want {
			t.Errorf("slack %d p50 %d: %q, want %q", c.slack, c.p50, got, c.want)
		}
	}
}
