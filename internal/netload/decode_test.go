package netload

import (
	"encoding/binary"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/latlab/latlab/internal/badinput"
	"github.com/latlab/latlab/internal/probe"
	"github.com/latlab/latlab/internal/sched"
)

// winTCPInfoV1 lays out a TCP_INFO_v1 as mstcpip.h defines it (x64,
// natural alignment), with distinct values so a wrong offset shows.
func winTCPInfoV1() []byte {
	b := make([]byte, WinTCPInfoV1Size)
	le := binary.LittleEndian
	le.PutUint32(b[0:], 4)        // State: TCPSTATE_ESTABLISHED
	le.PutUint32(b[4:], 1460)     // Mss
	le.PutUint64(b[8:], 12345)    // ConnectionTimeMs
	b[16] = 1                     // TimestampsEnabled, then 3 padding bytes
	le.PutUint32(b[20:], 850)     // RttUs
	le.PutUint32(b[24:], 610)     // MinRttUs
	le.PutUint32(b[28:], 64240)   // BytesInFlight
	le.PutUint32(b[32:], 87600)   // Cwnd
	le.PutUint32(b[36:], 262144)  // SndWnd
	le.PutUint32(b[40:], 131072)  // RcvWnd
	le.PutUint32(b[44:], 65536)   // RcvBuf
	le.PutUint64(b[48:], 1e7)     // BytesOut
	le.PutUint64(b[56:], 4321)    // BytesIn
	le.PutUint32(b[64:], 2920)    // BytesReordered
	le.PutUint32(b[68:], 4380)    // BytesRetrans
	le.PutUint32(b[72:], 2)       // FastRetrans
	le.PutUint32(b[76:], 7)       // DupAcksIn
	le.PutUint32(b[80:], 1)       // TimeoutEpisodes
	b[84] = 3                     // SynRetrans, then padding to 88
	le.PutUint32(b[88:], 11)      // SndLimTransRwin
	le.PutUint32(b[92:], 12)      // SndLimTimeRwin (ms)
	le.PutUint64(b[96:], 1<<33)   // SndLimBytesRwin
	le.PutUint32(b[104:], 21)     // SndLimTransCwnd
	le.PutUint32(b[108:], 22)     // SndLimTimeCwnd
	le.PutUint64(b[112:], 1<<34)  // SndLimBytesCwnd
	le.PutUint32(b[120:], 31)     // SndLimTransSnd
	le.PutUint32(b[124:], 32)     // SndLimTimeSnd
	le.PutUint64(b[128:], 999999) // SndLimBytesSnd
	return b
}

// The TCP_INFO_v1 additions, as winTCPInfoV1 sets them.
var winV1Fields = map[Field]int64{FSndLimTransRwin: 11, FSndLimTimeRwin: 12, FSndLimBytesRwin: 1 << 33,
	FSndLimTransCwnd: 21, FSndLimTimeCwnd: 22, FSndLimBytesCwnd: 1 << 34,
	FSndLimTransSnd: 31, FSndLimTimeSnd: 32, FSndLimBytesSnd: 999999}

