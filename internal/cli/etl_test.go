package cli

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/latlab/latlab/internal/testutil"
)

// The traces live with the reader: two REAL traces written by Windows and
// the ones its tests WRITE (see internal/etl/testdata/README.md).
const etlData = "../etl/testdata/"

func TestETLHumanFits80Columns(t *testing.T) {
	code, out, errs := runCLI(t, "etl", etlData+"ShutdownPerfDiagLogger.etl")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, want := range []string{
		"Windows   10.0 build 18362, 64-bit",
		"2cb15d1d-5fc1-11d2-abe1-00a0c911f518 Image                         13755",
		"68fdd900-4a3e-11d1-84f4-0000f80464e3 EventTrace                        9",
		"kernel modules from Image events (196)",
		"ntoskrnl.exe                             0xfffff802424ab000   11231232",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q", want)
		}
	}
	for i, l := range strings.Split(out, "\n") {
		if n := len([]rune(l)); n > 80 {
			t.Errorf("line %d has %d columns: %q", i+1, n, l)
		}
	}
}

func TestETLJSON(t *testing.T) {
	code, out, errs := runCLI(t, "etl", etlData+"written-dpcisr-64.etl", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	// the shape the issue asks for, read without latlab's types
	var doc struct {
		Kind string
		Data struct {
			Providers []struct {
				GUID   string
				Name   string
				Events int64
			}
			Modules []struct {
				Name string
				Base uint64
				Size uint64
			}
			Uses []struct{ Command string }
		}
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Kind != "etl" || len(doc.Data.Modules) != 4 || doc.Data.Modules[0].Name != "ndis.sys" || doc.Data.Modules[0].Base != 0xfffff80241000000 {
		t.Errorf("document %+v", doc)
	}
	var perf int64
	for _, p := range doc.Data.Providers {
		if p.GUID == "ce1dbfb4-137e-4da6-87b0-3f59aa102cbc" && p.Name == "PerfInfo" {
			perf = p.Events
		}
	}
	if perf != 120 || len(doc.Data.Uses) != 1 || !strings.HasPrefix(doc.Data.Uses[0].Command, "latlab dpcisr") {
		t.Errorf("PerfInfo %d events, uses %+v", perf, doc.Data.Uses)
	}
}

func TestETLBadInput(t *testing.T) {
	code, _, errs := runCLI(t, "etl", etlData+"README.md")
	testutil.CheckBadExit(t, "not a trace", code, errs, "not an .etl trace")
}

// The written DPC/ISR trace: per CPU four rounds of 15 executions (10
// DPCs: ndis.sys, ntoskrnl.exe and storport.sys 3 each, one outside every
// module; 5 ISRs: USBXHCI.SYS 3, ndis.sys's MSI 2), on two CPUs. The
// -dcend trace lists its modules only in the rundown at its end (Image
// DCEnd): they name the routines all the same.
func TestDPCISRFromETL(t *testing.T) {
	for _, f := range []string{"written-dpcisr-64.etl", "written-dpcisr-32.etl", "written-dpcisr-64-dcend.etl"} {
		code, out, errs := runCLI(t, "dpcisr", etlData+f, "--json")
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", f, code, errs)
		}
		var doc struct {
			Kind string
			Data struct {
				Source   string
				Encoding string
				Sections []struct {
					Name    string
					Modules []struct {
						Module string
						Total  int64
					}
				}
			}
		}
		if err := json.Unmarshal([]byte(out), &doc); err != nil {
			t.Fatal(err)
		}
		got := map[string]int64{}
		for _, s := range doc.Data.Sections {
			for _, m := range s.Modules {
				got[s.Name+" "+m.Module] = m.Total
			}
		}
		want := map[string]int64{
			"DPC ndis.sys": 24, "DPC ntoskrnl.exe": 24, "DPC storport.sys": 24, "DPC Unknown": 8,
			"ISR USBXHCI.SYS": 24, "ISR ndis.sys": 16,
		}
		if doc.Kind != "dpcisr" || doc.Data.Encoding != "etl" || len(got) != len(want) {
			t.Errorf("%s: %s %s %v", f, doc.Kind, doc.Data.Encoding, got)
		}
		for k, v := range want {
			if got[k] != v {
				t.Errorf("%s: %s: %d, want %d", f, k, got[k], v)
			}
		}
	}
	code, out, errs := runCLI(t, "dpcisr", "compare", etlData+"written-dpcisr-64.etl", etlData+"written-dpcisr-32.etl", "--module", "ndis.sys")
	if code != 0 || !strings.Contains(out, "ndis.sys") {
		t.Errorf("compare: exit %d: %s %s", code, out, errs)
	}
	code, _, errs = runCLI(t, "dpcisr", etlData+"lxcore_kernel.etl")
	testutil.CheckBadExit(t, "a trace without DPCs", code, errs, "holds no DPC or ISR events")
}

// netsh trace capture=yes and pktmon traces go through the capture
// pipeline: the DSCP of every frame, pktmon's copies dropped.
func TestPcapDSCPFromETL(t *testing.T) {
	code, out, errs := runCLI(t, "pcap", "dscp", etlData+"written-ndis.etl")
	if code != 0 || !strings.Contains(out, "6 IP packets") || !strings.Contains(out, "EF (46) x4") || !strings.Contains(out, "CS0 (0) x2") {
		t.Errorf("ndis: exit %d: %s %s", code, out, errs)
	}
	code, out, errs = runCLI(t, "pcap", "dscp", etlData+"written-pktmon.etl")
	if code != 0 || !strings.Contains(out, "etl, 6 frames, 3 IP packets") || !strings.Contains(out, "AF41 (34) x1") || !strings.Contains(out, "duplicates dropped: 3 copies") {
		t.Errorf("pktmon: exit %d: %s %s", code, out, errs)
	}
}

func TestETLTCPIPEvents(t *testing.T) {
	code, out, errs := runCLI(t, "etl", etlData+"written-ndis.etl", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var doc struct {
		Data struct {
			TCP []struct {
				Local, Remote string
				Events        int
				Counts        map[string]int
			}
		}
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	// the other Tcb's retransmission round is not this connection's
	if len(doc.Data.TCP) != 1 || doc.Data.TCP[0].Local != "192.0.2.1:50010" || doc.Data.TCP[0].Remote != "192.0.2.2:9" ||
		doc.Data.TCP[0].Events != 3 || doc.Data.TCP[0].Counts["TcpDataTransferRetransmitRound"] != 2 || doc.Data.TCP[0].Counts["TcpRack"] != 1 {
		t.Errorf("tcp %+v", doc.Data.TCP)
	}
}
