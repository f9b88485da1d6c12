package probe

import (
	"fmt"
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
		// Every wake-up is kept in a buffer allocated before the run: a
		// count beyond MaxSamples crashed the process out of memory.
		{"loops at the bound", func(o *WakeOptions) { o.Loops = MaxSamples }, ""},
		{"loops too many", func(o *WakeOptions) { o.Loops = 2000000000 },
			"invalid --loops 2000000000: accepted up to 134217728 wake-ups per thread with 1 thread(s)"},
		{"loops too many for two threads", func(o *WakeOptions) { o.Loops, o.CPUs = MaxSamples, []int{0, 1} },
			"accepted up to 67108864 wake-ups per thread with 2 thread(s)"},
		{"loops too many with deadlines", func(o *WakeOptions) { o.Loops, o.KeepDeadlines = MaxSamples, true },
			"accepted up to 67108864 wake-ups per thread"},
		{"duration too long", func(o *WakeOptions) { o.Duration = 1000 * time.Hour },
			"invalid --duration 3600000s: accepted up to 134217.727s at --interval 1ms with 1 thread(s)"},
		{"duration huge at 1us", func(o *WakeOptions) { o.Interval, o.Duration = time.Microsecond, 100000*time.Hour },
			"invalid --duration 360000000s"},
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

// Every sample is kept in a buffer allocated before the run: a count
// beyond MaxSamples crashed the process out of memory.
func TestSleepOptionsValidateSamples(t *testing.T) {
	method := SleepMethods()[0]
	for _, c := range []struct {
		n    int
		want string
	}{
		{0, ""},
		{MaxSamples, ""},
		{2000000000, "invalid --samples 2000000000: accepted up to 134217728 (every sample is kept in memory), or 0 to run until Ctrl-C"},
	} {
		testutil.CheckBadInput(t, fmt.Sprint(c.n), SleepOptions{Duration: time.Millisecond, Samples: c.n, Method: method}.Validate(), c.want)
	}
}