func TestDecodeWindowsTCPInfo(t *testing.T) {
	// v1, v0, and a length between them: the v1 fields are decoded only
	// from a whole v1 structure.
	for _, size := range []int{WinTCPInfoV1Size, WinTCPInfoV0Size, WinTCPInfoV1Size - 8} {
		s, err := DecodeWindowsTCPInfo(winTCPInfoV1()[:size])
		if err != nil {
			t.Fatal(err)
		}
		want := map[Field]int64{FMSS: 1460, FRTT: 850, FMinRTT: 610, FBytesInFlight: 64240, FCwnd: 87600, FSndWnd: 262144,
			FBytesSent: 1e7, FBytesReordered: 2920, FBytesRetrans: 4380, FFastRetrans: 2, FDupAcksIn: 7, FTimeoutEpisodes: 1, FSynRetrans: 3}
		for f, v := range want {
			if got, ok := s.Get(f); !ok || got != v {
				t.Errorf("v%d %s = %d (%v), want %d", size, f, got, ok, v)
			}
		}
		for _, f := range []Field{FSsthresh, FRTTVar, FTotalRetrans, FReordering, FDeliveryRate, FUnacked, FRetransmits} {
			if _, ok := s.Get(f); ok {
				t.Errorf("%s present; Windows does not report it", f)
			}
		}
		for f, v := range winV1Fields {
			got, ok := s.Get(f)
			switch {
			case size >= WinTCPInfoV1Size && (!ok || got != v):
				t.Errorf("v1 %s = %d (%v), want %d", f, got, ok, v)
			case size < WinTCPInfoV1Size && ok:
				t.Errorf("%d bytes: %s present", size, f)
			}
		}
	}
	if _, err := DecodeWindowsTCPInfo(make([]byte, 40)); err == nil {
		t.Fatal("short structure accepted")
	}
	bad := winTCPInfoV1()
	binary.LittleEndian.PutUint32(bad, 77)
	if _, err := DecodeWindowsTCPInfo(bad); err == nil || !strings.Contains(err.Error(), "byte 0") {
		t.Fatalf("bad state: %v", err)
	}
}

// linuxTCPInfo lays out struct tcp_info up to length n.
func linuxTCPInfo(n int) []byte {
	b := make([]byte, 280)
	le := binary.LittleEndian
	b[liRetransmits] = 1
	le.PutUint32(b[liSndMss:], 1448)
	le.PutUint32(b[liUnacked:], 10)
	le.PutUint32(b[liSacked:], 3)
	le.PutUint32(b[liLost:], 2)
	le.PutUint32(b[liRetrans:], 1)
	le.PutUint32(b[liRtt:], 250)
	le.PutUint32(b[liRttvar:], 40)
	le.PutUint32(b[liSndSsthresh:], linuxInfiniteSsthresh)
	le.PutUint32(b[liSndCwnd:], 10)
	le.PutUint32(b[liReordering:], 3)
	le.PutUint32(b[liTotalRetrans:], 5)
	le.PutUint64(b[liBytesAcked:], 100000)
	le.PutUint32(b[liMinRtt:], 200)
	le.PutUint64(b[liDeliveryRate:], 12500000)
	le.PutUint64(b[liBytesSent:], 120000)
	le.PutUint64(b[liBytesRetrans:], 5000)
	le.PutUint32(b[liSndWnd:], 65535)
	return b[:n]
}

func TestDecodeLinuxTCPInfoByKernelLength(t *testing.T) {
	// 104: Linux 2.6 (through total_retrans); 160: 4.10 (min_rtt);
	// 232: 6.2 (snd_wnd).
	for _, c := range []struct {
		n       int
		present []Field
		absent  []Field
	}{
		{104, []Field{FCwnd, FRTT, FRTTVar, FTotalRetrans, FReordering, FUnacked, FRetransmits, FPacketsInFlight}, []Field{FMinRTT, FDeliveryRate, FBytesSent, FBytesInFlight, FSndWnd, FSsthresh}},
		{168, []Field{FMinRTT, FDeliveryRate}, []Field{FBytesSent, FBytesRetrans, FBytesInFlight, FSndWnd}},
		{216, []Field{FBytesSent, FBytesRetrans, FBytesInFlight}, []Field{FSndWnd}},
		{280, []Field{FSndWnd}, []Field{FSndLimTransRwin, FSndLimTimeCwnd, FSndLimBytesSnd, FBytesReordered, FDupAcksIn}},
	} {
		s, err := DecodeLinuxTCPInfo(linuxTCPInfo(c.n))
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range c.present {
			if _, ok := s.Get(f); !ok {
				t.Errorf("len %d: %s absent", c.n, f)
			}
		}
		for _, f := range c.absent {
			if _, ok := s.Get(f); ok {
				t.Errorf("len %d: %s present", c.n, f)
			}
		}
	}
	s, _ := DecodeLinuxTCPInfo(linuxTCPInfo(280))
	for f, v := range map[Field]int64{FCwnd: 14480, FRTT: 250, FMinRTT: 200, FBytesInFlight: 120000 - 5000 - 100000, FDeliveryRate: 12500000, FSndWnd: 65535, FRetransmits: 1, FPacketsInFlight: 10 - (3 + 2) + 1} {
		if got, _ := s.Get(f); got != v {
			t.Errorf("%s = %d, want %d", f, got, v)
		}
	}
	if _, err := DecodeLinuxTCPInfo(make([]byte, 50)); err == nil {
		t.Fatal("short tcp_info accepted")
	}
}

