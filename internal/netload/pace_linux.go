package netload

import "time"

const pacerMethod = "clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME), raw syscall, timer slack 1ns"

// paceResolution is the pacing thread's timer slack: the default 50 µs
// would defer every send by up to that much.
const paceResolution = time.Nanosecond
