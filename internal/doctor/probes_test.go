package doctor

import (
	"strings"
	"testing"
	"time"

	"github.com/latlab/latlab/internal/knob"
	"github.com/latlab/latlab/internal/stats"
)

func TestWakeVerdict(t *testing.T) {
	us := int64(time.Microsecond)
	cases := []struct {
		s        stats.Summary
		overruns int64
		band     string
		want     string
	}{
		{stats.Summary{Count: 1000, P99: 150 * us, Max: 5000 * us}, 0, "poor", "poor: some wake-ups came later than a 240 Hz frame (4 ms)"},
		{stats.Summary{Count: 1000, P99: 150 * us, Max: 5000 * us}, 2, "poor", "poor: some wake-ups came later than a 240 Hz frame (4 ms)"},
		// Missed periods with nothing near 4 ms late: their own message.
		{stats.Summary{Count: 1000, P99: 150 * us, Max: 1500 * us}, 1, "mediocre", "mediocre: 1 missed period: some wake-ups (up to 1.5ms late) came after the next 1ms deadline had passed"},
		{stats.Summary{Count: 1000, P99: 1500 * us, Max: 3000 * us}, 0, "mediocre", "mediocre: 1 in 100 wake-ups is over 1 ms late"},
		{stats.Summary{Count: 1000, P99: 300 * us, Max: 900 * us}, 0, "fair", "fair:"},
		{stats.Summary{Count: 1000, P99: 150 * us, Max: 900 * us}, 0, "good", "good:"},
		{stats.Summary{Count: 368, P99: 150 * us, Max: 900 * us}, 0, "good", "good:"},
		// Too few wake-ups for a p99 (it is the maximum): no band of the
		// tail, however good or bad the few look; a wake-up past 4 ms or
		// a missed period is evidence at any count.
		{stats.Summary{Count: 3, P99: 70 * us, Max: 70 * us}, 0, TooFewBand, "too few wake-ups to judge the tail: 3 measured, p99 needs at least 368 (a longer run); none missed its period, the latest was 70µs late"},
		{stats.Summary{Count: 367, P99: 300 * us, Max: 300 * us}, 0, TooFewBand, "too few wake-ups to judge the tail: 367 measured"},
		{stats.Summary{Count: 50, P99: 1500 * us, Max: 1500 * us}, 0, TooFewBand, "too few wake-ups to judge the tail: 50 measured"},
		{stats.Summary{Count: 3, P99: 150 * us, Max: 1500 * us}, 1, "mediocre", "mediocre: 1 missed period"},
		{stats.Summary{Count: 0, Max: 5000 * us}, 0, "poor", "poor:"},
	}
	for _, c := range cases {
		band, got := WakeVerdict(c.s, c.overruns, time.Millisecond)
		if band != c.band || !strings.HasPrefix(got, c.want) {
			t.Errorf("n %d p99 %d max %d overruns %d: %s %q, want %s %q", c.s.Count, c.s.P99, c.s.Max, c.overruns, band, got, c.band, c.want)
		}
		if c.s.Max <= 4000*us && strings.Contains(got, "4 ms") {
			t.Errorf("max %d, yet the verdict speaks of 4 ms: %q", c.s.Max, got)
		}
	}
}

// The next steps: at most five, the most beneficial first, each command
// once, a poor wake probe's first.
func TestNextSteps(t *testing.T) {
	r := &Result{Profile: Standard, Wake: &Probe{Band: "poor"}}
	for _, id := range []string{"nti-off", "tsc-set", "im-off", "rack-off", "dsack-off", "gtrr-ignored"} {
		for _, rule := range Rules {
			if rule.ID == id {
				c := &knob.Case{Knob: rule.Knob, Target: "0007 adapter", Raw: knobAbsent()}
				s := Setting{next: (*Step)(rule.Next(c))}
				r.Settings = append(r.Settings, s)
			}
		}
	}
	steps := NextSteps(r)
	if len(steps) != MaxSteps {
		t.Fatalf("%d steps: %+v", len(steps), steps)
	}
	// Late wake-ups lead to their cause first: wake --explain (with sudo,
	// the check-up having traced nothing), then a longer run.
	if steps[0].Command != "sudo latlab wake --explain" || steps[1].Command != "latlab wake --duration 60s" ||
		steps[2].Command != "latlab knob set tcp-recovery 1" {
		t.Errorf("order %+v", steps)
	}
	r.Cause = &Cause{Source: "tracefs"}
	if s := NextSteps(r); s[0].Command != "latlab wake --explain" {
		t.Errorf("as root: %+v", s[0])
	}
	r.OS = "windows"
	if s := NextSteps(r); s[0].Command != "latlab dpc watch" || !strings.Contains(s[0].Why, "administrator") {
		t.Errorf("windows: %+v", s[0])
	}
	r.OS, r.Wake.Band = "linux", "good"
	for _, s := range NextSteps(r) {
		if strings.Contains(s.Command, "--explain") {
			t.Errorf("timely wake-ups lead to their cause: %+v", s)
		}
	}
	seen := map[string]bool{}
	for i, s := range steps {
		if seen[s.Command] || (i > 0 && s.Benefit > steps[i-1].Benefit) || s.Why == "" {
			t.Errorf("step %d %+v", i, s)
		}
		seen[s.Command] = true
	}
	// A machine with nothing to fix still gets something to do.
	if s := NextSteps(&Result{Profile: Thorough}); len(s) == 0 || s[0].Command != "latlab wake --duration 60s" {
		t.Errorf("nothing found: %+v", s)
	}
}
