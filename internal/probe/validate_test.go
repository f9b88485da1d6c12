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
	} {
		o := ok
		c.edit(&o)
		testutil.CheckBadInput(t, c.name, o.Validate(), c.want)
	}
}
