package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/pcapgo"
	"github.com/sebdah/goldie/v2"

	"github.com/latlab/latlab/internal/tcpflow"
	"github.com/latlab/latlab/internal/testutil"
)

const sshPcap = "../capture/testdata/ssh.pcap"

// The flows are in the payload and survive reading the document back; a
// document of an earlier latlab, with the flows at the top level, reads
// the same.
func TestPcapDSCPJSON(t *testing.T) {
	dir := testutil.TempDir(t)
	file := filepath.Join(dir, "dscp.json")
	code, out, errs := runCLI(t, "pcap", "dscp", sshPcap, "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if code, _, errs := runCLI(t, "pcap", "dscp", sshPcap, "--json", "-o", file); code != 0 {
		t.Fatalf("-o: exit %d: %s", code, errs)
	}
	doc := readDoc(t, out)
	d := payload(t, doc, KindPcapDSCP)
	flows := d.Flows
	if len(flows) != 2 || d.Capture == nil || d.Capture.IPPackets != 54 {
		t.Fatalf("kind %s, %d flows, capture %+v", doc.Kind, len(flows), d.Capture)
	}
	var earlier map[string]any
	if err := json.Unmarshal([]byte(out), &earlier); err != nil {
		t.Fatal(err)
	}
	data := earlier["data"].(map[string]any)
	earlier["flows"] = data["flows"]
	delete(data, "flows")
	b, _ := json.Marshal(earlier)
	if e := payload(t, readDoc(t, string(b)), KindPcapDSCP); len(e.Flows) != 2 || e.Flows[0].Src != flows[0].Src || e.Flows[1].Packets != flows[1].Packets {
		t.Fatalf("flows at the top level not read: %+v", e.Flows)
	}
	if saved := payload(t, readDoc(t, readFile(t, file)), KindPcapDSCP); len(saved.Flows) != 2 || saved.Flows[0].Packets != flows[0].Packets {
		t.Errorf("-o wrote another document than --json: %+v", saved.Flows)
	}
	for _, f := range flows {
		switch f.Sport {
		case 22: // the server: AF21 on all 24 packets
			if f.Packets != 24 || len(f.DSCP) != 1 || f.DSCP["18"] != 24 || f.DSCPNames["18"] != "AF21" || f.ECN["not-ect"] != 24 {
				t.Errorf("server flow %+v", f)
			}
		case 62146: // the client: CS1 x9 and 0 x21
			if f.Packets != 30 || f.DSCP["8"] != 9 || f.DSCP["0"] != 21 || f.Proto != "tcp" || f.Dst != "223.132.53.222" {
				t.Errorf("client flow %+v", f)
			}
		default:
			t.Errorf("unexpected flow %+v", f)
		}
	}
}

func TestPcapDSCPExpect(t *testing.T) {
	if code, _, errs := runCLI(t, "pcap", "dscp", sshPcap, "--filter", "sport 22", "--expect", "AF21"); code != 0 {
		t.Errorf("server marked AF21: exit %d: %s", code, errs)
	}
	if code, _, errs := runCLI(t, "pcap", "dscp", sshPcap, "--filter", "src 223.132.53.222", "--expect", "18"); code != 0 {
		t.Errorf("by number: exit %d: %s", code, errs)
	}
	code, out, errs := runCLI(t, "pcap", "dscp", sshPcap, "--filter", "port 22", "--expect", "af21")
	if code != 1 || !strings.Contains(errs, "202.108.87.165:62146 -> 223.132.53.222:22") || !strings.Contains(errs, "CS1 (8) x9") || !strings.Contains(out, "! 202.108.87.165") {
		t.Errorf("client not AF21: exit %d\nstdout %s\nstderr %s", code, out, errs)
	}
	if code, _, errs := runCLI(t, "pcap", "dscp", sshPcap, "--filter", "udp", "--expect", "EF"); code != 1 || !strings.Contains(errs, "no packet matched") {
		t.Errorf("nothing matches: exit %d %s", code, errs)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--expect", "AF44"}, `invalid --expect: unknown DSCP "AF44"`},
		{[]string{"--expect", "64"}, "invalid --expect: DSCP 64 out of range"},
		{[]string{"--filter", "port x"}, `invalid --filter: invalid filter: invalid port "x"`},
		{[]string{"--dedup", "maybe"}, `invalid --dedup "maybe": want auto, on or off`},
	} {
		code, _, errs := runCLI(t, append([]string{"pcap", "dscp", sshPcap}, c.args...)...)
		testutil.CheckBadExit(t, fmt.Sprint(c.args), code, errs, c.want)
	}
}

