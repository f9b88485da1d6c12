package knob

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/latlab/latlab/internal/badinput"
	"github.com/latlab/latlab/internal/knob/backend"
	"github.com/latlab/latlab/internal/testutil"
	"golang.org/x/sys/unix"
)

// Harmless reads of this machine's /proc and /sys.
func TestRealProcReads(t *testing.T) {
	env := NewEnv("/")
	for _, name := range []string{"tcp-recovery", "tcp-dsack", "clocksource", "timer-slack", "irq-affinity", "rps", "irqbalance", "isolation", "preemption"} {
		k, _ := Lookup(name)
		r, err := k.Get(env, Selector{})
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		for _, it := range r.Items {
			if it.Meaning == "" || strings.HasPrefix(it.Meaning, "unreadable") {
				t.Errorf("%s %s: %q", name, it.Target, it.Meaning)
			}
		}
	}
	want, _ := os.ReadFile("/proc/sys/net/ipv4/tcp_recovery")
	r, _ := tcpRecovery{}.Get(env, Selector{})
	if r.Items[0].Value != strings.TrimSpace(string(want)) {
		t.Errorf("tcp-recovery %q, /proc says %q", r.Items[0].Value, want)
	}
}

func TestEthtoolLoopbackUnsupported(t *testing.T) {
	env := NewEnv("/")
	_, err := env.read(backend.Loc{Backend: backend.BackendEthtool, Path: "lo", Name: "coalesce"})
	if !errors.Is(err, backend.ErrNotSupported) {
		t.Fatalf("coalescing on lo: %v, want not supported", err)
	}
	_, err = coalescing{}.Plan(env, Selector{Iface: "lo"}, "rx-usecs=5")
	if !badinput.Is(err) || !strings.Contains(err.Error(), "lo: the driver does not support interrupt coalescing") {
		t.Fatalf("plan on lo: %v", err)
	}
	// Under a fixture root the real NICs are never touched.
	_, err = NewEnv(testutil.TempDir(t)).read(backend.Loc{Backend: backend.BackendEthtool, Path: "eth0", Name: "coalesce"})
	if !errors.Is(err, backend.ErrUnavailable) || !strings.Contains(err.Error(), "not available under --root") {
		t.Fatalf("ethtool under a fixture root: %v", err)
	}
}

// TestCoalescingUnderRoot: a fixture tree's interfaces are not this
// machine's, so coalescing answers once that it is not available, the same
// over a tree with interfaces as over one without, and the check-up takes
// it as unknown rather than a failed interface each.
func TestCoalescingUnderRoot(t *testing.T) {
	for _, ifaces := range [][]string{nil, {"eth0", "eth1", "eth2"}} {
		dir := testutil.TempDir(t)
		for _, ifc := range ifaces {
			if err := os.MkdirAll(filepath.Join(dir, "sys/class/net", ifc), 0o755); err != nil {
				t.Fatal(err)
			}
		}
		env := NewEnv(dir)
		r, err := coalescing{}.Get(env, Selector{})
		if err != nil || len(r.Items) != 1 || r.Items[0].Value != "not available" || !strings.Contains(r.Items[0].Meaning, "under --root") {
			t.Fatalf("%d interfaces: %+v, %v; want one item, not available", len(ifaces), r, err)
		}
		cs := coalescing{}.Cases(env)
		if len(cs) != 1 || !errors.Is(cs[0].Err, backend.ErrUnavailable) {
			t.Fatalf("%d interfaces: %d cases, %v; want one, not available", len(ifaces), len(cs), cs[0].Err)
		}
		if _, err := (coalescing{}).Plan(env, Selector{Iface: "eth0"}, "rx-usecs=5"); !errors.Is(err, backend.ErrUnavailable) {
			t.Fatalf("%d interfaces: plan %v, want not available", len(ifaces), err)
		}
	}
}

// TestRealTimerSlack changes the timer slack of a child process through
// the real /proc, then reverts it.
func TestRealTimerSlack(t *testing.T) {
	testutil.NeedRoot(t)
	cmd := exec.Command("sleep", "30")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { cmd.Process.Kill(); cmd.Wait() }()
	pid := strconv.Itoa(cmd.Process.Pid)
	path := "/proc/" + pid + "/timerslack_ns"
	orig, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	env := NewEnv("/")
	dir := testutil.TempDir(t)
	applySteps(t, env, dir, []setStep{{"timer-slack", Selector{PID: pid}, "1us"}})
	if b, _ := os.ReadFile(path); strings.TrimSpace(string(b)) != "1000" {
		t.Fatalf("slack after set: %q", b)
	}
	revertAll(t, env, dir)
	if b, _ := os.ReadFile(path); string(b) != string(orig) {
		t.Fatalf("slack after revert %q, want %q", b, orig)
	}
	// After the process is gone, revert reports it and does not fail.
	applySteps(t, env, dir, []setStep{{"timer-slack", Selector{PID: pid}, "2us"}})
	cmd.Process.Kill()
	cmd.Wait()
	steps, _ := revertAll(t, env, dir)
	if len(steps) != 1 || steps[0].Action != "gone" {
		t.Fatalf("revert of an exited process: %+v", steps)
	}
}

// The kernel shows /proc/self/timerslack_ns to a thread other than the main
// one only with CAP_SYS_NICE, and Go runs a read on any thread: a normal
// user's `knob get timer-slack` failed where cat read the file. The test
// takes CAP_SYS_NICE from one thread (capabilities are per thread), which
// then ends with its goroutine.
func TestTimerSlackReadWithoutCapSysNice(t *testing.T) {
	type got struct {
		r   *Reading
		err error
		why string
	}
	ch := make(chan got, 1)
	var work func()
	work = func() {
		runtime.LockOSThread() // never unlocked: the thread ends with the goroutine
		if unix.Gettid() == unix.Getpid() {
			// The main thread may always read its own file: hold it
			// while another thread does the work.
			done := make(chan struct{})
			go func() { work(); close(done) }()
			<-done
			return
		}
		hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
		var data [2]unix.CapUserData
		if err := unix.Capget(&hdr, &data[0]); err != nil {
			ch <- got{why: "capget: " + err.Error()}
			return
		}
		data[0].Effective &^= 1 << unix.CAP_SYS_NICE
		if err := unix.Capset(&hdr, &data[0]); err != nil {
			ch <- got{why: "capset: " + err.Error()}
			return
		}
		if _, err := os.ReadFile("/proc/self/timerslack_ns"); err == nil {
			ch <- got{why: "this kernel shows the file to any thread"}
			return
		}
		k, _ := Lookup("timer-slack")
		r, err := k.Get(NewEnv("/"), Selector{})
		ch <- got{r: r, err: err}
	}
	go work()
	g := <-ch
	if g.why != "" {
		t.Skip(g.why)
	}
	if g.err != nil {
		t.Fatalf("knob get timer-slack without CAP_SYS_NICE: %v", g.err)
	}
	want, err := unix.PrctlRetInt(unix.PR_GET_TIMERSLACK, 0, 0, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	if v := g.r.Items[0].Value; !strings.Contains(v, "("+strconv.Itoa(want)+" ns)") {
		t.Errorf("value %q, this thread's slack is %d ns", v, want)
	}
	// The stored value as the file shows it: the check-up's rules read it
	// (without it, 50µs was judged changed from the default 50µs).
	if raw := g.r.Items[0].Raw; raw == nil || string(raw.Data) != strconv.Itoa(want)+"\n" {
		t.Errorf("raw %+v, want the file's %d", raw, want)
	}
}
