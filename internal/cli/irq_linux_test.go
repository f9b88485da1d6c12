package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/latlab/latlab/internal/irq"
	"github.com/latlab/latlab/internal/testutil"
)

// irq watch reads /proc under --root: a fixture tree whose counters do not
// move gives zero deltas and the device mapping.
func TestIRQWatchFixtureRoot(t *testing.T) {
	root := testutil.TempDir(t)
	for src, dst := range map[string]string{
		"../irq/testdata/interrupts-16cpu-multiqueue.txt": "proc/interrupts",
		"../irq/testdata/softirqs-hotplug-4cpu.txt":       "proc/softirqs",
	} {
		b, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(root, dst)
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, b, 0o644)
	}
	os.MkdirAll(filepath.Join(root, "sys/class/net/lo/queues/rx-0"), 0o755)
	code, stdout, stderr := runCLI(t, "--root", root, "irq", "watch", "--interval", "10ms", "--duration", "50ms", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	d := payload(t, readDoc(t, stdout), irq.KindWatch)
	if len(d.Total.CPUs) != 16 || len(d.Intervals) < 2 {
		t.Fatalf("cpus %v intervals %d", d.Total.CPUs, len(d.Intervals))
	}
	for _, r := range d.Total.Rows {
		if r.Total != 0 {
			t.Fatalf("row %s moved by %v in a fixture", r.Name, r.Total)
		}
	}
	if d.Network.Iface("lo") == nil || !d.Network.Iface("lo").Virtual {
		t.Fatalf("network %+v", d.Network)
	}
	if d.Total.StartNs != d.Intervals[0].StartNs || d.Total.EndNs != d.Intervals[len(d.Intervals)-1].EndNs {
		t.Fatalf("total %d..%d does not span the intervals", d.Total.StartNs, d.Total.EndNs)
	}

	// Past the bound only the running total is stored, spanning the watch.
	defer func(n int) { maxStoredIntervals = n }(maxStoredIntervals)
	maxStoredIntervals = 0 // the watch always reads at least one interval
	code, stdout, stderr = runCLI(t, "--root", root, "irq", "watch", "--interval", "10ms", "--duration", "100ms", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	doc := readDoc(t, stdout)
	d = payload(t, doc, irq.KindWatch)
	if len(d.Intervals) != 0 || len(doc.Notes) == 0 || !strings.Contains(strings.Join(doc.Notes, "\n"), "only the total is stored") {
		t.Fatalf("%d intervals stored, notes %q", len(d.Intervals), doc.Notes)
	}
	if len(d.Total.CPUs) != 16 || d.Total.EndNs-d.Total.StartNs < int64(100*time.Millisecond) {
		t.Fatalf("total %+v", d.Total)
	}
}

func TestIRQWatchDuring(t *testing.T) {
	dir := testutil.TempDir(t)
	plot := filepath.Join(dir, "irq.svg")
	code, stdout, stderr := runCLI(t, "irq", "watch", "--interval", "50ms", "--plot", plot, "--during", "--", "sleep", "0.2")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{"sleep 0.2 ran", "softirq NET_RX", "all interrupts"} {
		if !strings.Contains(stdout, want) {
			t.Fatalf("missing %q in:\n%s", want, stdout)
		}
	}
	if !strings.Contains(readFile(t, plot), "<svg") {
		t.Fatal("no SVG plot")
	}
	code, _, _ = runCLI(t, "irq", "watch", "--interval", "50ms", "--during", "--", "sh", "-c", "exit 3")
	if code != 3 {
		t.Fatalf("exit %d, want the command's 3", code)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"irq", "watch", "--during"}, "--during needs a command after --"},
		{[]string{"irq", "watch", "--", "sleep", "1"}, "a command after -- needs --during"},
		{[]string{"irq", "watch", "--plot", "a.gif"}, `invalid --plot: plot file "a.gif"`},
		{[]string{"irq", "watch", "--interval", "0"}, `invalid value "0" for --interval`},
		{[]string{"irq", "watch", "--interval", "1us"}, "invalid --interval 1µs: accepted 10ms or more"},
	} {
		code, _, errs := runCLI(t, c.args...)
		testutil.CheckBadExit(t, fmt.Sprint(c.args), code, errs, c.want)
	}
}

func TestRSSExperimentLoopback(t *testing.T) {
	code, stdout, stderr := runCLI(t, "net", "rss-experiment", "--duration", "300ms")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{"game", "bulk", "loopback: there is no NIC"} {
		if !strings.Contains(stdout, want) {
			t.Fatalf("missing %q in:\n%s", want, stdout)
		}
	}
}
