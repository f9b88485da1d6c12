package tracefs

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/latlab/latlab/internal/testutil"
)

// needTracing skips (or, with LATLAB_REQUIRE_ALL=1, fails) a test that
// needs root and a kernel with tracefs.
func needTracing(t *testing.T) {
	t.Helper()
	testutil.NeedTracing(t)
}

func isMountPoint(t *testing.T, dir string) bool {
	t.Helper()
	b, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		t.Fatal(err)
	}
	return strings.Contains(string(b), " "+dir+" ")
}

// A session on a private mount reads real events with CLOCK_MONOTONIC
// time stamps, and Close removes the instance and the mount.
func TestSessionLive(t *testing.T) {
	needTracing(t)
	s, err := Open(Options{Events: []string{"irq/softirq_*", "sched/sched_switch"}, PrivateMount: true, BufferKB: 512})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := os.Stat(s.Dir); err != nil {
		t.Fatalf("no instance: %v", err)
	}
	if !isMountPoint(t, s.Root) {
		t.Fatalf("%s is not mounted", s.Root)
	}
	before := time.Now()
	var t0 unix.Timespec
	_ = unix.ClockGettime(unix.CLOCK_MONOTONIC, &t0)
	loopback(t, 200)
	time.Sleep(50 * time.Millisecond)
	_ = s.Stop()
	var t1 unix.Timespec
	_ = unix.ClockGettime(unix.CLOCK_MONOTONIC, &t1)
	counts := map[string]int{}
	var bad []string
	_, err = s.Drain(func(e Event) {
		counts[e.Format.Name]++
		// Events of the session lie on CLOCK_MONOTONIC, within the run
		// (the first may have waited in the buffer since the start).
		if e.TS > t1.Nano() || e.TS < t0.Nano()-int64(time.Since(before))-int64(time.Second) {
			bad = append(bad, fmt.Sprintf("%s at %d outside %d..%d", e.Format.Name, e.TS, t0.Nano(), t1.Nano()))
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(bad) > 0 {
		t.Errorf("%d events off the clock, e.g. %s", len(bad), bad[0])
	}
	if counts["sched_switch"] == 0 || counts["softirq_entry"] == 0 || counts["softirq_exit"] == 0 {
		t.Errorf("events %v", counts)
	}
	dir, root := s.Dir, s.Root
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("instance %s left behind: %v", dir, err)
	}
	if isMountPoint(t, root) {
		t.Errorf("tracefs left mounted at %s", root)
	}
	if _, err := os.Stat(root); !os.IsNotExist(err) {
		t.Errorf("mount point %s left behind", root)
	}
}

// loopback sends n datagrams to itself: NET_RX softirqs.
func loopback(t *testing.T, n int) {
	t.Helper()
	c, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	buf := make([]byte, 64)
	for i := 0; i < n; i++ {
		if _, err := c.WriteTo(buf, c.LocalAddr()); err != nil {
			t.Fatal(err)
		}
		_ = c.SetReadDeadline(time.Now().Add(time.Second))
		if _, _, err := c.ReadFrom(buf); err != nil {
			t.Fatal(err)
		}
	}
}

func TestSessionCPUMaskAndBadEvent(t *testing.T) {
	needTracing(t)
	s, err := Open(Options{Events: []string{"sched/sched_switch"}, CPUs: []int{0}, PrivateMount: true, BufferKB: 256})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	mask, _ := os.ReadFile(filepath.Join(s.Dir, "tracing_cpumask"))
	if !strings.HasSuffix(strings.TrimSpace(string(mask)), "1") {
		t.Errorf("cpumask %q", mask)
	}
	time.Sleep(50 * time.Millisecond)
	_, _ = s.Drain(func(e Event) {
		if e.CPU != 0 {
			t.Errorf("an event of CPU %d", e.CPU)
		}
	})
	root := s.Root
	s.Close()
	if _, err := Open(Options{Events: []string{"irq/no_such_event"}, PrivateMount: true}); err == nil || !strings.Contains(err.Error(), "no such event") {
		t.Errorf("%v", err)
	}
	if _, err := os.Stat(root); !os.IsNotExist(err) {
		t.Errorf("a failed Open left %s", root)
	}
}

// Optional events a kernel lacks, their group included (irq_vectors on
// arm64), are skipped; a required one is still an error. A format
// without a field latlab reads is refused at Open, by event and field.
func TestSessionOptionalAndFields(t *testing.T) {
	needTracing(t)
	s, err := Open(Options{Events: []string{"sched/sched_switch"}, Optional: []string{"no_such_group/*_entry", "irq/no_such_*"},
		PrivateMount: true, BufferKB: 256})
	if err != nil {
		t.Fatalf("optional events the kernel lacks: %v", err)
	}
	if len(s.formats) != 1 {
		t.Errorf("%d formats, want sched_switch's alone", len(s.formats))
	}
	s.Close()
	if _, err := Open(Options{Events: []string{"no_such_group/x"}, PrivateMount: true}); err == nil {
		t.Error("a required group the kernel lacks was accepted")
	}
	saved := Needed
	defer func() { Needed = saved }()
	Needed = append(append(Needed[:0:0], Needed...), struct {
		Pattern string
		Fields  []Need
	}{"sched/sched_switch", []Need{{"no_such_field", IntField}}})
	if _, err := Open(Options{Events: []string{"sched/sched_switch"}, PrivateMount: true, BufferKB: 256}); err == nil ||
		!strings.Contains(err.Error(), "sched/sched_switch") || !strings.Contains(err.Error(), "no_such_field") {
		t.Errorf("a format without a field latlab reads: %v", err)
	}
}

// Follow ends when its context does, and Close then leaves nothing.
func TestSessionCancel(t *testing.T) {
	needTracing(t)
	s, err := Open(Options{Events: []string{"sched/sched_switch"}, PrivateMount: true, BufferKB: 256})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	n := 0
	if err := s.Follow(ctx, func(Event) { n++ }); err != nil {
		t.Fatal(err)
	}
	if n == 0 {
		t.Error("no events")
	}
	dir := s.Dir
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("instance left behind: %v", err)
	}
}

// SIGINT: a process following a session until SIGINT removes its
// instance and its mount before it exits.
func TestSessionSIGINT(t *testing.T) {
	needTracing(t)
	if os.Getenv("LATLAB_TRACEFS_HELPER") == "1" {
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
		defer stop()
		s, err := Open(Options{Events: []string{"sched/sched_switch"}, PrivateMount: true, BufferKB: 256})
		if err != nil {
			fmt.Println("ERR", err)
			os.Exit(1)
		}
		fmt.Printf("%s %s\n", s.Dir, s.Root)
		err = s.Follow(ctx, func(Event) {})
		if cerr := s.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			fmt.Println("ERR", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestSessionSIGINT$")
	cmd.Env = append(os.Environ(), "LATLAB_TRACEFS_HELPER=1")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line := make([]byte, 512)
	n, _ := out.Read(line)
	f := strings.Fields(string(line[:n]))
	if len(f) != 2 || f[0] == "ERR" {
		_ = cmd.Process.Kill()
		t.Fatalf("helper: %q", line[:n])
	}
	if _, err := os.Stat(f[0]); err != nil {
		t.Fatalf("no instance while running: %v", err)
	}
	time.Sleep(200 * time.Millisecond)
	_ = cmd.Process.Signal(syscall.SIGINT)
	rest := make([]byte, 512)
	k, _ := out.Read(rest)
	if err := cmd.Wait(); err != nil {
		t.Fatalf("helper: %v %q", err, rest[:k])
	}
	for _, p := range f {
		if _, err := os.Stat(p); !os.IsNotExist(err) {
			t.Errorf("%s left behind after SIGINT: %v", p, err)
		}
	}
}

// Issue 40: a session killed with SIGKILL left its instance tracing and
// its private mount for ever; the next run removed the instance but never
// the mount. Now both names say which process made them, and the next
// session removes both once that process is gone.
func TestSessionSIGKILLLeftoversRemoved(t *testing.T) {
	needTracing(t)
	if os.Getenv("LATLAB_TRACEFS_HELPER") == "kill" {
		s, err := Open(Options{Events: []string{"sched/sched_switch"}, PrivateMount: true, BufferKB: 256})
		if err != nil {
			fmt.Println("ERR", err)
			os.Exit(1)
		}
		fmt.Printf("%s %s\n", s.Dir, s.Root)
		time.Sleep(time.Minute) // until killed; bounded if the parent fails
		os.Exit(1)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestSessionSIGKILLLeftoversRemoved$")
	cmd.Env = append(os.Environ(), "LATLAB_TRACEFS_HELPER=kill")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line := make([]byte, 512)
	n, _ := out.Read(line)
	f := strings.Fields(string(line[:n]))
	if len(f) != 2 || f[0] == "ERR" {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		t.Fatalf("helper: %q", line[:n])
	}
	dir, root := f[0], f[1]
	pid := cmd.Process.Pid
	if !strings.Contains(filepath.Base(root), fmt.Sprintf("%s%d-", privateMountPrefix, pid)) ||
		!strings.HasPrefix(filepath.Base(dir), fmt.Sprintf("%s%d-", InstancePrefix, pid)) {
		t.Errorf("the names %s and %s do not say process %d made them", dir, root, pid)
	}
	_ = cmd.Process.Signal(syscall.SIGKILL)
	_ = cmd.Wait()
	if !isMountPoint(t, root) {
		t.Fatalf("%s: the killed session's mount is already gone", root)
	}
	if on, err := os.ReadFile(filepath.Join(dir, "tracing_on")); err != nil || strings.TrimSpace(string(on)) != "1" {
		t.Fatalf("the killed session's instance: tracing_on %q %v", on, err)
	}
	// The next run.
	s, err := Open(Options{Events: []string{"sched/sched_switch"}, PrivateMount: true, BufferKB: 256})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if isMountPoint(t, root) {
		t.Errorf("the next run left the killed session's mount at %s", root)
	}
	if _, err := os.Stat(root); !os.IsNotExist(err) {
		t.Errorf("the next run left the mount point %s: %v", root, err)
	}
	if _, err := os.Stat(s.Dir); err != nil {
		t.Errorf("the next run's own instance: %v", err)
	}
}

// A killed session's instance in the shared mount is removed by
// RemoveLeftovers (what `latlab doctor` runs), and an instance whose pid
// is alive but started at another time (a reused pid) counts as gone.
func TestRemoveLeftoversInstances(t *testing.T) {
	needTracing(t)
	// A mount of tracefs of its own, named as no session names one: it
	// stands for the shared /sys/kernel/tracing. In the host's mount
	// namespace a session of another package's tests, running meanwhile,
	// would take it for the shared mount and lose it when this test
	// unmounts it.
	if !testutil.InOwnMountNamespace(t) {
		return
	}
	root := testutil.TempDir(t)
	if err := unix.Mount("nodev", root, "tracefs", 0, ""); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { unix.Unmount(root, unix.MNT_DETACH) })
	me := self()
	alive := filepath.Join(root, "instances", fmt.Sprintf("%s%s-99", InstancePrefix, me))
	reused := filepath.Join(root, "instances", fmt.Sprintf("%s%d-%d-99", InstancePrefix, os.Getppid(), 1))
	for _, p := range []string{alive, reused} {
		if err := os.Mkdir(p, 0o700); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { unix.Rmdir(p) })
	}
	got := RemoveLeftovers()
	if _, err := os.Stat(alive); err != nil {
		t.Errorf("this process's instance was removed: %v", err)
	}
	if _, err := os.Stat(reused); !os.IsNotExist(err) {
		t.Errorf("an instance of a reused pid was kept: %v", err)
	}
	// Every mount of tracefs shows the same instances: when the host had
	// /sys/kernel/tracing mounted as this namespace was made, the
	// instance is found (and reported) there first.
	found := false
	for _, l := range got {
		found = found || filepath.Base(l.Path) == filepath.Base(reused) &&
			filepath.Base(filepath.Dir(l.Path)) == "instances" && l.Err == nil
	}
	if !found {
		t.Errorf("RemoveLeftovers said %v", got)
	}
}

func TestOwnerNames(t *testing.T) {
	for _, c := range []struct {
		name string
		want owner
		ok   bool
	}{
		{"latlab-12-3456-1", owner{12, 3456}, true},
		{"latlab-12-1", owner{12, 0}, true},
		{"latlab-x-1", owner{}, false},
		{"other-12-1", owner{}, false},
		{"latlab-12-0-1", owner{}, false},
	} {
		got, ok := instanceOwner(c.name)
		if ok != c.ok || got != c.want {
			t.Errorf("%s: %v %v, want %v %v", c.name, got, ok, c.want, c.ok)
		}
	}
	if st, ok := procStart(os.Getpid()); !ok || st == 0 {
		t.Fatalf("own start time: %d %v", st, ok)
	}
	if self().gone() {
		t.Error("this process is gone")
	}
}

// With Options.Yield a drain gives up its CPU after each page, up to
// yieldPages of each CPU, and without it never.
func TestSessionDrainYields(t *testing.T) {
	needTracing(t)
	for _, yield := range []bool{false, true} {
		s, err := Open(Options{Events: []string{"sched/sched_switch", "irq/softirq_*"}, PrivateMount: true, BufferKB: 512, Yield: yield})
		if err != nil {
			t.Fatal(err)
		}
		loopback(t, 2000)
		_ = s.Stop()
		yields := 0
		old := schedYield
		schedYield = func() { yields++ }
		n, err := s.Drain(func(Event) {})
		schedYield = old
		s.Close()
		if err != nil {
			t.Fatal(err)
		}
		switch {
		case n == 0:
			t.Fatalf("yield %v: no events", yield)
		case !yield && yields != 0:
			t.Errorf("%d yields without Options.Yield", yields)
		case yield && (yields == 0 || yields > yieldPages*len(s.cpus)):
			t.Errorf("%d yields over %d events on %d CPUs: want 1 to %d a CPU", yields, n, len(s.cpus), yieldPages)
		}
	}
}
