package host

import "testing"

func TestCollectFromFixture(t *testing.T) {
	f := collectFrom("testdata/root")
	if f.OSVersion != "Debian GNU/Linux 12 (bookworm)" || f.CPUModel != "Intel(R) Xeon(R) CPU @ 2.20GHz" || !f.Hypervisor {
		t.Fatalf("fixture facts: %+v", f)
	}
	if want := "CLOCK_MONOTONIC (vDSO) over kvm-clock"; f.ClockSource != want {
		t.Fatalf("clock source %q, want %q", f.ClockSource, want)
	}
}
