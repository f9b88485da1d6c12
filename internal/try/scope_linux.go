package try

import (
	"fmt"
	"time"

	"github.com/latlab/latlab/internal/knob"
	"github.com/latlab/latlab/internal/timer"
)

// The process-scoped knob on Linux is timer slack: it belongs to each
// thread, so the measuring thread asks for the arm's value itself
// (PR_SET_TIMERSLACK), the baseline's included, and nothing outside
// latlab changes.
var processName = knob.ProcessScoped("linux")

const (
	processExample = "1us or 50000"
	processPlainNs = true
	processWhat    = "the timer slack of latlab's measuring thread (PR_SET_TIMERSLACK), set for each block; it ends with the thread, nothing outside latlab changes"
)

// processBaseline is the slack a thread of latlab has unless it asks: the
// process's (threads inherit it).
func processBaseline() (time.Duration, string, error) {
	st, err := timer.Query()
	if err != nil {
		return 0, "", fmt.Errorf("read the timer slack: %w", err)
	}
	d := time.Duration(st.DefaultTimerSlackNs)
	return d, fmt.Sprintf("%s (%d ns)", d, st.DefaultTimerSlackNs), nil
}

// hold puts a block's request in force: on Linux the measuring thread
// makes it, so only the value to ask for is returned.
func hold(r time.Duration) (threadRes, granted time.Duration, release func(), err error) {
	return r, 0, func() {}, nil
}
