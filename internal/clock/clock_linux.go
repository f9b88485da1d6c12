//go:build !latlab_nolinkname

package clock

import _ "unsafe" // for go:linkname

// runtimeNanotime is the runtime's CLOCK_MONOTONIC reading through the vDSO:
// the same clock cyclictest uses, without the cost of a real syscall. It is
// nosplit, so reading it right after a wake-up cannot be preempted.
// Building with the tag latlab_nolinkname leaves it out
// (clock_nolinkname_linux.go): the runtime keeps nanotime callable by
// linkname (go.dev/issue/67401), and the tag is the way out should a Go
// release stop that.
//
//go:linkname runtimeNanotime runtime.nanotime
func runtimeNanotime() int64

func now() int64 { return runtimeNanotime() }

func source() string { return "CLOCK_MONOTONIC (vDSO)" }
