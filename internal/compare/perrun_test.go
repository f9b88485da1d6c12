package compare

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/latlab/latlab/internal/host"
	"github.com/latlab/latlab/internal/netload"
	"github.com/latlab/latlab/internal/result"
	"github.com/latlab/latlab/internal/stats"
	"github.com/latlab/latlab/internal/testutil"
)

// tcpDoc is a tcp-discard document as `latlab net tcp-discard` writes it:
// netload's payload, and the sampled smoothed RTT as samples_ns.
func tcpDoc(t *testing.T, size, wallNs int64, rttNs int64, nrtt int) *result.Document {
	t.Helper()
	r := &netload.TCPResult{Size: size, Written: size, WallNs: wallNs, SinkBytes: size,
		GoodputBps: float64(size) * 8 / (float64(wallNs) / 1e9)}
	data, _ := netload.NewTCPData(r)
	rtt := make([]int64, nrtt)
	for i := range rtt {
		rtt[i] = rttNs + int64(i%7)*1000
	}
	data.RTTSamples = rtt
	// Through the JSON, as compare reads it.
	var b bytes.Buffer
	if err := result.Write(&b, netload.KindTCPDiscard.New(host.Facts{}, data)); err != nil {
		t.Fatal(err)
	}
	d, err := result.Read(&b)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// side makes n runs whose wall times scatter around wall; every run
// carries many RTT samples around rtt.
func side(t *testing.T, label string, n int, size, wall, rtt int64, seed uint64) Input {
	r := rand.New(rand.NewPCG(seed, 9))
	x := Input{Label: label}
	for i := 0; i < n; i++ {
		d := tcpDoc(t, size, wall+int64(r.NormFloat64()*float64(wall)/20), rtt, 500)
		if i == 0 {
			x.Doc = d
		} else {
			x.More = append(x.More, d)
		}
	}
	return x
}

// The research compares transfers by their duration and goodput per run.
// B's transfers take half as long although its connection's smoothed RTT
// is five times A's: pooling the RTT samples called B slower; per run, B
// is faster, and its goodput is about twice A's.
func TestTCPDiscardComparedPerRun(t *testing.T) {
	a := side(t, "before/", 25, 10_000_000, 10e6, 100e3, 1)
	b := side(t, "after/", 25, 10_000_000, 5e6, 500e3, 2)
	r, err := Compare([]Input{a, b}, Options{By: stats.Quantile(50), Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if !r.PerRun || r.Quantity != "transfer time per run" || r.Runs[0].Runs != 25 || r.Runs[0].Summary.Count != 25 {
		t.Fatalf("per run %v, quantity %q, runs %d, count %d", r.PerRun, r.Quantity, r.Runs[0].Runs, r.Runs[0].Summary.Count)
	}
	p := r.Pairs[0]
	if p.Outcome != Faster {
		t.Errorf("outcome %s: %s", p.Outcome, p.Verdict)
	}
	if m := r.Runs[0].Summary.P50; m < 9e6 || m > 11e6 {
		t.Errorf("A's median is %d ns: not the transfer's duration", m)
	}
	var gp *Row
	for i := range p.Rows {
		if p.Rows[i].Unit == "bit/s" {
			gp = &p.Rows[i]
		}
	}
	if gp == nil || gp.Diff == nil || gp.Diff.Lo <= 0 || gp.B < 1.8*gp.A || gp.B > 2.2*gp.A {
		t.Errorf("goodput row %+v", gp)
	}
	if !strings.Contains(strings.Join(r.Notes, " "), "not pooled") {
		t.Errorf("notes %q", r.Notes)
	}
}

// One transfer per side is one run per side: no verdict, and it says runs.
func TestTCPDiscardTooFewRuns(t *testing.T) {
	for _, n := range []int{1, 5, 19} {
		a := side(t, "a.json", n, 1e6, 10e6, 100e3, 1)
		b := side(t, "b.json", n, 1e6, 1e6, 100e3, 2)
		r, err := Compare([]Input{a, b}, Options{By: stats.Quantile(50), Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		if p := r.Pairs[0]; p.Outcome != TooFew || !strings.Contains(p.Verdict, "too few runs") || !strings.Contains(p.Verdict, "20 runs per side") {
			t.Errorf("%d runs: %s: %s", n, p.Outcome, p.Verdict)
		}
	}
}

func TestPerRunIncompatible(t *testing.T) {
	a := side(t, "a/", 3, 1e6, 10e6, 100e3, 1)
	b := side(t, "b/", 3, 2e6, 10e6, 100e3, 2)
	if _, err := Compare([]Input{a, b}, Options{By: stats.Quantile(50)}); !errors.Is(err, ErrIncompatible) || !strings.Contains(err.Error(), "same --size") {
		t.Errorf("sizes: %v", err)
	}
	s1, s2 := sleepDoc(30, 1e6, 1e4, 1), sleepDoc(30, 1e6, 1e4, 2)
	_, err := Compare([]Input{{Label: "a/", Doc: s1, More: []*result.Document{s2}}, {Label: "b.json", Doc: s2}}, Options{By: stats.Quantile(50)})
	if !errors.Is(err, ErrIncompatible) || !strings.Contains(err.Error(), "one file per side") {
		t.Errorf("a group of sleep results: %v", err)
	}
	bad := side(t, "c/", 2, 1e6, 10e6, 100e3, 3)
	bad.More[0] = netload.KindTCPDiscard.New(host.Facts{}, &netload.TCPData{TCPResult: &netload.TCPResult{}})
	if _, err := Compare([]Input{a, bad}, Options{By: stats.Quantile(50)}); !errors.Is(err, ErrIncompatible) || !strings.Contains(err.Error(), "c/ (run 2)") {
		t.Errorf("an unfinished transfer: %v", err)
	}
}

// udpDoc is a udp document whose echo arrivals were timed as how says.
func udpDoc(t *testing.T, how string) *result.Document {
	t.Helper()
	rtt := make([]int64, 200)
	for i := range rtt {
		rtt[i] = 50_000 + int64(i%13)*1000
	}
	return udpRTTDoc(t, how, rtt)
}

// udpRTTDoc is a udp document of the round trips rtt, in that order,
// whose echo arrivals were timed as how says.
func udpRTTDoc(t *testing.T, how string, rtt []int64) *result.Document {
	t.Helper()
	n := int64(len(rtt))
	r := &netload.UDPResult{RatePPS: 128, Size: 256, Planned: n, Sent: n, Received: n,
		RTT: rtt, FromIntended: rtt, SendLag: make([]int64, n), ReceiveTimes: how}
	data, _, err := netload.NewUDPData(r, "", "")
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := result.Write(&b, netload.KindUDP.New(host.Facts{}, data)); err != nil {
		t.Fatal(err)
	}
	d, err := result.Read(&b)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// A round trip that ends at the kernel's receive stamp leaves out the
// receiving thread's wake-up, which one that ends at the read holds:
// comparing the two would report the change of method as a change of
// latency.
func TestUDPArrivalTimedAlike(t *testing.T) {
	kernel, read := udpDoc(t, "the kernel's receive time stamp (SO_TIMESTAMPNS)"), udpDoc(t, "the read's return")
	_, err := Compare([]Input{{Label: "a", Doc: kernel}, {Label: "b", Doc: read}}, Options{By: stats.Quantile(50)})
	if !errors.Is(err, ErrIncompatible) || !strings.Contains(err.Error(), "not comparable") || !strings.Contains(err.Error(), "SO_TIMESTAMPNS") {
		t.Fatalf("kernel against read times: %v", err)
	}
	old := udpDoc(t, "")
	if _, err := Compare([]Input{{Label: "a", Doc: kernel}, {Label: "b", Doc: old}}, Options{By: stats.Quantile(50)}); !errors.Is(err, ErrIncompatible) || !strings.Contains(err.Error(), "unrecorded") {
		t.Fatalf("kernel against a document without receive_times: %v", err)
	}
	if _, err := Compare([]Input{{Label: "a", Doc: kernel}, {Label: "b", Doc: udpDoc(t, "the kernel's receive time stamp (SO_TIMESTAMPNS)")}}, Options{By: stats.Quantile(50)}); err != nil {
		t.Fatalf("two kernel-timed runs: %v", err)
	}
}

// A udp run's round trips are in the order their echoes arrived: two
// runs of one dependent process are compared with the methods for
// dependent samples, as sleep and wake runs are.
func TestUDPRoundTripsInOrder(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 0))
	docs := make([]*result.Document, 2)
	for i := range docs {
		// An AR(1) process, phi 0.8: 50 µs plus 5 µs per unit.
		docs[i] = udpRTTDoc(t, "the read's return", testutil.AR1(rng, 1000, 0.8, 50_000, 5_000))
	}
	res, err := Compare([]Input{{Label: "a", Doc: docs[0]}, {Label: "b", Doc: docs[1]}}, Options{By: stats.Quantile(50), Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range res.Runs {
		if r.Serial == nil || !r.Serial.Dependent || r.Serial.Lag1 < 0.7 {
			t.Errorf("%s: serial %+v; want the round trips measured in order, dependent", r.Label, r.Serial)
		}
	}
	if got := res.Pairs[0].Test; got != stats.SerialMannWhitneyTest {
		t.Errorf("test %q, want the one for dependent samples", got)
	}
}
