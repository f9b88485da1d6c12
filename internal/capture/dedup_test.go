package capture

import (
	"bytes"
	"encoding/binary"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"
	"github.com/gopacket/gopacket/pcapgo"
)

// spanPcap is an ordinary capture from a SPAN port that sees each of n
// packets twice, 20 µs apart, as in zeek's tcp/ssh-dups or tcpdump's
// pptp.pcap: tshark shows every copy.
func spanPcap(t testing.TB, n int) []byte {
	var frames [][]byte
	for i := range n {
		p := eth(tcp4(t, "10.2.0.1", "10.2.0.2", 40000, 443, 0, 10+i))
		frames = append(frames, p, p)
	}
	// writePcap spaces frames 1 ms apart: rewrite the copies' times.
	b := writePcap(binary.LittleEndian, true, layers.LinkTypeEthernet, frames, 0)
	off := 24
	for i := range frames {
		if i%2 == 1 {
			ts := t0.Add(time.Duration(i-1)*time.Millisecond + 20*time.Microsecond)
			binary.LittleEndian.PutUint32(b[off:], uint32(ts.Unix()))
			binary.LittleEndian.PutUint32(b[off+4:], uint32(ts.Nanosecond()))
		}
		off += 16 + int(binary.LittleEndian.Uint32(b[off+8:]))
	}
	return b
}

// pkFrame is one packet appearance in a pktmon log.
type pkFrame struct {
	iface   int
	ts      time.Time
	data    []byte
	groupID uint64 // pktmon's PktGroupId; 0: none written
	comment string
}

// ngWriters returns the writers of a little-endian pcapng file growing in
// *b: opt appends an option (padded to 4 bytes), block a block whose body
// appends its fields, with both its length fields filled in.
func ngWriters(b *[]byte) (opt func(code uint16, v []byte), block func(typ uint32, body func())) {
	le := binary.LittleEndian
	opt = func(code uint16, v []byte) {
		*b = le.AppendUint16(*b, code)
		*b = le.AppendUint16(*b, uint16(len(v)))
		*b = append(*b, v...)
		*b = append(*b, make([]byte, (4-len(v)%4)%4)...)
	}
	block = func(typ uint32, body func()) {
		start := len(*b)
		*b = le.AppendUint32(*b, typ)
		*b = le.AppendUint32(*b, 0)
		body()
		*b = le.AppendUint32(*b, 0)
		n := uint32(len(*b) - start)
		le.PutUint32((*b)[start+4:], n)
		le.PutUint32((*b)[len(*b)-4:], n)
	}
	return opt, block
}

// etl2pcapngFile writes pcapng as etl2pcapng 1.12 (microsoft/etl2pcapng
// src/main.c, PcapNgWriteSectionHeader, PcapNgWriteInterfaceDesc,
// PcapNgWriteEnhancedPacket) converts a pktmon log: a section header
// without options, one Ethernet interface per pktmon component (if_name
// and if_description), and per packet the options epb_flags, epb_packetid
// (the PktGroupId), option 8 (process and thread id) and an optional
// comment.
func etl2pcapngFile(components []string, frames []pkFrame) []byte {
	le := binary.LittleEndian
	var b []byte
	opt, block := ngWriters(&b)
	block(0x0a0d0d0a, func() {
		b = le.AppendUint32(b, 0x1a2b3c4d)
		b = le.AppendUint16(b, 1)
		b = le.AppendUint16(b, 0)
		b = le.AppendUint64(b, ^uint64(0))
	})
	for _, c := range components {
		block(1, func() {
			b = le.AppendUint16(b, 1) // Ethernet
			b = le.AppendUint16(b, 0)
			b = le.AppendUint32(b, 0)
			opt(2, []byte(c))
			opt(3, []byte("Component: "+c))
			opt(0, nil)
		})
	}
	for _, f := range frames {
		block(6, func() {
			us := uint64(f.ts.UnixNano() / 1000)
			b = le.AppendUint32(b, uint32(f.iface))
			b = le.AppendUint32(b, uint32(us>>32))
			b = le.AppendUint32(b, uint32(us))
			b = le.AppendUint32(b, uint32(len(f.data)))
			b = le.AppendUint32(b, uint32(len(f.data)))
			b = append(b, f.data...)
			b = append(b, make([]byte, (4-len(f.data)%4)%4)...)
			opt(2, le.AppendUint32(nil, 2)) // outbound
			if f.groupID != 0 {
				opt(5, le.AppendUint64(nil, f.groupID))
			}
			opt(8, le.AppendUint32(le.AppendUint32(nil, 4), 80))
			if f.comment != "" {
				opt(1, []byte(f.comment))
			}
			opt(0, nil)
		})
	}
	return b
}

