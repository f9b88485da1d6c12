package cli

import (
	"bytes"
	"encoding/json"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/latlab/latlab/internal/etw"
	"github.com/latlab/latlab/internal/host"
	"github.com/latlab/latlab/internal/netload"
	"github.com/latlab/latlab/internal/report"
	"github.com/latlab/latlab/internal/result"
	"github.com/latlab/latlab/internal/testutil"
)

// tcp-discard --etw prints the D-SACK verdict of the Windows 11 events and
// keeps the report as data.dsack.
func TestTCPETWDSackVerdict(t *testing.T) {
	loc := netip.MustParseAddrPort("192.0.2.10:50123")
	rem := netip.MustParseAddrPort("192.0.2.20:9")
	evs := []etw.TCPEvent{
		{ID: 1033, Name: "TcpConnectTcbComplete", Tcb: 1, Local: loc, Remote: rem},
		{ID: 1601, Name: "TcpSendTrackerUpdateReoWnd", Tcb: 1, Timestamp: 1, Fields: map[string]uint64{"Multiplier": 1, "Reownd": 250, "ReorderingSeen": 1}},
		{ID: 1603, Name: "SackReorderingDetected", Tcb: 1, Timestamp: 2},
		{ID: 1604, Name: "LossRecoverySend", Tcb: 1, Timestamp: 3},
		{ID: 1600, Name: "TcpReceiveSack", Tcb: 1, Timestamp: 4, Fields: map[string]uint64{"DSackCount": 0}},
	}
	conn := etw.ForConnection(evs, loc, rem, 1000)
	tr := &netload.TCPEvents{Conn: conn, DSack: etw.AnalyzeDSack(conn, 22000)}
	var b bytes.Buffer
	report.TCPEvents(&b, tr)
	out := b.String()
	for _, want := range []string{"D-SACKs counted: 0 in 1 TcpReceiveSack events", "reorder window: 1 updates, 0 changes, adapted false",
		"verdict: D-SACKs never adapted the reorder window (the Windows 11 22000.x"} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %q in\n%s", want, out)
		}
	}
	for _, l := range strings.Split(out, "\n") {
		if utf8.RuneCountInString(l) > 80 {
			t.Errorf("line wider than 80 columns: %q", l)
		}
	}
	data, _ := netload.NewTCPData(&netload.TCPResult{SinkBytes: 1, Events: tr})
	var doc bytes.Buffer
	if err := result.Write(&doc, netload.KindTCPDiscard.New(host.Facts{}, data)); err != nil {
		t.Fatal(err)
	}
	var back struct {
		Data struct {
			DSack struct {
				Verdict string `json:"verdict"`
				Adapted bool   `json:"adapted"`
			} `json:"dsack"`
		} `json:"data"`
	}
	if err := json.Unmarshal(doc.Bytes(), &back); err != nil || !strings.HasPrefix(back.Data.DSack.Verdict, etw.VerdictDSackBug) {
		t.Errorf("%v %+v", err, back)
	}
	if _, err := result.Read(&doc); err != nil {
		t.Errorf("the document does not read back: %v", err)
	}
}

// pcap tcp --etw-result holds the D-SACKs TcpReceiveSack counted against
// those a capture of the same connection shows the peer sending, as Gary
// Nebbett compared DSackCount with the raw packets (research 001:52).
// closing.pcap's stream 0 (10.0.0.1:40000 -> 10.0.0.2:80) carries one
// D-SACK from the peer.
func TestPcapTCPETWResultComparesDSacks(t *testing.T) {
	write := func(local, peer string, counted uint64) string {
		conn := &etw.TCPConnection{Found: true}
		r := etw.AnalyzeDSack(conn, 22000)
		r.DSacks = counted
		data, _ := netload.NewTCPData(&netload.TCPResult{SinkBytes: 1, Local: local, Peer: peer, Events: &netload.TCPEvents{Conn: conn, DSack: r}})
		var doc bytes.Buffer
		if err := result.Write(&doc, netload.KindTCPDiscard.New(host.Facts{}, data)); err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(testutil.TempDir(t), "run.json")
		if err := os.WriteFile(p, doc.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	capture := "../tcpflow/testdata/closing.pcap"
	for _, tc := range []struct {
		local, peer string
		counted     uint64
		want        []string
	}{
		{"10.0.0.1:40000", "10.0.0.2:80", 0, []string{"tcp.stream 0: TcpReceiveSack counted 0, the capture shows 1 from the peer", "this build does not recognise D-SACKs"}},
		{"192.168.1.5:40000", "203.0.113.9:80", 1, []string{"counted all 1 D-SACKs the capture shows: recognition works"}},
		{"10.0.0.1:40001", "10.0.0.2:80", 0, []string{"the capture shows 0 from the peer", "nothing to recognise"}},
		{"10.0.0.1:1", "10.0.0.2:2", 0, []string{"not in this capture"}},
	} {
		code, out, errs := runCLI(t, "pcap", "tcp", capture, "--etw-result", write(tc.local, tc.peer, tc.counted))
		if code != 0 {
			t.Fatalf("exit %d: %s", code, errs)
		}
		flat := strings.Join(strings.Fields(out), " ")
		for _, w := range tc.want {
			if !strings.Contains(flat, w) {
				t.Errorf("%s -> %s: lacks %q:\n%s", tc.local, tc.peer, w, out)
			}
		}
	}
	// A document that is not tcp-discard --etw's: exit 2, one line.
	noETW := filepath.Join(testutil.TempDir(t), "plain.json")
	data, _ := netload.NewTCPData(&netload.TCPResult{SinkBytes: 1, Local: "10.0.0.1:40000", Peer: "10.0.0.2:80"})
	var doc bytes.Buffer
	if err := result.Write(&doc, netload.KindTCPDiscard.New(host.Facts{}, data)); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(noETW, doc.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, errs := runCLI(t, "pcap", "tcp", capture, "--etw-result", noETW)
	testutil.CheckBadExit(t, "an ETW result without D-SACK", code, errs, "no D-SACK report")
}
