package testutil

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// hogEnv, in a test binary's environment, makes HogMain turn the process
// into a CPU hog pinned to the CPU it names.
const hogEnv = "LATLAB_TEST_HOG_CPU"

// hogLife bounds a hog's life: it never outlives a test that lost it.
const hogLife = 60 * time.Second

// HogMain makes this test binary the CPU hog StartHog asked for, and
// exits; otherwise it returns at once. A package whose tests start hogs
// calls it first in its TestMain:
//
//	func TestMain(m *testing.M) {
//		testutil.HogMain()
//		os.Exit(m.Run())
//	}
func HogMain() {
	c := os.Getenv(hogEnv)
	if c == "" {
		return
	}
	cpu, _ := strconv.Atoi(c)
	// Affinity and nice are per thread: the spinning one's. Nice -20
	// against a measuring thread's 0: the hog holds the CPU for whole
	// slices, and the wake-ups wait for it.
	runtime.LockOSThread()
	var set unix.CPUSet
	set.Set(cpu)
	_ = unix.SchedSetaffinity(0, &set)
	_ = unix.Setpriority(unix.PRIO_PROCESS, 0, -20)
	deadline := time.Now().Add(hogLife)
	for x := 0; time.Now().Before(deadline); x++ {
		_ = x * x
	}
	os.Exit(0)
}

// HogOptions qualify StartHog.
type HogOptions struct {
	// OwnSession starts the hog in a session of its own, so in an
	// autogroup of its own (kernel.sched_autogroup_enabled), and gives
	// that group nice -20: it then outweighs every other session's group
	// on the CPU, as the thread's nice -20 outweighs the threads of its
	// own group.
	OwnSession bool
}

// StartHog starts this test binary again as a CPU hog: a thread at nice
// -20 that never sleeps, pinned to cpu. The package's TestMain must call
// HogMain. The hog is spinning when StartHog returns, and is killed when
// the test ends.
func StartHog(t testing.TB, cpu int, o HogOptions) *os.Process {
	t.Helper()
	hog := exec.Command(os.Args[0], "-test.run=^$")
	hog.Env = append(os.Environ(), hogEnv+"="+strconv.Itoa(cpu))
	if o.OwnSession {
		hog.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	}
	if err := hog.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = hog.Process.Kill(); _ = hog.Wait() })
	if o.OwnSession {
		autogroup := filepath.Join("/proc", strconv.Itoa(hog.Process.Pid), "autogroup")
		if err := os.WriteFile(autogroup, []byte("-20"), 0); err != nil && !os.IsNotExist(err) {
			t.Logf("autogroup nice: %v", err)
		}
	}
	time.Sleep(100 * time.Millisecond) // pinned and spinning
	return hog.Process
}

// InProcess reports whether thread tid belongs to process pid.
func InProcess(tid, pid int) bool {
	_, err := os.Stat("/proc/" + strconv.Itoa(pid) + "/task/" + strconv.Itoa(tid))
	return err == nil
}

// NeedTracing skips (or, with LATLAB_REQUIRE_ALL=1, fails) a test that
// needs root and tracefs at /sys/kernel/tracing.
func NeedTracing(t testing.TB) {
	t.Helper()
	NeedRoot(t)
	if _, err := os.Stat("/sys/kernel/tracing"); err != nil {
		if Required() {
			t.Fatal("this test needs tracefs (LATLAB_REQUIRE_ALL=1)")
		}
		t.Skip("no tracefs")
	}
}
