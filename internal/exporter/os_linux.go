package exporter

import (
	"time"

	"golang.org/x/sys/unix"
)

// wakeMethod labels the wake histogram: the wait the probe measures.
const wakeMethod = "clock_nanosleep"

// timerPerScrape: the Linux timer state (slack, clocksource, the kernel
// configuration) is read with the settings, not at every scrape, since
// reading it decompresses the kernel's configuration.
const timerPerScrape = false

// hasTimerSlack: this OS has per-thread timer slack.
const hasTimerSlack = true

// threadCPU is the calling thread's CPU time (CLOCK_THREAD_CPUTIME_ID,
// the scheduler's own accounting, in nanoseconds).
func threadCPU() time.Duration {
	var ts unix.Timespec
	if unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &ts) != nil {
		return 0
	}
	return time.Duration(ts.Nano())
}

// processCPU is the CPU time of the whole process: every thread, the HTTP
// server's, the settings reader's and the Go runtime's included
// (CLOCK_PROCESS_CPUTIME_ID, in nanoseconds).
func processCPU() time.Duration {
	var ts unix.Timespec
	if unix.ClockGettime(unix.CLOCK_PROCESS_CPUTIME_ID, &ts) != nil {
		return 0
	}
	return time.Duration(ts.Nano())
}
