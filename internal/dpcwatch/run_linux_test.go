package dpcwatch

import (
	"context"
	"net"
	"os"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/latlab/latlab/internal/dpcisr"
	"github.com/latlab/latlab/internal/irq"
	"github.com/latlab/latlab/internal/testutil"
	"github.com/latlab/latlab/internal/tracefs"
)

// snapshot reads /proc/interrupts and /proc/softirqs as name -> total:
// softirq names, the architecture rows (LOC, RES, CAL, ...) and
// device lines with one action as "IRQ N".
func snapshot(t *testing.T) map[string]uint64 {
	t.Helper()
	out := map[string]uint64{}
	f, err := os.Open("/proc/interrupts")
	if err != nil {
		t.Fatal(err)
	}
	in, err := irq.ParseInterrupts(f)
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range in.Rows {
		switch {
		case r.Kind == irq.KindIRQ && len(r.Actions) == 1:
			out["IRQ "+r.Name] = r.Total
		case r.Kind == irq.KindArch:
			out[r.Name] += r.Total
		}
	}
	f, err = os.Open("/proc/softirqs")
	if err != nil {
		t.Fatal(err)
	}
	sf, err := irq.ParseSoftirqs(f)
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range sf.Rows {
		out[r.Name] = r.Total
	}
	return out
}

// The watch's counts agree with the kernel's own counters over the same
// window. The counters are read four times: A before the trace starts, B
// once it runs, C just before it stops and D after. Every execution the
// trace counts began after tracing started and ended before it stopped,
// so its count lies between the counters' C-B and D-A; the lower bound is
// loosened by one execution per CPU and kind, for handlers the counter
// saw begin before C whose exit came after the stop. Loopback UDP traffic
// during the watch makes NET_RX softirqs.
func TestWatchAgreesWithProcCounters(t *testing.T) {
	testutil.NeedTracing(t)
	var a, b, c, d map[string]uint64
	stop := make(chan struct{})
	var wg sync.WaitGroup
	a = snapshot(t)
	res, err := Run(context.Background(), Options{
		Duration: 1500 * time.Millisecond,
		OnStart: func(string) {
			b = snapshot(t)
			wg.Add(1)
			go func() { defer wg.Done(); udpLoop(stop) }()
		},
		BeforeStop: func() { c = snapshot(t) },
		AfterStop:  func() { d = snapshot(t) },
	})
	close(stop)
	wg.Wait()
	if err != nil {
		t.Fatal(err)
	}
	if res.Report.Source != dpcisr.SourceTracefs || len(res.Report.Sections) == 0 || res.Report.Sections[0].Name != dpcisr.SoftIRQ {
		t.Fatalf("report %+v", res.Report)
	}
	// Lost events make the counts lower bounds. An exit without its entry
	// (a handler running when tracing started, more likely on a busy
	// machine) is within the bounds' slack below.
	for _, n := range res.Summary.Notes {
		if strings.HasPrefix(n, "the ring buffer lost") {
			t.Fatalf("events lost: %s", n)
		}
	}
	got := map[string]int64{}
	for _, m := range res.Summary.SoftIRQ {
		got[m.Module] = m.Count
	}
	for _, m := range res.Summary.HardIRQ {
		// "LOC (local_timer)" and "CAL (call_function_single)" count in
		// their /proc/interrupts rows; "eth0 (IRQ 24)" in "IRQ 24".
		key := m.Module
		if i := strings.LastIndex(key, " (IRQ "); i >= 0 {
			key = "IRQ " + strings.TrimSuffix(key[i+6:], ")")
		} else if i := strings.Index(key, " ("); i >= 0 {
			key = key[:i]
		}
		got[key] += m.Count
	}
	slack := int64(runtime.NumCPU())
	checked := 0
	for name, n := range got {
		if _, ok := a[name]; !ok {
			continue // a vector /proc/interrupts has no row for
		}
		lo, hi := int64(c[name]-b[name])-slack, int64(d[name]-a[name])
		if n < lo || n > hi {
			t.Errorf("%s: traced %d, the kernel counted %d to %d", name, n, lo+slack, hi)
		}
		checked++
	}
	if got["NET_RX"] == 0 || got["LOC"] == 0 || checked < 4 {
		t.Errorf("checked %d rows; traced %v", checked, got)
	}
	t.Logf("traced %v", got)
}

func udpLoop(stop chan struct{}) {
	c, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		return
	}
	defer c.Close()
	buf := make([]byte, 64)
	for {
		select {
		case <-stop:
			return
		default:
		}
		if _, err := c.WriteTo(buf, c.LocalAddr()); err != nil {
			return
		}
		_ = c.SetReadDeadline(time.Now().Add(100 * time.Millisecond))
		_, _, _ = c.ReadFrom(buf)
		time.Sleep(200 * time.Microsecond)
	}
}

// A watch leaves no tracefs instance behind.
func TestWatchLeavesNothing(t *testing.T) {
	testutil.NeedRoot(t)
	ctx, cancel := context.WithCancel(context.Background())
	var name string
	go func() { time.Sleep(300 * time.Millisecond); cancel() }()
	if _, err := Run(ctx, Options{OnStart: func(s string) { name = s }}); err != nil {
		t.Fatal(err)
	}
	if root := tracefs.Mounted(); root != "" {
		for _, in := range tracefs.Instances(root) {
			if in == name {
				t.Errorf("instance %s left behind", name)
			}
		}
	}
}