func TestTrackerCountsLossDupsReorderJitter(t *testing.T) {
	tr := newTracker(7, 6)
	pkt := func(run uint32, seq uint64, sent int64) []byte {
		b := make([]byte, HeaderLen)
		putHeader(b, header{Run: run, Seq: seq, Intended: sent - 5, Sent: sent})
		return b
	}
	// Arrivals: 0, 2, 1 (reordered), 2 (duplicate), 4, a stranger, a late
	// reachability echo; 3 and 5 are lost.
	tr.add(pkt(7, 0, 1000), 1100)
	tr.add(pkt(7, 2, 3000), 3132)
	tr.add(pkt(7, 1, 2000), 3140)
	tr.add(pkt(7, 2, 3000), 3150)
	tr.add(pkt(7, 4, 5000), 5100)
	tr.add(pkt(8, 5, 6000), 6100)
	tr.add(pkt(7, helloSeq, 1), 7000)
	tr.add([]byte("short"), 7001)
	if tr.unique != 4 || tr.dups != 1 || tr.reordered != 1 || tr.foreign != 2 {
		t.Fatalf("unique %d dups %d reordered %d foreign %d", tr.unique, tr.dups, tr.reordered, tr.foreign)
	}
	wantRTT := []int64{100, 132, 1140, 100}
	for i, v := range wantRTT {
		if tr.rtt[i] != v || tr.intended[i] != v+5 {
			t.Fatalf("rtt %v intended %v", tr.rtt, tr.intended)
		}
	}
	// RFC 3550: J += (|D| - J)/16 over transits 100, 132, 1140, 100.
	j := 0.0
	for _, d := range []float64{32, 1008, 1040} {
		j += (d - j) / 16
	}
	if math.Abs(tr.jitter-j) > 1e-9 {
		t.Fatalf("jitter %v, want %v", tr.jitter, j)
	}
}

