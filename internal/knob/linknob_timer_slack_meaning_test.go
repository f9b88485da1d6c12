package knob

import (
	"strings"
	"testing"
)

// A slack of 0 means one thing read (a realtime thread's: no slack) and
// another written (reset to the default): knob get --pid of a realtime
// kernel thread once said the value it read "resets the thread to its
// default slack when written", and knob explain timer-slack 0 printed
// "0 ns: 0: resets ...".
func TestTimerSlackZeroMeaning(t *testing.T) {
	if got := slackMeaning(0); !strings.HasPrefix(got, "no slack: timers fire on time (realtime threads read 0)") {
		t.Errorf("read 0: %q", got)
	}
	for _, c := range []struct{ value, want string }{
		{"0", "0 ns: resets the thread to its default slack when written (a realtime thread keeps none)"},
		{"1us", "1000 ns: timers may fire up to 1µs late"},
	} {
		ex, err := timerSlack{}.Explain(c.value, ExplainOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if len(ex.Text) != 1 || !strings.HasPrefix(ex.Text[0], c.want) {
			t.Errorf("explain %s: %q, want %q", c.value, ex.Text, c.want)
		}
	}
}
