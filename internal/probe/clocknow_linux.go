package probe

import "github.com/latlab/latlab/internal/clock"

// nowMono is clock.Now: the deadlines of TIMER_ABSTIME waits are in the
// same CLOCK_MONOTONIC time base.
func nowMono() int64 { return clock.Now() }
