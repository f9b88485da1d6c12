package winapi

import (
	"errors"
	"os"
	"syscall"
	"testing"
	"unsafe"

	"golang.org/x/sys/windows"
)

func TestAddrsResolve(t *testing.T) {
	for name, f := range map[string]func() (uintptr, error){
		"QueryPerformanceCounter": QueryPerformanceCounterAddr,
		"Sleep":                   SleepAddr,
		"NtDelayExecution":        NtDelayExecutionAddr,
		"SetWaitableTimer":        SetWaitableTimerAddr,
		"WaitForSingleObject":     WaitForSingleObjectAddr,
		"timeGetTime":             TimeGetTimeAddr,
	} {
		if a, err := f(); err != nil || a == 0 {
			t.Errorf("%s: address %#x, %v", name, a, err)
		}
	}
}

// A status comes back as an error of its own type, which the callers
// take apart to print the number.
func TestStatusTypes(t *testing.T) {
	var coarsest, finest, current uint32
	if err := NtQueryTimerResolution(&coarsest, &finest, &current); err != nil {
		t.Fatalf("NtQueryTimerResolution: %v", err)
	}
	if finest == 0 || finest > current || current > coarsest {
		t.Errorf("NtQueryTimerResolution: coarsest %d, finest %d, current %d", coarsest, finest, current)
	}
	// timeBeginPeriod(0) is out of range: TIMERR_NOCANDO (97).
	err := TimeBeginPeriod(0)
	if e, ok := err.(syscall.Errno); !ok || e != 97 {
		t.Errorf("TimeBeginPeriod(0) = %#v, want syscall.Errno(97) (TIMERR_NOCANDO)", err)
	}
	if Missing(err) {
		t.Errorf("Missing(%v) = true for a status", err)
	}
	// PdhCloseQuery(NULL) is PDH_INVALID_HANDLE.
	err = PdhCloseQuery(0)
	if e, ok := err.(syscall.Errno); !ok || uint32(e) != 0xC0000BBC {
		t.Errorf("PdhCloseQuery(0) = %#v, want syscall.Errno(0xC0000BBC) (PDH_INVALID_HANDLE)", err)
	}
}

func TestMissing(t *testing.T) {
	err := windows.NewLazySystemDLL("kernel32.dll").NewProc("NoSuchProcedureInKernel32").Find()
	if err == nil || !Missing(err) {
		t.Fatalf("Missing(%v) = false for a lookup error", err)
	}
	if Missing(errors.New("other")) || Missing(nil) {
		t.Error("Missing is true for an error that is no lookup error")
	}
}

func TestWrappersCall(t *testing.T) {
	var f int64
	if err := QueryPerformanceFrequency(&f); err != nil || f <= 0 {
		t.Errorf("QueryPerformanceFrequency: %d, %v", f, err)
	}
	var creation, exit, kernel, user windows.Filetime
	if err := GetThreadTimes(windows.CurrentThread(), &creation, &exit, &kernel, &user); err != nil {
		t.Errorf("GetThreadTimes: %v", err)
	}
	if _, err := GetThreadPriority(windows.CurrentThread()); err != nil {
		t.Errorf("GetThreadPriority: %v", err)
	}
}

// Wine is detected exactly when the test runs under scripts/wine/exec,
// which sets WINEPREFIX: a false positive would make tracing report
// "unavailable" on Windows, a false negative report a failure under Wine.
func TestUnderWine(t *testing.T) {
	if byEnv := os.Getenv("WINEPREFIX") != ""; UnderWine() != byEnv {
		t.Fatalf("wine_get_version found: %v; WINEPREFIX set: %v", UnderWine(), byEnv)
	}
}

// The tracing procedures all exist in advapi32 on every Windows latlab
// supports (and in Wine's, which has no tracing behind them), and so do
// ntdll's queries.
func TestTracingProceduresResolve(t *testing.T) {
	for _, p := range []*windows.LazyProc{procStartTraceW, procControlTraceW, procOpenTraceW,
		procProcessTrace, procCloseTrace, procQueryAllTracesW, procEnableTraceEx2, procNtQuerySystemInformation,
		procNtQuerySystemInformationEx} {
		if err := p.Find(); err != nil {
			t.Errorf("%s: %v", p.Name, err)
		}
	}
}

// GROUP_AFFINITY as x86_64-w64-mingw32-gcc lays out winnt.h's struct:
// sizeof 16, Group at 8, Reserved at 10.
func TestGroupAffinityLayout(t *testing.T) {
	var g GroupAffinity
	if unsafe.Sizeof(uintptr(0)) != 8 {
		t.Skip("the layout is checked for 64-bit Windows")
	}
	if s, o1, o2 := unsafe.Sizeof(g), unsafe.Offsetof(g.Group), unsafe.Offsetof(g.Reserved); s != 16 || o1 != 8 || o2 != 10 {
		t.Errorf("GroupAffinity: size %d, Group at %d, Reserved at %d; want 16, 8, 10", s, o1, o2)
	}
}

// AdjustTokenPrivileges succeeds when it enabled none of the privileges
// asked for and says so only in the last error: that is a failure.
func TestAdjustResult(t *testing.T) {
	for _, tc := range []struct {
		r1   uintptr
		last error
		want error
	}{
		{1, windows.Errno(0), nil},
		{1, windows.ERROR_NOT_ALL_ASSIGNED, windows.ERROR_NOT_ALL_ASSIGNED},
		{0, windows.ERROR_ACCESS_DENIED, windows.ERROR_ACCESS_DENIED},
		{0, windows.Errno(0), windows.ERROR_INVALID_PARAMETER},
	} {
		if got := adjustResult(tc.r1, tc.last); !errors.Is(got, tc.want) || (tc.want == nil) != (got == nil) {
			t.Errorf("adjustResult(%d, %v) = %v, want %v", tc.r1, tc.last, got, tc.want)
		}
	}
	// The real call on this process's token: enabling a privilege it
	// holds succeeds; the answer is either nil or ERROR_NOT_ALL_ASSIGNED,
	// never a silent success for a privilege the token lacks.
	var tok windows.Token
	if err := windows.OpenProcessToken(windows.CurrentProcess(), windows.TOKEN_ADJUST_PRIVILEGES|windows.TOKEN_QUERY, &tok); err != nil {
		t.Skip(err)
	}
	defer tok.Close()
	var luid windows.LUID
	name, _ := windows.UTF16PtrFromString("SeChangeNotifyPrivilege") // every token holds it
	if err := windows.LookupPrivilegeValue(nil, name, &luid); err != nil {
		t.Skip(err)
	}
	tp := windows.Tokenprivileges{PrivilegeCount: 1}
	tp.Privileges[0] = windows.LUIDAndAttributes{Luid: luid, Attributes: windows.SE_PRIVILEGE_ENABLED}
	if err := AdjustTokenPrivileges(tok, &tp); err != nil {
		t.Errorf("enabling SeChangeNotifyPrivilege: %v", err)
	}
}
