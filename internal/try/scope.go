package try

import (
	"strconv"
	"strings"
	"time"

	"github.com/latlab/latlab/internal/badinput"
	"github.com/latlab/latlab/internal/timer"
)

// parseRequest reads a timer request: a duration with a unit (1us, 0.5ms)
// or, for timer slack, a plain number of nanoseconds as timerslack_ns
// holds it.
func parseRequest(s string, plainNs bool) (time.Duration, error) {
	t := strings.TrimSpace(s)
	if n, err := strconv.ParseInt(t, 10, 64); err == nil && plainNs {
		if n <= 0 {
			return 0, badinput.Errorf("invalid %s %q: want a positive request, e.g. 1us", processName, s)
		}
		return validRequest(time.Duration(n), s)
	}
	d, err := time.ParseDuration(strings.ReplaceAll(t, "μs", "µs"))
	if err != nil || d <= 0 {
		return 0, badinput.Errorf("invalid %s %q: want a duration with a unit, e.g. %s", processName, s, processExample)
	}
	return validRequest(d, s)
}

func validRequest(d time.Duration, s string) (time.Duration, error) {
	if err := timer.Validate(d); err != nil {
		return 0, badinput.Errorf("invalid %s %q: %v", processName, s, err)
	}
	return d, nil
}
