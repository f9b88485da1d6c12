package cli

import (
	"strings"
	"testing"

	"github.com/latlab/latlab/internal/knob"
)

// Bad input exits 2 with one line that names what was wrong, before
// anything is measured or changed.
func TestTryBadInput(t *testing.T) {
	native := "timer-slack"
	if knob.HostOS == "windows" {
		native = "timer-resolution"
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"try", "no-such-knob", "1"}, `unknown knob "no-such-knob"`},
		{[]string{"try", native}, "at least one value to try"},
		{[]string{"try", native, "1us", "1us"}, "value 1us is given twice"},
		{[]string{"try", native, "1us", "--probe", "dpcisr"}, "--probe dpcisr is not supported by latlab try yet"},
		{[]string{"try", native, "1us", "--probe", "ping"}, `unknown --probe "ping": accepted sleep, wake, udp`},
		{[]string{"try", native, "1us", "--keep", "all"}, `invalid --keep "all": accepted best or none`},
		{[]string{"try", native, "1us", "--keep", "best"}, "--keep best: " + native + " is set on latlab's own measuring thread"},
		{[]string{"try", native, "1us", "--blocks", "0"}, "invalid --blocks 0"},
		{[]string{"try", native, "1us", "--by", "stdev"}, `invalid --by "stdev"`},
		{[]string{"try", native, "1us", "--interval", "2ms"}, "--interval do(es) not go with --probe sleep"},
		{[]string{"try", native, "1us", "--probe", "udp"}, "--to HOST:PORT is required"},
		{[]string{"try", native, "1us", "--block-duration", "1ms"}, "invalid --block-duration 1ms: accepted 10ms to 1h0m0s"},
		{[]string{"try", native, "1us", "--pid", "1"}, "applies to latlab's own measuring thread"},
		{[]string{"try", native, "soon"}, "invalid " + native + ` "soon"`},
	} {
		code, out, errs := runCLI(t, c.args...)
		if code != 2 || !strings.Contains(errs, c.want) || strings.Count(errs, "\n") != 1 || out != "" {
			t.Errorf("%v: exit %d %q %q, want 2 and %q", c.args, code, out, errs, c.want)
		}
	}
}
