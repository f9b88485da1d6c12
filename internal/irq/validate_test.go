package irq

import (
	"strings"
	"testing"
	"time"

	"github.com/latlab/latlab/internal/badinput"
)

// Options.Validate holds for every caller of Run, in the flag names of
// latlab irq watch.
func TestOptionsValidate(t *testing.T) {
	for _, c := range []struct {
		o    Options
		want string // "" = valid
	}{
		{Options{Interval: time.Second}, ""},
		{Options{Interval: 0}, "invalid --interval 0: want a duration above 0"},
		{Options{Interval: time.Second, Duration: -time.Second}, "invalid --duration -1s"},
		{Options{Interval: time.Second, Command: []string{"no-such-command-latlab"}}, `command "no-such-command-latlab" not found`},
	} {
		err := c.o.Validate()
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%+v: %v", c.o, err)
		case c.want != "" && (!badinput.Is(err) || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%+v: %v, want bad input with %q", c.o, err, c.want)
		}
	}
}
