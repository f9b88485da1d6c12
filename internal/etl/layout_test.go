package etl

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/latlab/latlab/internal/badinput"
	"github.com/latlab/latlab/internal/infile"
)

// withFirstBufferEvent returns the trace with one more EventTrace event
// (hook 0x0050, a PartitionInfo-like 48-byte payload) in its first buffer,
// after the log file header, as Windows 10 and 11 write it: Offset (0x30)
// ends after the event, SavedOffset (0x04) is set to saved.
func withFirstBufferEvent(t *testing.T, b []byte, saved func(old uint32) uint32) []byte {
	t.Helper()
	b = bytes.Clone(b)
	le := binary.LittleEndian
	end := le.Uint32(b[0x30:])
	ev := marker(2, typeSystem64)
	ev = le.AppendUint16(ev, 0x20+48)
	ev = le.AppendUint16(ev, 0x0050)
	ev = le.AppendUint32(ev, 0)
	ev = le.AppendUint32(ev, 0)
	ev = le.AppendUint64(ev, testStartQPC+1)
	ev = le.AppendUint64(ev, 0) // kernel and user time
	ev = append(ev, make([]byte, 48)...)
	if int(end)+len(ev) > int(le.Uint32(b[0:])) {
		t.Fatal("the event does not fit the first buffer")
	}
	copy(b[end:], ev)
	le.PutUint32(b[0x30:], end+uint32(len(ev)))
	le.PutUint32(b[4:], saved(end))
	return b
}

func eventTraceOpcodes(t *testing.T, b []byte) map[uint8]int {
	t.Helper()
	_, recs := readAll(t, b)
	ops := map[uint8]int{}
	for _, r := range recs {
		if r.Kernel && r.HookID>>8 == 0 {
			ops[r.Opcode]++
		}
	}
	return ops
}

// The first buffer's events end at Offset, not SavedOffset: Windows 10/11
// traces hold EventTrace events between the two, and Windows 7 traces
// leave SavedOffset 0.
func TestFirstBufferReadToOffset(t *testing.T) {
	good, _, _ := writeDPCISR(8)
	for _, c := range []struct {
		name  string
		saved func(uint32) uint32
	}{
		{"windows 10: SavedOffset before the extra event", func(end uint32) uint32 { return end }},
		{"windows 7: SavedOffset 0", func(uint32) uint32 { return 0 }},
	} {
		t.Run(c.name, func(t *testing.T) {
			ops := eventTraceOpcodes(t, withFirstBufferEvent(t, good, c.saved))
			if ops[0] != 1 || ops[80] != 1 {
				t.Errorf("EventTrace events by opcode %v, want the header (0) and 80 once each", ops)
			}
		})
	}
}

// A compressed buffer decompresses to at most the trace's own buffer
// size: one whose header claims more is skipped with a note, without
// decoding it.
func TestCompressedBufferBoundedByTraceBufferSize(t *testing.T) {
	b, _, _ := writeDPCISRWith(8, true, false)
	b = bytes.Clone(b)
	le := binary.LittleEndian
	second := int(le.Uint32(b[0:])) // the first compressed buffer
	le.PutUint32(b[second+0x30:], 4096+1)
	rd := NewReader(bytes.NewReader(b))
	if err := rd.Walk(func(*Record) error { return nil }); err != nil {
		t.Fatal(err)
	}
	notes := strings.Join(rd.Notes(), "; ")
	if rd.Damaged != 1 || !strings.Contains(notes, "4097 bytes uncompressed, more than the trace's buffers hold (4096)") {
		t.Errorf("damaged %d, notes %q", rd.Damaged, notes)
	}
}

// Decompressed bytes count against the cap on input files.
func TestDecompressedBytesCountAgainstMaxInputSize(t *testing.T) {
	b, _, _ := writeDPCISRWith(8, true, false)
	defer infile.Reset()
	infile.SetMax(int64(len(b))) // the file fits, its buffers decompressed do not
	rd := NewReader(bytes.NewReader(b))
	err := rd.Walk(func(*Record) error { return nil })
	var tl *infile.TooLargeError
	if !errors.As(err, &tl) || !strings.Contains(err.Error(), "its buffers hold more than") {
		t.Fatalf("err %v, want the input cap", err)
	}
}

