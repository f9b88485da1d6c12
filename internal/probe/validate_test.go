package probe

import (
	"testing"
	"time"

	"github.com/latlab/latlab/internal/testutil"
)

// WakeOptions.Validate holds for every caller (the check-up, try, the
// exporter), not only for the command line, and says what was wrong in
// the flag names of latlab wake.
func TestWakeOptionsValidate(t *testing.T) {
	ok := WakeOptions{Interval: time.Millisecond, Duration: time.Second, CPUs: []int{-1}}
	neg := -2
	zero := 0
	for _, c := range []struct {
		name string
		edit func(o *WakeOptions)
		want string // "" = valid
	}{
		{"valid", func(*WakeOptions) {}, ""},
		{"loops", func(o *WakeOptions) { o.Loops = -1 }, "invalid --loops -1"},
		{"rtprio", func(o *WakeOptions) { o.RTPrio = 100 }, "invalid --rtprio 100: accepted 0 (normal) or 1-99"},
		{"dma", func(o *WakeOptions) { o.DMALatency = &neg }, "invalid --dma-latency -2"},
		{"dma zero", func(o *WakeOptions) { o.DMALatency = &zero }, ""},
		{"short", func(o *WakeOptions) { o.Duration = 500 * time.Microsecond }, "--duration 500µs is shorter than --interval 1ms"},
		{"short with loops", func(o *WakeOptions) { o.Duration, o.Loops = 0, 10 }, ""},
		{"longest interval", func(o *WakeOptions) { o.Interval = time.Second }, ""},
		{"interval too long", func(o *WakeOptions) { o.Interval, o.Duration = 1500*time.Millisecond, time.Hour },
			"invalid --interval 1.5s: accepted up to 1s (Ctrl-C ends a run only after the wait in progress)"},
	} {
		o := ok
		c.edit(&o)
		testutil.CheckBadInput(t, c.name, o.Validate(), c.want)
	}
}

// A sleep longer than MaxWait is refused, in the flag names of latlab
// sleep; MaxWait itself is accepted.
func TestSleepOptionsValidateLength(t *testing.T) {
	method := SleepMethods()[0]
	for _, c := range []struct {
		d    time.Duration
		want string
	}{
		{time.Second, ""},
		{time.Hour, "invalid --sleep-length 3600s: accepted up to 1s (Ctrl-C ends a run only after the wait in progress)"},
		{-time.Millisecond, "invalid --sleep-length -1ms: must be positive"},
	} {
		testutil.CheckBadInput(t, c.d.String(), SleepOptions{Duration: c.d, Samples: 1, Method: method}.Validate(), c.want)
	}
}
