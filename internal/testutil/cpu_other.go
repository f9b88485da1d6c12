//go:build !linux

package testutil

import (
	"testing"
	"time"
)

// ProcessCPU is the CPU time the process has used so far: 0 here, where
// it is not read.
func ProcessCPU() time.Duration { return 0 }

// ReportCPU adds nothing here (ProcessCPU is not read).
func ReportCPU(b *testing.B, start time.Duration) {}
