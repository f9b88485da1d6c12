package etw

import "testing"

func TestHeldError(t *testing.T) {
	e := &HeldError{Sessions: KernelHolders([]SessionInfo{
		{Name: "Circular Kernel Context Logger", LogFileMode: eventTraceSystemLoggerMode},
		{Name: "EventLog-System"},
		{Name: KernelLoggerName, EnableFlags: FlagDPC},
		{Name: "PerfViewKernel", LogFileMode: eventTraceSystemLoggerMode | 0x100},
	})}
	want := `the kernel trace is in use by "NT Kernel Logger", "PerfViewKernel"; stop it with: logman stop "NT Kernel Logger" -ets or logman stop "PerfViewKernel" -ets`
	if e.Error() != want {
		t.Errorf("%s\nwant %s", e, want)
	}
	if (&HeldError{}).Error() == "" {
		t.Error("empty")
	}
}
