package cli

import (
	"strings"
	"testing"
	"time"
)

// --stop-above means one thing on both commands: it reaches the probe as
// given, and is off when not given.
func TestStopAboveFlagsToOptions(t *testing.T) {
	for _, c := range []struct {
		args []string
		want time.Duration
	}{
		{nil, 0},
		{[]string{"--stop-above", "150us"}, 150 * time.Microsecond},
		{[]string{"--stop-above", "1ns"}, time.Nanosecond},
	} {
		var wake *WakeOptions
		called := false
		runSeam(t, newWakeCmd(seamIO(), func(o *WakeOptions) error { wake, called = o, true; return nil }), c.args, &called)
		if wake.probe.StopAbove != c.want {
			t.Errorf("wake %v: --stop-above %v, want %v", c.args, wake.probe.StopAbove, c.want)
		}
		var noise *NoiseOptions
		called = false
		runSeam(t, newNoiseCmd(seamIO(), func(o *NoiseOptions) error { noise, called = o, true; return nil }), append([]string{"--cpus", "0"}, c.args...), &called)
		if noise.probe.StopAbove != c.want {
			t.Errorf("noise %v: --stop-above %v, want %v", c.args, noise.probe.StopAbove, c.want)
		}
	}
}

// Bad values: exit 2 and one line naming the flag and what it accepts.
func TestStopAboveBadInput(t *testing.T) {
	for _, cmd := range []string{"wake", "noise"} {
		for _, c := range []struct {
			value, want string
		}{
			{"0", "greater than zero"},
			{"-1ms", "must not be negative"},
			{"fast", "accepted e.g. 1ms"},
			{"5", "needs a unit"},
		} {
			code, out, errOut := runCLI(t, cmd, "--stop-above", c.value)
			lines := strings.Split(strings.TrimSpace(errOut), "\n")
			if code != 2 || out != "" || len(lines) != 1 || !strings.Contains(errOut, "--stop-above") || !strings.Contains(errOut, c.want) {
				t.Errorf("%s --stop-above %s: exit %d, stdout %q, stderr %q; want 2 and one line with %q", cmd, c.value, code, out, errOut, c.want)
			}
		}
	}
}
