package clock

import _ "unsafe" // for go:linkname

// runtimeNanotime is the runtime's CLOCK_MONOTONIC reading through the vDSO:
// the same clock cyclictest uses, without the cost of a real syscall. It is
// nosplit, so reading it right after a wake-up cannot be preempted.
//
//go:linkname runtimeNanotime runtime.nanotime
func runtimeNanotime() int64

func now() int64 { return runtimeNanotime() }

func source() string { return "CLOCK_MONOTONIC (vDSO)" }
