package clock

import (
	"testing"

	"golang.org/x/sys/unix"
)

// Now must be CLOCK_MONOTONIC: a reading taken between two clock_gettime
// syscalls lies between them.
func TestNowIsClockMonotonic(t *testing.T) {
	for i := 0; i < 1000; i++ {
		var a, b unix.Timespec
		if err := unix.ClockGettime(unix.CLOCK_MONOTONIC, &a); err != nil {
			t.Fatal(err)
		}
		n := Now()
		if err := unix.ClockGettime(unix.CLOCK_MONOTONIC, &b); err != nil {
			t.Fatal(err)
		}
		if n < a.Nano() || n > b.Nano() {
			t.Fatalf("Now()=%d not within [%d, %d]", n, a.Nano(), b.Nano())
		}
	}
}
