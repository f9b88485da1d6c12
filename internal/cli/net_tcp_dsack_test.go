package cli

import (
	"bytes"
	"encoding/json"
	"net/netip"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/latlab/latlab/internal/etw"
	"github.com/latlab/latlab/internal/host"
	"github.com/latlab/latlab/internal/netload"
	"github.com/latlab/latlab/internal/result"
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
	tr := &netload.TCPEvents{Conn: conn, DSack: etw.AnalyzeDSack(conn)}
	var b bytes.Buffer
	printTCPEvents(&b, tr)
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
