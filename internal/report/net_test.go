package report

import (
	"strings"
	"testing"

	"github.com/latlab/latlab/internal/netload"
	"github.com/latlab/latlab/internal/probe"
)

// On an 80-column terminal the TCP state table fits with the largest
// values a transfer reports (an 11-digit delivery rate, a byte count in
// the terabytes) and IPv6 endpoints; the values it shortens are named
// under it, and the fields the kernel left out wrap.
func TestPrintTCPFits80Columns(t *testing.T) {
	big := netload.FieldStat{First: 15_232_000_000, Min: 4_568_581_395, P50: 4_745_144_927, Max: 1_234_567_890_123, Last: 9_999_999, N: 3}
	d := &netload.TCPData{
		TCPResult: &netload.TCPResult{
			Peer: "[2001:db8:85a3::8a2e:370:7334]:9009", Local: "[2001:db8:85a3::8a2e:370:7335]:54321",
			Written: 1_000_000_000_000, ConnectNs: 310_837, WriteNs: 3_915_900_000, WallNs: 4_803_400_000,
			GoodputBps: 16.655e9, SinkBytes: 1_000_000_000_000, SinkTransferNs: 4_466_400_000,
			SampleMethod: "getsockopt(TCP_INFO)", SampleEveryNs: 1_000_000,
		},
		FieldStats: map[string]netload.FieldStat{},
		Samples:    []map[string]int64{{"t_ns": 1}},
	}
	for _, f := range netload.Fields() {
		if f.String() != "bytes_reordered" && f.String() != "dup_acks_in" && !strings.HasPrefix(f.String(), "snd_lim") {
			d.FieldStats[f.String()] = big
		}
	}
	var b strings.Builder
	l := WrapLines(WithWidth(&b, 80))
	NetTCPDiscard(l, d)
	if err := l.Flush(); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for i, l := range strings.Split(out, "\n") {
		if n := len([]rune(l)); n > 80 {
			t.Errorf("line %d has %d columns: %q", i+1, n, l)
		}
	}
	for _, want := range []string{
		" delivery_rate_bytes_per_s  15.23G  4.569G  4.745G  1.235T  9999999",
		"shortened: G = 10^9, T = 10^12 (--csv and --json hold every value whole)",
		"not reported by this kernel (absent, not zero): bytes_reordered, dup_acks_in,\n  snd_lim_trans_rwin,",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

// The pacing thread's line says what the thread got, its time slice too
// when it asked for one, and why a request failed.
func TestThreadDesc(t *testing.T) {
	for _, c := range []struct {
		t    probe.ThreadSetup
		want string
	}{
		{probe.ThreadSetup{CPU: -1, Priority: "normal"}, "priority normal, not pinned"},
		{probe.ThreadSetup{CPU: 0, Priority: "normal", SliceNs: 100_000}, "priority normal, pinned to CPU 0, time slice 100µs"},
		{probe.ThreadSetup{CPU: 1, Priority: "realtime", RTPrio: 80}, "priority realtime (rtprio 80), pinned to CPU 1"},
		{probe.ThreadSetup{CPU: -1, Priority: "normal", SliceNote: "the default slice: sched_setattr(slice 100µs): operation not permitted"},
			"priority normal, not pinned (the default slice: sched_setattr(slice 100µs): operation not permitted)"},
	} {
		if got := threadDesc(c.t); got != c.want {
			t.Errorf("threadDesc(%+v) = %q, want %q", c.t, got, c.want)
		}
	}
}

// A run timed at the read says why the OS's receive stamps were not
// used, on the echo arrival line, within 80 columns.
func TestNetUDPSaysWhyNoReceiveStamps(t *testing.T) {
	why := "WSAIoctl(SIO_TIMESTAMPING) failed: winapi error #10045 (receive stamps need Windows build 20348 or later)"
	r := &netload.UDPResult{Peer: "127.0.0.1:7", Local: "127.0.0.1:50000", RatePPS: 128, Size: 256, Planned: 2, Sent: 2, Received: 2,
		RTT: []int64{50_000, 60_000}, FromIntended: []int64{50_000, 60_000}, SendLag: []int64{0, 0},
		ReceiveTimes: "the goroutine's read", ReceiveStampsUnavailable: why}
	d, _, err := netload.NewUDPData(r, "", "")
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	l := WrapLines(WithWidth(&b, 80))
	NetUDP(l, d)
	if err := l.Flush(); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for i, l := range strings.Split(out, "\n") {
		if n := len([]rune(l)); n > 80 {
			t.Errorf("line %d has %d columns: %q", i+1, n, l)
		}
	}
	if flat := strings.Join(strings.Fields(out), " "); !strings.Contains(flat, "echo arrival: the goroutine's read; no receive stamps: "+why) {
		t.Errorf("no reason on the echo arrival line:\n%s", out)
	}
}
