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
// A value at the run's length or above can end no run early; one beyond
// what a duration holds (about 292 years) is out of range, not a value
// without a unit.
func TestStopAboveBadInput(t *testing.T) {
	for _, cmd := range []string{"wake", "noise"} {
		for _, c := range []struct {
			value, want string
		}{
			{"0", "greater than zero"},
			{"-1ms", "must not be negative"},
			{"fast", "accepted e.g. 1ms"},
			{"5", "needs a unit"},
			{"10s", "accepted more than 0 and below the run's length, --duration 10s"},
			{"1h", "accepted more than 0 and below the run's length, --duration 10s"},
			{"2562047h", "accepted more than 0 and below the run's length, --duration 10s"},
			{"2562048h", "out of range"},
			{"99999999999999999999ns", "out of range"},
		} {
			code, out, errOut := runCLI(t, cmd, "--stop-above", c.value)
			lines := strings.Split(strings.TrimSpace(errOut), "\n")
			if code != 2 || out != "" || len(lines) != 1 || !strings.Contains(errOut, "--stop-above") || !strings.Contains(errOut, c.want) {
				t.Errorf("%s --stop-above %s: exit %d, stdout %q, stderr %q; want 2 and one line with %q", cmd, c.value, code, out, errOut, c.want)
			}
		}
	}
}

// The bound is the run's length as the command's flags set it: just
// below it is accepted, the length itself refused.
func TestStopAboveBound(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string // "": accepted
	}{
		{[]string{"wake", "--duration", "2s", "--stop-above", "1999999999ns"}, ""},
		{[]string{"wake", "--duration", "2s", "--stop-above", "2s"}, "below the run's length, --duration 2s"},
		{[]string{"wake", "--loops", "500", "--stop-above", "499999us"}, ""},
		{[]string{"wake", "--loops", "500", "--stop-above", "500ms"}, "below the run's length, 500ms (--loops 500 × --interval 1ms)"},
		{[]string{"wake", "--loops", "500", "--interval", "2ms", "--stop-above", "999ms"}, ""},
		{[]string{"noise", "--cpus", "0", "--duration", "2s", "--stop-above", "1999999999ns"}, ""},
		{[]string{"noise", "--cpus", "0", "--duration", "2s", "--stop-above", "2s"}, "below the run's length, --duration 2s"},
	} {
		if c.want == "" {
			called := false
			cmd := newWakeCmd(seamIO(), func(*WakeOptions) error { called = true; return nil })
			if c.args[0] == "noise" {
				cmd = newNoiseCmd(seamIO(), func(*NoiseOptions) error { called = true; return nil })
			}
			runSeam(t, cmd, c.args[1:], &called)
			continue
		}
		code, out, errOut := runCLI(t, c.args...)
		if code != 2 || out != "" || strings.Count(strings.TrimSpace(errOut), "\n") != 0 || !strings.Contains(errOut, c.want) {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want 2 and one line with %q", c.args, code, out, errOut, c.want)
		}
	}
}
