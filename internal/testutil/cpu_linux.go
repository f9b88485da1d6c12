package testutil

import (
	"syscall"
	"testing"
	"time"
)

// ProcessCPU is the CPU time (user and system) the process has used so
// far; 0 where it cannot be read.
func ProcessCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// ReportCPU adds the metric cpu-ns/op to b: the CPU time of the process,
// every thread, since start (ProcessCPU) over b.N. On a shared machine it
// varies less than the wall time, and it counts the work of every stage
// of a pipeline, which the wall time of a pipeline on two cores hides.
func ReportCPU(b *testing.B, start time.Duration) {
	if start > 0 && b.N > 0 {
		b.ReportMetric(float64(ProcessCPU()-start)/float64(b.N), "cpu-ns/op")
	}
}
