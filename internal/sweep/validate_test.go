package sweep

import (
	"testing"
	"time"

	"github.com/latlab/latlab/internal/probe"
	"github.com/latlab/latlab/internal/testutil"
)

// Options.Validate holds for every caller of Run, not only the command
// line, in the flag names of latlab sweep.
func TestOptionsValidate(t *testing.T) {
	ok := Options{Steps: []time.Duration{time.Millisecond, 2 * time.Millisecond}, Samples: 10, Duration: time.Millisecond,
		Method: probe.SleepMethods()[0], Repeat: 1, Mode: InProcess}
	for _, c := range []struct {
		name string
		edit func(o *Options)
		want string // "" = valid
	}{
		{"valid", func(*Options) {}, ""},
		{"no steps", func(o *Options) { o.Steps = nil }, "no sweep values"},
		{"reference", func(o *Options) { o.Reference = 2 }, "reference"},
		{"samples", func(o *Options) { o.Samples = 0 }, "invalid --samples 0: want a positive count per step"},
		{"repeat", func(o *Options) { o.Repeat = 0 }, "invalid --repeat 0"},
		{"load", func(o *Options) { o.Load = 257 }, "invalid --load 257: want 0 to 256 busy threads"},
		{"mode", func(o *Options) { o.Mode = "elsewhere" }, `invalid --mode "elsewhere"`},
		{"method", func(o *Options) { o.Method = "nap" }, `unknown --method "nap"`},
		{"step", func(o *Options) { o.Steps = []time.Duration{-time.Millisecond} }, "invalid sweep value"},
	} {
		o := ok
		c.edit(&o)
		testutil.CheckBadInput(t, c.name, o.Validate(), c.want)
	}
}