func TestParseSize(t *testing.T) {
	for in, want := range map[string]int64{"1500": 1500, "64KB": 64000, "10MB": 10_000_000, "10MiB": 10 << 20, "1.5GB": 1_500_000_000, "2k": 2000, "0": 0} {
		if got, err := ParseSize(in); err != nil || got != want {
			t.Errorf("ParseSize(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "-5MB", "ten", "5XB", "1e400"} {
		if _, err := ParseSize(bad); err == nil {
			t.Errorf("ParseSize(%q) accepted", bad)
		}
	}
}

// Each invalid option is an input error whose message names the flag to
// change.
func TestValidateUDP(t *testing.T) {
	ok := UDPOptions{To: "x:1", RatePPS: 128, Size: 256, Duration: 1e9, DSCP: -1}
	if err := ok.Validate(); err != nil {
		t.Fatal(err)
	}
	pinned := ok
	pinned.Thread = &probe.Thread{CPU: sched.NumCPU() - 1, Priority: sched.Realtime, RTPrio: 99}
	if err := pinned.Validate(); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		mod  func(*UDPOptions)
		flag string
	}{
		{func(o *UDPOptions) { o.To = "" }, "--to"},
		{func(o *UDPOptions) { o.RatePPS = -1 }, "--rate"},
		{func(o *UDPOptions) { o.RatePPS = 0 }, "--rate"},
		{func(o *UDPOptions) { o.RatePPS = math.NaN() }, "--rate"},
		{func(o *UDPOptions) { o.RatePPS = 2e7 }, "--rate"},
		{func(o *UDPOptions) { o.Size = 10 }, "--size"},
		{func(o *UDPOptions) { o.Size = 70000 }, "--size"},
		{func(o *UDPOptions) { o.Count = -1 }, "--count"},
		{func(o *UDPOptions) { o.DSCP = 64 }, "--dscp"},
		{func(o *UDPOptions) { o.DSCP = -2 }, "--dscp"},
		{func(o *UDPOptions) { o.Duration = 0 }, "--duration"},
		{func(o *UDPOptions) { o.RatePPS = 1; o.Duration = 1 }, "--duration"}, // no packet is due within 1 ns
		{func(o *UDPOptions) { o.RatePPS = 1e7; o.Duration = 10e9 }, "--duration"},
		// a --count too large names --count, not the --duration it replaces
		{func(o *UDPOptions) { o.Count = 999999999999 }, "invalid --count 999999999999: at most"},
		{func(o *UDPOptions) { o.Thread = &probe.Thread{CPU: sched.NumCPU()} }, "--cpu"},
		{func(o *UDPOptions) { o.Thread = &probe.Thread{CPU: -2} }, "--cpu"},
		{func(o *UDPOptions) { o.Thread = &probe.Thread{CPU: -1, Priority: sched.Realtime} }, "--rtprio"},
		{func(o *UDPOptions) { o.Thread = &probe.Thread{CPU: -1, Priority: sched.Realtime, RTPrio: 100} }, "--rtprio"},
	} {
		o := ok
		c.mod(&o)
		err := o.Validate()
		if !badinput.Is(err) || !strings.Contains(err.Error(), c.flag) {
			t.Errorf("%+v: err %v, want an input error naming %s", o, err, c.flag)
		}
	}
}

func TestValidateTCP(t *testing.T) {
	ok := TCPOptions{To: "x:1", Size: 1, SampleEvery: time.Millisecond}
	if err := ok.Validate(); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		mod  func(*TCPOptions)
		flag string
	}{
		{func(o *TCPOptions) { o.To = "" }, "--to"},
		{func(o *TCPOptions) { o.Size = 0 }, "--size"},
		{func(o *TCPOptions) { o.Size = -5 }, "--size"},
		{func(o *TCPOptions) { o.SampleEvery = -1 }, "--sample-every"},
		{func(o *TCPOptions) { o.SampleEvery = 99 * time.Microsecond }, "--sample-every"},
	} {
		o := ok
		c.mod(&o)
		err := o.Validate()
		if !badinput.Is(err) || !strings.Contains(err.Error(), c.flag) {
			t.Errorf("%+v: err %v, want an input error naming %s", o, err, c.flag)
		}
	}
}

func FuzzDecodeTCPInfo(f *testing.F) {
	f.Add(linuxTCPInfo(280))
	f.Add(winTCPInfoV1())
	f.Fuzz(func(t *testing.T, b []byte) {
		_, _ = DecodeLinuxTCPInfo(b)
		_, _ = DecodeWindowsTCPInfo(b)
	})
}

func FuzzParseHeader(f *testing.F) {
	b := make([]byte, 64)
	putHeader(b, header{Run: 1, Seq: 2, Intended: 3, Sent: 4})
	f.Add(b)
	f.Fuzz(func(t *testing.T, b []byte) {
		tr := newTracker(1, 4)
		tr.add(b, 10)
		if tr.unique+tr.foreign+tr.dups > 1 {
			t.Fatal("one datagram counted twice")
		}
	})
}

// The CSV has a column per field any sample had; a sample without it has
// an empty cell, never a zero.
func TestTCPResultWriteCSV(t *testing.T) {
	var a, b TCPState
	a.set(FCwnd, 100)
	a.set(FRTT, 50)
	b.set(FCwnd, 200)
	r := &TCPResult{Samples: []TCPSample{{TNs: 1000, TCPState: a}, {TNs: 2000, TCPState: b, Retrans: true}}}
	var out strings.Builder
	if err := r.WriteCSV(&out); err != nil {
		t.Fatal(err)
	}
	want := "t_ns,retransmission,cwnd_bytes,rtt_us\n1000,0,100,50\n2000,1,200,\n"
	if out.String() != want {
		t.Fatalf("csv:\n%s\nwant:\n%s", out.String(), want)
	}
}