// pktmonLog is n packets sent through three pktmon components, each
// logged at every one of them a few µs apart, as pktmon does.
func pktmonLog(t testing.TB, n int, ids bool, comments bool) []byte {
	comps := []string{"TCPIP", "NDIS filter", "Intel(R) Ethernet Connection I219-V"}
	var frames []pkFrame
	for i := range n {
		p := eth(tcp4(t, "10.3.0.1", "10.3.0.2", 50000, 3074, 46<<2, 20+i))
		for c := range comps {
			f := pkFrame{iface: c, ts: t0.Add(time.Duration(i)*time.Millisecond + time.Duration(c)*3*time.Microsecond), data: p}
			if ids {
				f.groupID = 562949953421313 + uint64(i)
			}
			if comments {
				f.comment = "PktGroupId 562949953421313, PktNumber 1, Appearance " + string(rune('1'+c)) +
					", Direction Tx , Type Ethernet , Component 15, Edge 1, Filter 0, OriginalSize 74, LoggedSize 74"
			}
			frames = append(frames, f)
		}
	}
	return etl2pcapngFile(comps, frames)
}

// Automatic de-duplication is for pktmon logs only: an ordinary capture
// is read as tshark reads it, copies and all (issue 17, item 1).
func TestDedupAutoOnlyForPktmon(t *testing.T) {
	var app bytes.Buffer
	opts := pcapgo.DefaultNgWriterOptions
	opts.SectionInfo.Application = "PktMon etl2pcap"
	w, err := pcapgo.NewNgWriterInterface(&app, pcapgo.NgInterface{Name: "eth", LinkType: layers.LinkTypeEthernet}, opts)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 10 {
		p := eth(tcp4(t, "10.4.0.1", "10.4.0.2", 1, 2, 0, i))
		for c := range 2 {
			ts := t0.Add(time.Duration(i)*time.Millisecond + time.Duration(c)*time.Microsecond)
			if err := w.WritePacket(gopacket.CaptureInfo{Timestamp: ts, CaptureLength: len(p), Length: len(p)}, p); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name       string
		file       []byte
		mode       DedupMode
		dedup      bool
		analysed   int
		duplicates int
		reason     string
	}{
		{"SPAN copies, auto", spanPcap(t, 100), DedupAuto, false, 200, 0, ""},
		{"SPAN copies, default", spanPcap(t, 100), "", false, 200, 0, ""},
		{"SPAN copies, on", spanPcap(t, 100), DedupOn, true, 100, 100, "--dedup on"},
		{"SPAN copies, off", spanPcap(t, 100), DedupOff, false, 200, 0, ""},
		{"etl2pcapng pktmon log, auto", pktmonLog(t, 50, true, false), DedupAuto, true, 50, 100, "frames 1 and 2 carry the same pcapng packet id"},
		{"etl2pcapng pktmon log, off", pktmonLog(t, 50, true, false), DedupOff, false, 150, 0, ""},
		{"pktmon comments, auto", pktmonLog(t, 50, false, true), DedupAuto, true, 50, 100, "packet comments carry pktmon's PktGroupId"},
		{"pktmon log without marks, auto", pktmonLog(t, 50, false, false), DedupAuto, false, 150, 0, ""},
		{"writer named pktmon, auto", app.Bytes(), DedupAuto, true, 10, 10, `its pcapng header says "PktMon etl2pcap"`},
	} {
		st, s := scan(t, c.file, ScanOptions{Dedup: c.mode})
		dropped := 0
		if c.dedup {
			dropped = c.duplicates
		}
		if st.Dedup != c.dedup || len(s.pkts) != c.analysed || st.Duplicates != c.duplicates || st.Dropped != dropped ||
			!strings.Contains(st.DedupReason, c.reason) {
			t.Errorf("%s: dedup %v (%q), %d analysed, %d duplicates, %d dropped; want %v (%q), %d, %d, %d",
				c.name, st.Dedup, st.DedupReason, len(s.pkts), st.Duplicates, st.Dropped, c.dedup, c.reason, c.analysed, c.duplicates, dropped)
		}
		notes := strings.Join(st.Notes(), "\n")
		if c.dedup && !strings.Contains(notes, "duplicates dropped: "+strconv.Itoa(dropped)+" copies") {
			t.Errorf("%s: the notes do not say how many were dropped:\n%s", c.name, notes)
		}
		// copies are looked for only when they are dropped: with
		// dedup off nothing is hashed, so nothing is counted or said
		if !c.dedup && (st.Duplicates != 0 || strings.Contains(notes, "copies")) {
			t.Errorf("%s: copies counted (%d) or reported with dedup off:\n%s", c.name, st.Duplicates, notes)
		}
	}
}
