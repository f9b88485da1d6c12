package netload

import "testing"

// checkReceiveTimes: on Windows the receiving goroutine times each echo.
func checkReceiveTimes(t *testing.T, r *UDPResult) {
	t.Helper()
	if r.ReceiveTimes != userReceiveTimes || r.ReceiverWake != nil || r.ReceiveStampsMissing != 0 {
		t.Fatalf("receive times from %q, %d kernel-stamped, %d missing; want the goroutine's clock", r.ReceiveTimes, len(r.ReceiverWake), r.ReceiveStampsMissing)
	}
}