// A trace none of whose event buffers can be read is bad input naming the
// first one and why, not an empty summary.
func TestNoReadableBufferIsAnError(t *testing.T) {
	good, _, _ := writeDPCISR(8)
	b := bytes.Clone(good)
	for off := 4096; off < len(b); off += 4096 {
		binary.LittleEndian.PutUint32(b[off+BufferHeaderSize:], 0xc07f0002) // an unknown header type
	}
	err := NewReader(bytes.NewReader(b)).Walk(func(*Record) error { return nil })
	if !badinput.Is(err) || !strings.Contains(err.Error(), "none of its") || !strings.Contains(err.Error(), "event at offset 4168") {
		t.Fatalf("err %v", err)
	}
	if _, err := Summarize(t.Context(), bytes.NewReader(b)); !badinput.Is(err) {
		t.Errorf("Summarize: %v", err)
	}
}

// A packet trace whose packet events hold no frame latlab reads fails
// with the reason: "0 frames" means no packets.
func TestUndecodablePacketEventsAreAnError(t *testing.T) {
	w := newTraceWriter(8, 8192, 4, "PktMon")
	p := pktmonPayload(1, 1, 10, udpFrame(t, 46, 50000, 40))
	binary.LittleEndian.PutUint16(p[14:], 9) // PacketType 9: none pktmon documents
	w.event(PktMonGUID, pktmonPacketID, 0, 0, 0x10, 1, 2, testStartQPC+10, p)
	_, err := WritePcapng(bytes.NewReader(w.bytes()), io.Discard)
	if !badinput.Is(err) || !strings.Contains(err.Error(), "none of its 1 packet events holds a frame latlab reads; the first: pktmon packet type 9") {
		t.Fatalf("err %v", err)
	}
}

// A trace of neither packet provider is not a capture of no packets (a
// kernel trace read by pcap was "0 frames, empty", exit 0), while a
// pktmon trace that saw no traffic is: its stream is a section header
// alone. A trace that fails before its first packet writes nothing, so
// the capture reader fails at the first byte instead of reading an
// empty capture that breaks off.
func TestPacketTracesWithoutPackets(t *testing.T) {
	kernel, _, _ := writeDPCISR(8)
	pktmon, _ := writePktMon(t)
	w := newTraceWriter(8, 8192, 4, "PktMon")
	w.event(PktMonGUID, 20, 0, 0, 0x10, 1, 2, testStartQPC+10, make([]byte, 32)) // a component event
	quiet := w.bytes()
	for _, c := range []struct {
		name   string
		b      []byte
		err    string // bad input naming this
		stream int    // bytes of pcapng written
	}{
		{"kernel trace", kernel, "without NDIS-PacketCapture or PktMon events", 0},
		{"real kernel trace", fixture(t, "ShutdownPerfDiagLogger.etl"), "without NDIS-PacketCapture or PktMon events", 0},
		{"pktmon trace that saw no traffic", quiet, "", 48},
		{"pktmon trace cut in its first buffer", pktmon[:100], "the first buffer says 8192 bytes", 0},
		{"pktmon trace cut after its first buffer", pktmon[:8192], "cut short", 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			var out bytes.Buffer
			_, err := WritePcapng(bytes.NewReader(c.b), &out)
			switch {
			case c.err == "" && err != nil:
				t.Fatal(err)
			case c.err != "" && (!badinput.Is(err) || !strings.Contains(err.Error(), c.err)):
				t.Fatalf("err %v, want bad input naming %q", err, c.err)
			}
			if out.Len() != c.stream {
				t.Errorf("%d bytes of pcapng, want %d", out.Len(), c.stream)
			}
		})
	}
}

// pktmon's component and configuration events are not packet events:
// the summary recommends pcap only for a trace with packets.
func TestPacketEventsAreOnlyThoseWithPackets(t *testing.T) {
	w := newTraceWriter(8, 8192, 4, "PktMon")
	w.event(PktMonGUID, 20, 0, 0, 0x10, 1, 2, testStartQPC+10, make([]byte, 32)) // a component event
	s, err := Summarize(t.Context(), bytes.NewReader(w.bytes()))
	if err != nil {
		t.Fatal(err)
	}
	for _, u := range s.Uses {
		if strings.Contains(u.Command, "pcap") {
			t.Errorf("uses %+v for a trace without packet events", s.Uses)
		}
	}
	b, _ := writePktMon(t)
	s, err = Summarize(t.Context(), bytes.NewReader(b))
	if err != nil || len(s.Uses) == 0 || !strings.HasPrefix(s.Uses[0].Reads, "6 packet events") {
		t.Errorf("uses %+v, %v", s, err)
	}
}
