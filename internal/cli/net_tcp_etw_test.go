package cli

import (
	"bytes"
	"encoding/json"
	"net/netip"
	"strings"
	"testing"

	"github.com/latlab/latlab/internal/etw"
	"github.com/latlab/latlab/internal/host"
	"github.com/latlab/latlab/internal/netload"
	"github.com/latlab/latlab/internal/report"
	"github.com/latlab/latlab/internal/result"
)

func TestTCPETWReport(t *testing.T) {
	loc := netip.MustParseAddrPort("127.0.0.1:41376")
	rem := netip.MustParseAddrPort("127.0.0.1:43453")
	evs := []etw.TCPEvent{
		{ID: 1033, Name: "TcpConnectTcbComplete", Tcb: 1, Timestamp: 100, Local: loc, Remote: rem},
		{ID: 1351, Name: "TcpDataTransferRetransmitRound", Tcb: 1, Timestamp: 100 + 25_000},
		{ID: 1387, Name: "TcpRack", Tcb: 1, Timestamp: 100 + 30_000, Fields: map[string]uint64{"RackReoWind": 4}},
	}
	tr := &netload.TCPEvents{Conn: etw.ForConnection(evs, loc, rem, 10_000_000), Notes: []string{"a trace note"}}
	var b bytes.Buffer
	report.TCPEvents(&b, tr)
	for _, want := range []string{"TcpDataTransferRetransmitRound   1", "TcpRack                          1", "last RACK reordering window (RackReoWind): 4"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("missing %q in\n%s", want, b.String())
		}
	}
	if r := tr.Retransmissions(); len(r) != 1 || r[0] != 2.5 {
		t.Errorf("marks %v", r)
	}
	data, notes := netload.NewTCPData(&netload.TCPResult{SinkBytes: 1, Events: tr})
	if len(notes) != 1 || notes[0] != "a trace note" {
		t.Errorf("notes %q", notes)
	}
	doc := netload.KindTCPDiscard.New(host.Facts{}, data)
	var out bytes.Buffer
	if err := result.Write(&out, doc); err != nil {
		t.Fatal(err)
	}
	var back struct {
		Data struct {
			ETW struct {
				Found  bool           `json:"found"`
				Counts map[string]int `json:"counts"`
				Events []struct {
					TMs  float64 `json:"t_ms"`
					Name string  `json:"name"`
				} `json:"events"`
			} `json:"etw"`
		} `json:"data"`
	}
	if err := json.Unmarshal(out.Bytes(), &back); err != nil || !back.Data.ETW.Found || len(back.Data.ETW.Events) != 2 || back.Data.ETW.Events[0].TMs != 2.5 {
		t.Errorf("%v %+v\n%s", err, back, out.Bytes())
	}
	if _, err := result.Read(&out); err != nil {
		t.Errorf("the document does not read back: %v", err)
	}
	// Without --etw nothing changes.
	var none *netload.TCPEvents
	n := b.Len()
	report.TCPEvents(&b, none)
	plain, notes := netload.NewTCPData(&netload.TCPResult{SinkBytes: 1})
	if none.Retransmissions() != nil || plain.ETW != nil || len(notes) != 0 || b.Len() != n {
		t.Error("no trace did something")
	}
}
