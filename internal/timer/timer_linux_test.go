package timer

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"os"
	"runtime"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

func checkStatus(t *testing.T, st Status) {
	t.Helper()
	if st.ClockResNs <= 0 || st.TimerSlackNs <= 0 || st.Clocksource == "" {
		t.Fatalf("incomplete Linux status: %+v", st)
	}
}

func threadSlack(t *testing.T) string {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/timerslack_ns", unix.Gettid()))
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(b))
}

func TestSetTimerSlack(t *testing.T) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	before := threadSlack(t)
	r, err := Set(time.Microsecond)
	if err != nil {
		t.Fatal(err)
	}
	if r.Granted != time.Microsecond {
		t.Errorf("granted %v", r.Granted)
	}
	if got := threadSlack(t); got != "1000" {
		t.Errorf("thread slack %s, want 1000", got)
	}
	if err := r.Release(); err != nil {
		t.Fatal(err)
	}
	if got := threadSlack(t); got != before {
		t.Errorf("after release %s, want %s", got, before)
	}
	if err := r.Release(); err != nil {
		t.Fatal("second release:", err)
	}
}

func TestParseKernelConfig(t *testing.T) {
	cfg := "CONFIG_HZ_250=y\nCONFIG_HZ=250\nCONFIG_NO_HZ_IDLE=y\n# CONFIG_NO_HZ_FULL is not set\nCONFIG_HIGH_RES_TIMERS=y\n"
	hz, mode, hr := configTimer(readConfig(strings.NewReader(cfg)))
	if hz != 250 || mode != "idle" || hr == nil || !*hr {
		t.Fatalf("got %d %q %v", hz, mode, hr)
	}
	hz, mode, _ = configTimer(readConfig(strings.NewReader("CONFIG_HZ=1000\nCONFIG_HZ_PERIODIC=y\n")))
	if hz != 1000 || mode != "periodic" {
		t.Fatalf("got %d %q", hz, mode)
	}
}

// KernelConfig takes /proc/config.gz first, else /boot/config-RELEASE
// with the tree's own release (not this machine's), and reads no further
// than its bound.
func TestKernelConfig(t *testing.T) {
	root := t.TempDir()
	if cfg, file := KernelConfig(root); cfg != nil || file != "" {
		t.Fatalf("empty tree: %v %q", cfg, file)
	}
	if err := os.MkdirAll(root+"/proc/sys/kernel", 0o755); err != nil {
		t.Fatal(err)
	}
	os.MkdirAll(root+"/boot", 0o755)
	os.WriteFile(root+"/proc/sys/kernel/osrelease", []byte("9.9.9-test\n"), 0o644)
	os.WriteFile(root+"/boot/config-9.9.9-test", []byte("CONFIG_PREEMPT_NONE=y\n# CONFIG_PREEMPT is not set\nCONFIG_HZ=300\n"), 0o644)
	cfg, file := KernelConfig(root)
	if file != "/boot/config-9.9.9-test" || cfg["CONFIG_PREEMPT_NONE"] != "y" || cfg["CONFIG_HZ"] != "300" || len(cfg) != 2 {
		t.Fatalf("boot config: %v %q", cfg, file)
	}
	var gz bytes.Buffer
	z := gzip.NewWriter(&gz)
	z.Write([]byte("CONFIG_PREEMPT_VOLUNTARY=y\n"))
	z.Write(bytes.Repeat([]byte("#\n"), maxKernelConfig/2))
	z.Write([]byte("CONFIG_HZ=1000\n")) // past the bound
	z.Close()
	os.WriteFile(root+"/proc/config.gz", gz.Bytes(), 0o644)
	cfg, file = KernelConfig(root)
	if file != "/proc/config.gz" || cfg["CONFIG_PREEMPT_VOLUNTARY"] != "y" || len(cfg) != 1 {
		t.Fatalf("config.gz: %v %q", cfg, file)
	}
}

func TestQueryFromFixtureRoot(t *testing.T) {
	root := t.TempDir()
	cs := root + "/sys/devices/system/clocksource/clocksource0"
	if err := os.MkdirAll(cs, 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(cs+"/current_clocksource", []byte("hpet\n"), 0o644)
	os.WriteFile(cs+"/available_clocksource", []byte("tsc hpet acpi_pm \n"), 0o644)
	st, err := queryFrom(root)
	if err != nil {
		t.Fatal(err)
	}
	if st.Clocksource != "hpet" || len(st.AvailableClocksources) != 3 || len(st.Warnings) != 1 {
		t.Fatalf("status %+v", st)
	}
}

func FuzzParseKernelConfig(f *testing.F) {
	f.Add("CONFIG_HZ=250\nCONFIG_NO_HZ_IDLE=y\nCONFIG_HIGH_RES_TIMERS=y\n")
	f.Add("CONFIG_HZ=\n=\n")
	f.Fuzz(func(t *testing.T, s string) {
		_, _, _ = configTimer(readConfig(strings.NewReader(s)))
	})
}
