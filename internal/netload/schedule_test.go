package netload

import (
	"strings"
	"testing"

	"github.com/latlab/latlab/internal/stats"
)

// The schedule's verdict rests on the send lag's p99, which needs 368
// sends; with fewer it says what the largest lag shows.
func TestScheduleVerdict(t *testing.T) {
	for _, c := range []struct {
		lag   stats.Summary
		burst int64
		want  string
	}{
		{stats.Summary{Count: 5, P99: 115, Max: 115}, 0, "each of the 5 sends left within 100µs of its schedule; too few to judge the p99 (it needs 368)"},
		{stats.Summary{Count: 5, P99: 2_000_000, Max: 2_000_000}, 0, "too few sends to judge the schedule's p99: 5, it needs 368; the largest lag was 2ms"},
		{stats.Summary{Count: 367, P99: 150_000, Max: 150_000}, 0, "too few sends to judge the schedule's p99: 367"},
		{stats.Summary{Count: 368, P99: 80_000, Max: 700_000}, 0, "the generator held its schedule"},
		{stats.Summary{Count: 1280, P99: 150_000, Max: 900_000}, 0, "send lag p99 is over 100µs"},
		{stats.Summary{Count: 1280, P99: 150_000, Max: 900_000}, 100_000, "the generator held its schedule (sending in bursts at most every 100µs"},
		{stats.Summary{Count: 1280, P99: 1_500_000, Max: 3_000_000}, 0, "the generator fell behind its schedule (p99 send lag >= 1 ms)"},
	} {
		if got := ScheduleVerdict(c.lag, c.burst); !strings.HasPrefix(got, c.want) {
			t.Errorf("%+v, burst %d: %q, want %q", c.lag, c.burst, got, c.want)
		}
	}
}
