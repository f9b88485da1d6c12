package irq

import (
	"fmt"
	"testing"
	"time"

	"github.com/latlab/latlab/internal/testutil"
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
		testutil.CheckBadInput(t, fmt.Sprintf("%+v", c.o), c.o.Validate(), c.want)
	}
}
