package etw

import (
	"strings"
	"testing"
)

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

func TestSessionName(t *testing.T) {
	for _, tc := range []struct {
		base string
		pid  uint32
		want string
	}{
		{KernelSessionBase, 4312, "latlab dpc watch 4312"},
		{TCPSessionBase, 0, "latlab tcpip 0"},
		{TCPSessionBase, 4294967295, "latlab tcpip 4294967295"},
	} {
		got := SessionName(tc.base, tc.pid)
		if got != tc.want {
			t.Errorf("SessionName(%q, %d) = %q, want %q", tc.base, tc.pid, got, tc.want)
		}
		if pid, ok := SessionPID(tc.base, got); !ok || pid != tc.pid {
			t.Errorf("SessionPID(%q) = %d, %v", got, pid, ok)
		}
	}
	for _, name := range []string{
		"latlab dpc watch", // a latlab before process ids in names
		"latlab dpc watch ", "latlab dpc watch x12", "latlab dpc watch 12x", "latlab dpc watch -1",
		"latlab dpc watch 012", "latlab dpc watch 4294967296", "latlab dpc watch 99999999999",
		"latlab dpc watcher 12", "NT Kernel Logger", "latlab tcpip 12",
	} {
		if pid, ok := SessionPID(KernelSessionBase, name); ok {
			t.Errorf("SessionPID(%q) = %d, want none", name, pid)
		}
	}
}

func TestStaleSessions(t *testing.T) {
	all := []SessionInfo{
		{Name: "latlab dpc watch 100"}, // this process
		{Name: "latlab dpc watch 200"}, // another latlab, running
		{Name: "latlab dpc watch 300"}, // killed
		{Name: "latlab dpc watch"},     // an older latlab's: owner unknown
		{Name: "latlab tcpip 300"},     // another base
		{Name: KernelLoggerName},
		{Name: "latlab dpc watch 400"}, // killed
	}
	alive := func(pid uint32) bool { return pid == 200 }
	got := StaleSessions(all, KernelSessionBase, 100, alive)
	want := []string{"latlab dpc watch 300", "latlab dpc watch 400"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("StaleSessions = %q, want %q", got, want)
	}
	if got := StaleSessions(all, KernelSessionBase, 100, func(uint32) bool { return true }); len(got) != 0 {
		t.Errorf("every owner alive: %q, want none", got)
	}
	if got := StaleSessions(all, TCPSessionBase, 100, alive); len(got) != 1 || got[0] != "latlab tcpip 300" {
		t.Errorf("tcpip: %q", got)
	}
}

func TestSessionGUIDPerProcess(t *testing.T) {
	a, b := SessionGUID(4312), SessionGUID(4313)
	if a == b {
		t.Error("two processes share a session GUID")
	}
	if [4]byte(a.Data4[4:]) != [4]byte{0, 0, 0x10, 0xd8} {
		t.Errorf("pid bytes %x", a.Data4[4:])
	}
}

func TestLimitError(t *testing.T) {
	e := &LimitError{Session: "latlab dpc watch 7", Kernel: true, Holders: []string{"NT Kernel Logger", "latlab dpc watch 5"}}
	for _, want := range []string{"limit of 8 kernel trace sessions", `"latlab dpc watch 5"`, "logman stop"} {
		if !strings.Contains(e.Error(), want) {
			t.Errorf("%s: want %q", e, want)
		}
	}
	if !strings.Contains((&LimitError{Session: "latlab tcpip 7"}).Error(), "as many trace sessions as it allows") {
		t.Error("system-wide limit not said")
	}
}