func TestPcapUnreadable(t *testing.T) {
	dir := testutil.TempDir(t)
	junk := filepath.Join(dir, "junk.pcap")
	if err := os.WriteFile(junk, []byte("this is not a capture"), 0o644); err != nil {
		t.Fatal(err)
	}
	one := filepath.Join(dir, "one.pcap")
	if err := os.WriteFile(one, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, sub := range []string{"dscp", "tcp"} {
		code, _, errs := runCLI(t, "pcap", sub, junk)
		testutil.CheckBadExit(t, sub+" junk", code, errs, "at byte 0")
		if !strings.Contains(errs, "unknown magic") {
			t.Errorf("%s junk: %q lacks unknown magic", sub, errs)
		}
		code, _, errs = runCLI(t, "pcap", sub, filepath.Join(dir, "missing.pcap"))
		testutil.CheckBadExit(t, sub+" missing", code, errs, "missing.pcap")
		code, _, errs = runCLI(t, "pcap", sub, one)
		testutil.CheckBadExit(t, sub+" one byte", code, errs, one+": not a readable capture: file truncated: the record at byte 0 is incomplete")
	}
	b, err := os.ReadFile(sshPcap)
	if err != nil {
		t.Fatal(err)
	}
	// cut off inside a record: a note, exit 0
	cut := filepath.Join(dir, "cut.pcap")
	os.WriteFile(cut, b[:len(b)-10], 0o644)
	code, out, errs := runCLI(t, "pcap", "tcp", cut)
	if code != 0 || !strings.Contains(out, "the file ends inside the record at byte") {
		t.Errorf("cut: exit %d\n%s\n%s", code, out, errs)
	}
	// a corrupt record length: results so far, then exit 2 with the offset
	bad := append([]byte(nil), b...)
	bad[24+8], bad[24+9], bad[24+10], bad[24+11] = 0xff, 0xff, 0xff, 0x7f
	corrupt := filepath.Join(dir, "corrupt.pcap")
	os.WriteFile(corrupt, bad, 0o644)
	code, _, errs = runCLI(t, "pcap", "dscp", corrupt)
	testutil.CheckBadExit(t, "corrupt", code, errs, "at byte 24")
	// the document says where reading stopped
	code, out, _ = runCLI(t, "pcap", "tcp", corrupt, "--json")
	var d struct {
		Data struct {
			Capture struct {
				ReadError *struct {
					Offset    int64  `json:"offset"`
					Message   string `json:"message"`
					Truncated bool   `json:"truncated"`
				} `json:"read_error"`
			} `json:"capture"`
		} `json:"data"`
	}
	if err := json.Unmarshal([]byte(out), &d); code != 2 || err != nil || d.Data.Capture.ReadError == nil ||
		d.Data.Capture.ReadError.Offset != 24 || d.Data.Capture.ReadError.Truncated || !strings.Contains(d.Data.Capture.ReadError.Message, "corrupt record") {
		t.Errorf("corrupt --json: exit %d %v, read_error %+v", code, err, d.Data.Capture.ReadError)
	}
}

type tcpDoc struct {
	Data tcpflow.Data `json:"data"`
}

// --graph and --window-graph, the names of pcap tcp's and net
// tcp-discard's charts before --plot meant a chart everywhere, still
// write them, each with one note naming the new flag.
func TestPcapTCPOldPlotSpellings(t *testing.T) {
	dir := testutil.TempDir(t)
	svg, png := filepath.Join(dir, "tseq.svg"), filepath.Join(dir, "rack.png")
	code, _, errs := runCLI(t, "pcap", "tcp", sshPcap, "--graph", svg, "--window-graph", png)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, note := range []string{"latlab: --graph is now --plot\n", "latlab: --window-graph is now --window-plot\n"} {
		if strings.Count(errs, note) != 1 {
			t.Errorf("stderr %q lacks %q once", errs, note)
		}
	}
	if s := readFile(t, svg); !strings.Contains(s, "relative sequence number") {
		t.Errorf("--graph wrote no time-sequence graph (%d bytes)", len(s))
	}
	if p := readFile(t, png); !strings.HasPrefix(p, "\x89PNG") {
		t.Errorf("--window-graph wrote no PNG")
	}
}

func TestPcapTCP(t *testing.T) {
	dir := testutil.TempDir(t)
	ev := filepath.Join(dir, "events.csv")
	svg := filepath.Join(dir, "tseq.svg")
	png := filepath.Join(dir, "rack.png")
	code, out, errs := runCLI(t, "pcap", "tcp", sshPcap, "--json", "--events", ev, "--plot", svg, "--window-plot", png)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	readDoc(t, out)
	var d tcpDoc
	if err := json.Unmarshal([]byte(out), &d); err != nil {
		t.Fatal(err)
	}
	if len(d.Data.Connections) != 1 {
		t.Fatalf("%d connections", len(d.Data.Connections))
	}
	c := d.Data.Connections[0]
	if c.AToB.Retransmissions != 1 || c.AToB.DSACKSpurious != 1 || c.BToA.DSACKBlocks != 1 || c.BToA.DuplicateAcks != 2 ||
		c.AToB.Handshake == nil || c.AToB.Handshake.MSS != 1460 || !c.AToB.Handshake.SACKPermitted {
		t.Errorf("connection %+v", c)
	}
	csv := readFile(t, ev)
	lines := strings.Split(strings.TrimSpace(csv), "\n")
	if lines[0] != "time,flow,frame,event,seq,ack,detail" {
		t.Errorf("header %q", lines[0])
	}
	for _, want := range []string{",49,retransmission,5186,3312,", ",54,dsack,3313,5283,5186-5283", ",54,dsack_spurious,", ",48,duplicate_ack,"} {
		if !strings.Contains(csv, want) {
			t.Errorf("events lack %q:\n%s", want, csv)
		}
	}
	if s := readFile(t, svg); !strings.Contains(s, "<svg") || !strings.Contains(s, "relative sequence number") {
		t.Errorf("graph is not an SVG time-sequence graph (%d bytes)", len(s))
	}
	if p := readFile(t, png); !strings.HasPrefix(p, "\x89PNG") {
		t.Errorf("window graph is not a PNG")
	}
	code, out, _ = runCLI(t, "pcap", "tcp", sshPcap)
	for _, want := range []string{"tcp.stream 0: 202.108.87.165:62146 <-> 223.132.53.222:22", "MSS 1460 WS 6 SACK TS", "1 (0 / 1)", "RTT min / smoothed"} {
		if code != 0 || !strings.Contains(out, want) {
			t.Errorf("table lacks %q:\n%s", want, out)
		}
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		// a new graph file: with svg, which exists, the refusal would be the missing --force
		{[]string{"--stream", "7", "--plot", filepath.Join(dir, "s7.svg")}, "--stream 7: no such TCP connection in " + sshPcap},
		{[]string{"--plot", filepath.Join(dir, "x.gif")}, "invalid --plot: plot file"},
		{[]string{"--top", "-1"}, "invalid --top -1"},
	} {
		code, _, errs := runCLI(t, append([]string{"pcap", "tcp", sshPcap}, c.args...)...)
		testutil.CheckBadExit(t, fmt.Sprint(c.args), code, errs, c.want)
	}
	code, _, errs = runCLI(t, "pcap")
	testutil.CheckBadExit(t, "pcap without subcommand", code, errs, "missing subcommand: accepted dscp or tcp")
}

// Segments after a connection closed are counted once: in the totals and
// after_close, not in a connection (tcpflow/testdata/closing.pcap: a FIN
// retransmitted and re-acknowledged 3 s after the end of stream 0).
func TestPcapTCPAfterClose(t *testing.T) {
	const closing = "../tcpflow/testdata/closing.pcap"
	code, out, errs := runCLI(t, "pcap", "tcp", closing, "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var d tcpDoc
	if err := json.Unmarshal([]byte(out), &d); err != nil {
		t.Fatal(err)
	}
	var inConns uint64
	for _, c := range d.Data.Connections {
		inConns += c.AToB.Packets + c.BToA.Packets
	}
	a, tot := d.Data.AfterClose, d.Data.Totals
	if len(d.Data.Connections) != 3 || a == nil || a.Packets != 2 || a.AnyRetransmissions != 1 || tot.AfterClose != 2 ||
		tot.Segments != inConns+2 || tot.Segments != 22 || tot.Retransmissions != 2 {
		t.Errorf("%d connections holding %d segments, after_close %+v, totals %+v; want 3 holding 20, 2 after close (1 retransmission), 22 in all with 2 retransmissions",
			len(d.Data.Connections), inConns, a, tot)
	}
	code, out, _ = runCLI(t, "pcap", "tcp", closing)
	if code != 0 || !strings.Contains(out, "note: 2 segments came more than a second") {
		t.Errorf("exit %d, no note on the segments after close:\n%s", code, out)
	}
	// --stream: only that connection's late segments
	code, out, _ = runCLI(t, "pcap", "tcp", closing, "--stream", "1", "--json")
	d = tcpDoc{}
	if err := json.Unmarshal([]byte(out), &d); code != 0 || err != nil || d.Data.AfterClose != nil || d.Data.Totals.Segments != 7 {
		t.Errorf("--stream 1: exit %d %v, after_close %+v, %d segments; want none after close, 7", code, err, d.Data.AfterClose, d.Data.Totals.Segments)
	}
}

// The document is streamed to -o only (stdout stays empty with --json -o,
// stderr says what was written); compare reads it
// (and says a pcap-tcp result holds no distribution to compare), and a
// capture with no connection gives an empty list, not null.
func TestPcapTCPDocumentToBothOutputs(t *testing.T) {
	const closing = "../tcpflow/testdata/closing.pcap"
	dir := testutil.TempDir(t)
	file := filepath.Join(dir, "tcp.json")
	code, out, errs := runCLI(t, "pcap", "tcp", closing, "--json", "-o", file)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if out != "" || !strings.Contains(errs, "wrote "+file) {
		t.Errorf("--json -o: stdout %q, stderr %q; want the document in the file only", out, errs)
	}
	d := readDoc(t, readFile(t, file))
	data, ok := KindPcapTCP.Of(d)
	if !ok || len(data.Connections) != 3 || data.Totals.Connections != 3 || len(d.Notes) != 1 {
		t.Fatalf("kind %s (%v), payload %T, notes %q", d.Kind, ok, d.Data, d.Notes)
	}
	code, _, errs = runCLI(t, "compare", file, file)
	testutil.CheckBadExit(t, "compare of pcap-tcp results, which hold no distribution", code, errs, "no single distribution")
	code, out, _ = runCLI(t, "pcap", "tcp", closing, "--json", "--filter", "port 9")
	if code != 0 || !strings.Contains(out, `"connections": [],`) {
		t.Errorf("no connection: exit %d\n%s", code, out)
	}
	readDoc(t, out)
}

// --events times count from the first frame, as Wireshark's
// frame.time_relative does, even when it is not IP: ssh.pcap behind an
// ARP frame 1 s earlier.
func TestPcapTCPEventsFromFirstFrame(t *testing.T) {
	f, err := os.Open(sshPcap)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r, err := pcapgo.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	dir := testutil.TempDir(t)
	var b bytes.Buffer
	w := pcapgo.NewWriterNanos(&b)
	if err := w.WriteFileHeader(65535, r.LinkType()); err != nil {
		t.Fatal(err)
	}
	arp := append([]byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 2, 0, 0, 0, 0, 1, 0x08, 0x06}, make([]byte, 28)...)
	for i := 0; ; i++ {
		data, ci, err := r.ReadPacketData()
		if err == io.EOF {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		if i == 0 {
			w.WritePacket(gopacket.CaptureInfo{Timestamp: ci.Timestamp.Add(-time.Second), CaptureLength: len(arp), Length: len(arp)}, arp)
		}
		w.WritePacket(ci, data)
	}
	capFile, ev := filepath.Join(dir, "arp-first.pcap"), filepath.Join(dir, "events.csv")
	if err := os.WriteFile(capFile, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, errs := runCLI(t, "pcap", "tcp", capFile, "--events", ev); code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	// frame 49 of ssh.pcap (now 50) is 0.555385 s after its first frame
	if csv := readFile(t, ev); !strings.Contains(csv, "\n1.555385000,0 202.108.87.165:62146>223.132.53.222:22,50,retransmission,") {
		t.Errorf("events do not count from the ARP frame:\n%s", csv)
	}
}

// The events of the ssh fixture, frame by frame (checked against tshark's
// tcp.analysis fields for the same file).
func TestPcapTCPEventsGolden(t *testing.T) {
	ev := filepath.Join(testutil.TempDir(t), "events.csv")
	if code, _, errs := runCLI(t, "pcap", "tcp", sshPcap, "--events", ev); code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	goldie.New(t).Assert(t, "ssh-events", []byte(readFile(t, ev)))
}

// sshAsPktmon writes ssh.pcap as a pktmon log converted by etl2pcapng:
// every frame logged at two components (two interfaces) with the same
// pcapng packet id.
func sshAsPktmon(t *testing.T, dir string) string {
	t.Helper()
	f, err := os.Open(sshPcap)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r, err := pcapgo.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	w, err := pcapgo.NewNgWriterInterface(&b, pcapgo.NgInterface{Name: "TCPIP", LinkType: r.LinkType()}, pcapgo.DefaultNgWriterOptions)
	if err != nil {
		t.Fatal(err)
	}
	nic, err := w.AddInterface(pcapgo.NgInterface{Name: "Intel(R) Ethernet Connection I219-V", LinkType: r.LinkType()})
	if err != nil {
		t.Fatal(err)
	}
	for id := uint64(1); ; id++ {
		data, ci, err := r.ReadPacketData()
		if err == io.EOF {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		opts := pcapgo.NgPacketOptions{PacketID: &id}
		if err := w.WritePacketWithOptions(ci, data, opts); err != nil {
			t.Fatal(err)
		}
		ci.InterfaceIndex = nic
		ci.Timestamp = ci.Timestamp.Add(4 * time.Microsecond)
		if err := w.WritePacketWithOptions(ci, data, opts); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, "pktmon.pcapng")
	if err := os.WriteFile(p, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// When latlab drops pktmon's copies, both outputs say so and how many.
func TestPcapDedupReported(t *testing.T) {
	file := sshAsPktmon(t, testutil.TempDir(t))
	for _, sub := range []string{"dscp", "tcp"} {
		code, out, errs := runCLI(t, "pcap", sub, file)
		if code != 0 || !strings.Contains(strings.Join(strings.Fields(out), " "), "note: duplicates dropped: 54 copies of packets seen just before were not analysed (a pktmon capture: frames 1 and 2 carry the same pcapng packet id") {
			t.Errorf("%s: exit %d, text does not say 54 copies were dropped:\n%s%s", sub, code, out, errs)
		}
		code, out, errs = runCLI(t, "pcap", sub, file, "--json")
		var d struct {
			Notes []string `json:"notes"`
			Data  struct {
				Capture struct {
					Dedup   bool `json:"dedup"`
					Dropped int  `json:"dropped_duplicates"`
					IP      int  `json:"ip_packets"`
				} `json:"capture"`
			} `json:"data"`
		}
		if err := json.Unmarshal([]byte(out), &d); code != 0 || err != nil || !d.Data.Capture.Dedup || d.Data.Capture.Dropped != 54 ||
			d.Data.Capture.IP != 54 || !strings.Contains(strings.Join(d.Notes, "\n"), "duplicates dropped: 54 copies") {
			t.Errorf("%s --json: exit %d %v %s, capture %+v, notes %q", sub, code, err, errs, d.Data.Capture, d.Notes)
		}
	}
}

// Captures are opened like every other input (internal/infile): a
// directory says it is one, a file above --max-input-size is refused
// before it is read.
func TestPcapInputChecks(t *testing.T) {
	dir := testutil.TempDir(t)
	for _, sub := range []string{"dscp", "tcp"} {
		code, _, errs := runCLI(t, "pcap", sub, dir)
		testutil.CheckBadExit(t, sub+" DIR", code, errs, "cannot read "+dir+": a directory, not a file")
		if strings.Contains(errs, "empty") {
			t.Errorf("%s DIR: %q", sub, errs)
		}
		code, _, errs = runCLI(t, "--max-input-size", "1KiB", "pcap", sub, sshPcap)
		testutil.CheckBadExit(t, sub+" over the cap", code, errs, "more than the 1 KiB cap on input files (--max-input-size raises it)")
	}
}

// --dedup takes its value after a space as well as after "=", before or
// after the file (issue 10: the README's "--dedup off" failed).
func TestPcapDedupFlagSpellings(t *testing.T) {
	file := sshAsPktmon(t, testutil.TempDir(t))
	for _, c := range []struct {
		args    []string
		dedup   bool
		packets int
	}{
		{[]string{file}, true, 54},
		{[]string{file, "--dedup", "off"}, false, 108},
		{[]string{file, "--dedup=off"}, false, 108},
		{[]string{"--dedup", "off", file}, false, 108},
		{[]string{"--dedup=off", file}, false, 108},
		{[]string{"--dedup", "on", file}, true, 54},
		{[]string{file, "--dedup", "auto"}, true, 54},
	} {
		code, out, errs := runCLI(t, append(append([]string{"pcap", "dscp"}, c.args...), "--json")...)
		var d struct {
			Data struct {
				Capture struct {
					Dedup bool `json:"dedup"`
					IP    int  `json:"ip_packets"`
				} `json:"capture"`
			} `json:"data"`
		}
		if err := json.Unmarshal([]byte(out), &d); code != 0 || err != nil || d.Data.Capture.Dedup != c.dedup || d.Data.Capture.IP != c.packets {
			t.Errorf("%q: exit %d %v %s, dedup %v with %d IP packets; want %v with %d", c.args, code, err, errs, d.Data.Capture.Dedup, d.Data.Capture.IP, c.dedup, c.packets)
		}
	}
	// without a value it is an error that names the flag and the values,
	// also when the file became the value
	for _, args := range [][]string{{file, "--dedup"}, {"--dedup", file}} {
		code, _, errs := runCLI(t, append([]string{"pcap", "tcp"}, args...)...)
		testutil.CheckBadExit(t, fmt.Sprintf("%q", args), code, errs, "--dedup")
		if !strings.Contains(errs, "off") {
			t.Errorf("%q: %q does not name the values", args, errs)
		}
	}
}

// Compressed captures read directly; the cap on input files holds for the
// decompressed bytes too (a decompression bomb stops there).
func TestPcapCompressed(t *testing.T) {
	for _, ext := range []string{".gz", ".zst", ".lz4"} {
		file := "../capture/testdata/ssh.pcap" + ext
		code, out, errs := runCLI(t, "pcap", "tcp", file, "--json")
		var d struct {
			Data struct {
				Capture struct {
					Compression string `json:"compression"`
					IP          int    `json:"ip_packets"`
				} `json:"capture"`
			} `json:"data"`
		}
		if err := json.Unmarshal([]byte(out), &d); code != 0 || err != nil || d.Data.Capture.IP != 54 || d.Data.Capture.Compression == "" {
			t.Errorf("%s: exit %d %v %s, capture %+v", ext, code, err, errs, d.Data.Capture)
		}
		// the file (about 8.5 KiB) is within 10 KiB, its 12.5 KiB decompressed are not
		code, out, errs = runCLI(t, "--max-input-size", "10KiB", "pcap", "dscp", file)
		testutil.CheckBadExit(t, ext+" over the cap once decompressed", code, errs, "decompressed, the capture is more than the 10 KiB cap on input files (--max-input-size raises it)")
		if !strings.Contains(errs, "reading stopped at byte") || !strings.Contains(out, "IP packets") {
			t.Errorf("%s over the cap once decompressed: exit %d\n%s%s", ext, code, out, errs)
		}
	}
}
