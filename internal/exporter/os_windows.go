package exporter

import (
	"time"
	"unsafe"

	"golang.org/x/sys/windows"
)

// wakeMethod labels the wake histogram: the wait the probe measures.
const wakeMethod = "waitable_timer"

// timerPerScrape: NtQueryTimerResolution is cheap and the current
// resolution changes whenever a program requests one, so every scrape
// reads it.
const timerPerScrape = true

var procGetThreadTimes = windows.NewLazySystemDLL("kernel32.dll").NewProc("GetThreadTimes")

// hasTimerSlack: this OS has per-thread timer slack.
const hasTimerSlack = false

// threadCPU is the calling thread's kernel plus user time from
// GetThreadTimes. Windows charges that time in clock-interrupt ticks, so
// a thread that mostly sleeps is charged in coarse steps; over the
// minute latlab_probe_cpu_ratio averages, the steps even out.
func threadCPU() time.Duration {
	var creation, exit, kernel, user windows.Filetime
	h := windows.CurrentThread()
	r, _, _ := procGetThreadTimes.Call(uintptr(h), uintptr(unsafe.Pointer(&creation)), uintptr(unsafe.Pointer(&exit)),
		uintptr(unsafe.Pointer(&kernel)), uintptr(unsafe.Pointer(&user)))
	if r == 0 {
		return 0
	}
	ticks := func(f windows.Filetime) int64 { return int64(f.HighDateTime)<<32 | int64(f.LowDateTime) }
	return time.Duration((ticks(kernel) + ticks(user)) * 100)
}
