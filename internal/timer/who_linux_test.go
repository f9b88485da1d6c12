package timer

import (
	"context"
	"encoding/binary"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/latlab/latlab/internal/testutil"
)

// statLine is a /proc/PID/stat line with the given policy in field 41.
func statLine(pid int, comm, policy string) string {
	f := make([]string, 50)
	for i := range f {
		f[i] = "0"
	}
	f[0] = "S"
	f[38] = policy
	return strings.Join(append([]string{strconv.Itoa(pid), "(" + comm + ")"}, f...), " ") + "\n"
}

// procTree builds a /proc with: a holder of the DMA latency device (two
// descriptors, and one to something else), a process with a slack of
// 1 µs, a realtime kernel thread with none, a process at the default.
func procTree(t *testing.T) string {
	root := t.TempDir()
	mk := func(pid int, comm, slack, policy string, links map[string]string) {
		d := filepath.Join(root, "proc", strconv.Itoa(pid))
		if err := os.MkdirAll(filepath.Join(d, "fd"), 0o755); err != nil {
			t.Fatal(err)
		}
		for name, body := range map[string]string{"comm": comm + "\n", "timerslack_ns": slack + "\n", "stat": statLine(pid, comm, policy)} {
			if err := os.WriteFile(filepath.Join(d, name), []byte(body), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		for fd, to := range links {
			if err := os.Symlink(to, filepath.Join(d, "fd", fd)); err != nil {
				t.Fatal(err)
			}
		}
	}
	mk(100, "cyclictest", "50000", "1", map[string]string{"3": "/dev/cpu_dma_latency", "4": "/dev/null", "7": "/dev/cpu_dma_latency"})
	mk(200, "latlab", "1000", "0", map[string]string{"0": "/dev/pts/0"})
	mk(300, "migration/0", "0", "1", nil)
	mk(400, "bash", "50000", "0", nil)
	if err := os.MkdirAll(filepath.Join(root, "proc", "self"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(root, "dev"), 0o755); err != nil {
		t.Fatal(err)
	}
	b := binary.NativeEndian.AppendUint32(nil, 0)
	if err := os.WriteFile(filepath.Join(root, "dev", "cpu_dma_latency"), b, 0o600); err != nil {
		t.Fatal(err)
	}
	return root
}

func TestWhoLinux(t *testing.T) {
	res, err := Who(context.Background(), WhoOptions{Root: procTree(t)})
	if err != nil {
		t.Fatal(err)
	}
	d := res.DMALatency
	if d == nil || d.EffectiveUs == nil || *d.EffectiveUs != 0 || len(d.Holders) != 1 {
		t.Fatalf("%+v", d)
	}
	if h := d.Holders[0]; h.PID != 100 || h.Comm != "cyclictest" || len(h.FDs) != 2 || h.FDs[0] != 3 || h.FDs[1] != 7 || h.Seen != 1 {
		t.Errorf("%+v", h)
	}
	if len(res.Slack) != 2 {
		t.Fatalf("%+v", res.Slack)
	}
	if s := res.Slack[0]; s.PID != 200 || s.Comm != "latlab" || s.SlackNs != 1000 || s.Policy != "SCHED_OTHER" {
		t.Errorf("%+v", s)
	}
	if s := res.Slack[1]; s.PID != 300 || s.SlackNs != 0 || s.Policy != "SCHED_FIFO" {
		t.Errorf("%+v", s)
	}
	if res.Scans != 1 || res.Unreadable != 0 || res.OS != "linux" {
		t.Errorf("%+v", res)
	}
}

// Without the device (or without root) the holders are still listed and
// the effective value is said to be unknown, with the reason.
func TestWhoLinuxNoDevice(t *testing.T) {
	root := procTree(t)
	os.Remove(filepath.Join(root, "dev", "cpu_dma_latency"))
	res, err := Who(context.Background(), WhoOptions{Root: root})
	if err != nil {
		t.Fatal(err)
	}
	if d := res.DMALatency; d.EffectiveUs != nil || !strings.Contains(d.EffectiveError, "/dev/cpu_dma_latency") || len(d.Holders) != 1 {
		t.Errorf("%+v", d)
	}
}

func TestWhoLinuxNoProc(t *testing.T) {
	_, err := Who(context.Background(), WhoOptions{Root: t.TempDir()})
	if err == nil || !strings.Contains(err.Error(), "proc") {
		t.Errorf("%v", err)
	}
}

func TestPolicyOf(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "stat")
	os.WriteFile(p, []byte(statLine(5, "a b) c", "6")), 0o644)
	if got := policyOf(p); got != "SCHED_DEADLINE" {
		t.Errorf("%q", got)
	}
	os.WriteFile(p, []byte("5 (x) S 1 2"), 0o644)
	if got := policyOf(p); got != "" {
		t.Errorf("short stat: %q", got)
	}
}

// FuzzParsePolicy: any /proc/PID/stat text gives a policy name or "".
func FuzzParsePolicy(f *testing.F) {
	f.Add(statLine(1, "init", "0"))
	f.Add(statLine(2, "a) (b", "1"))
	f.Add("1 (x")
	f.Fuzz(func(t *testing.T, s string) {
		p := parsePolicy(s)
		if p != "" && !strings.HasPrefix(p, "SCHED_") && !strings.HasPrefix(p, "policy ") {
			t.Fatalf("%q", p)
		}
	})
}

// timer status under a --root tree whose clocksource file links to a
// root-only file outside it does not show that file.
func TestQueryRootLinkNotFollowed(t *testing.T) {
	base := testutil.TempDir(t)
	secret := filepath.Join(base, "shadow")
	if err := os.WriteFile(secret, []byte("root-only\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	tree := filepath.Join(base, "tree")
	cs := filepath.Join(tree, "sys/devices/system/clocksource/clocksource0")
	if err := os.MkdirAll(cs, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(secret, filepath.Join(cs, "current_clocksource")); err != nil {
		t.Fatal(err)
	}
	st, err := queryFrom(tree)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(st.Clocksource, "root-only") {
		t.Errorf("clocksource %q: the link out of the tree was followed", st.Clocksource)
	}
}
