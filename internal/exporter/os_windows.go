package exporter

import (
	"time"

	"golang.org/x/sys/windows"

	"github.com/latlab/latlab/internal/winapi"
)

// wakeMethod labels the wake histogram: the wait the probe measures.
const wakeMethod = "waitable_timer"

// timerPerScrape: NtQueryTimerResolution is cheap and the current
// resolution changes whenever a program requests one, so every scrape
// reads it.
const timerPerScrape = true

// hasTimerSlack: this OS has per-thread timer slack.
const hasTimerSlack = false

// threadCPU is the calling thread's kernel plus user time from
// GetThreadTimes. Windows charges that time in clock-interrupt ticks, so
// a thread that mostly sleeps is charged in coarse steps; over the
// minute latlab_probe_cpu_ratio averages, the steps even out.
func threadCPU() time.Duration {
	var creation, exit, kernel, user windows.Filetime
	h := windows.CurrentThread()
	if err := winapi.GetThreadTimes(h, &creation, &exit, &kernel, &user); err != nil {
		return 0
	}
	ticks := func(f windows.Filetime) int64 { return int64(f.HighDateTime)<<32 | int64(f.LowDateTime) }
	return time.Duration((ticks(kernel) + ticks(user)) * 100)
}

// processCPU is the CPU time of the whole process, every thread included
// (GetProcessTimes, charged in clock-interrupt ticks like threadCPU).
func processCPU() time.Duration {
	var creation, exit, kernel, user windows.Filetime
	if windows.GetProcessTimes(windows.CurrentProcess(), &creation, &exit, &kernel, &user) != nil {
		return 0
	}
	ticks := func(f windows.Filetime) int64 { return int64(f.HighDateTime)<<32 | int64(f.LowDateTime) }
	return time.Duration((ticks(kernel) + ticks(user)) * 100)
}
