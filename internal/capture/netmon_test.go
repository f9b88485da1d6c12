package capture

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gopacket/gopacket/layers"
)

// nmRec is one record of a NetMon file written by netmonFile.
type nmRec struct {
	net     uint16 // media type in the trailer (2.1 and later)
	data    []byte
	orig    int    // length on the wire (0: len(data))
	deltaUs uint64 // time since the header's start, µs (1.x: ms)
	ft      uint64 // 2.3: the UTC FILETIME
}

// nmFile describes a NetMon file: version, the header's media type and
// start, the records, and optionally the frame table's order (indexes
// into recs) and a gap of bytes between records.
type nmFile struct {
	major, minor uint8
	net          uint16
	start        time.Time // written as a local SYSTEMTIME (netmonLocation)
	recs         []nmRec
	order        []int
	gap          int
}

// netmonFile writes f as the format lays it out: the 128-byte header,
// the records, then the frame table.
func netmonFile(f nmFile) []byte {
	b := make([]byte, 128)
	if f.major == 1 {
		copy(b, netmonMagic1)
	} else {
		copy(b, netmonMagic2)
	}
	b[4], b[5] = f.minor, f.major
	le := binary.LittleEndian
	le.PutUint16(b[6:], f.net)
	st := f.start
	if st.IsZero() {
		st = t0
	}
	st = st.In(netmonLocation)
	for i, v := range []int{st.Year(), int(st.Month()), int(st.Weekday()), st.Day(), st.Hour(), st.Minute(), st.Second(), st.Nanosecond() / 1e6} {
		le.PutUint16(b[8+2*i:], uint16(v))
	}
	var offs []uint32
	for _, r := range f.recs {
		b = append(b, make([]byte, f.gap)...)
		offs = append(offs, uint32(len(b)))
		orig := r.orig
		if orig == 0 {
			orig = len(r.data)
		}
		if f.major == 1 {
			b = le.AppendUint32(b, uint32(r.deltaUs))
			b = le.AppendUint16(b, uint16(orig))
			b = le.AppendUint16(b, uint16(len(r.data)))
		} else {
			b = le.AppendUint64(b, r.deltaUs)
			b = le.AppendUint32(b, uint32(orig))
			b = le.AppendUint32(b, uint32(len(r.data)))
		}
		b = append(b, r.data...)
		if f.major == 2 && f.minor >= 1 {
			b = le.AppendUint16(b, r.net)
			if f.minor >= 2 {
				b = le.AppendUint32(b, 0) // process index
			}
			if f.minor >= 3 {
				b = le.AppendUint64(b, r.ft)
				b = append(b, 0) // time zone index
			}
		}
	}
	order := f.order
	if order == nil {
		for i := range f.recs {
			order = append(order, i)
		}
	}
	le.PutUint32(b[24:], uint32(len(b)))
	le.PutUint32(b[28:], uint32(4*len(order)))
	for _, i := range order {
		b = le.AppendUint32(b, offs[i])
	}
	return b
}

// filetime is t as a FILETIME.
func filetime(t time.Time) uint64 { return uint64(t.UnixNano()/100) + 116444736000000000 }

// netmonRadio is NetMon's 802.11 radio header (version 2, 32 bytes).
func netmonRadio() []byte {
	h := cat([]byte{2}, binary.LittleEndian.AppendUint16(nil, 32), make([]byte, 29))
	binary.LittleEndian.PutUint32(h[7:], 0) // receive flags: the PHY fields follow
	binary.LittleEndian.PutUint32(h[11:], 7)
	binary.LittleEndian.PutUint32(h[15:], 36)
	return h
}

// netmonMediaCases: a 2.3 file with a frame of each media type latlab
// reads and each NetMon record kind, the frame table out of file order,
// and what each frame decodes to.
func netmonMediaFile(t testing.TB) (nmFile, []string) {
	in4, in6 := inner4(t), inner6(t)
	sll := cat(be16(0), be16(1), be16(6), make([]byte, 8), be16(etherTypeIPv4), in4)
	at := func(ms int) uint64 { return filetime(t0.Add(time.Duration(ms) * time.Millisecond)) }
	recs := []nmRec{
		{net: netmonNetEthernet, data: ethf(etherTypeIPv4, in4), deltaUs: 0, ft: at(0)},
		{net: netmonNetInfo, data: make([]byte, 40), ft: at(1)}, // not a frame
		{net: netmonNetEthernet0, data: ethf(etherTypeIPv6, in6), ft: at(2)},
		{net: netmonNetRawIP, data: in4, ft: at(3)},
		{net: netmonNetTunnel, data: in6, ft: at(4)},
		{net: netmonNetWWAN, data: in4, ft: at(5)},
		{net: netmonNetWLAN, data: cat(netmonRadio(), wlanQoS(false, etherTypeIPv4), in4), ft: at(6)},
		{net: netmonNetWiFiMsg, data: cat(wlanQoS(false, etherTypeIPv6), in6), ft: at(7)},
		{net: netmonNetPcapBase | uint16(layers.LinkTypeLinuxSLL), data: sll, ft: at(8)},
		{net: netmonNetFDDI, data: cat([]byte{0x50}, make([]byte, 12), snap(etherTypeIPv4), in4), ft: at(9)},
		{net: netmonNetFilter, data: cat(binary.LittleEndian.AppendUint32(nil, 0), []byte("t\x00c\x00p\x00\x00\x00")), ft: at(10)},
		{net: netmonNetDNSCache, data: make([]byte, 12), ft: at(11)}, // not a frame
		{net: netmonNetEthernet, data: ethf(0x0806, make([]byte, 28)), ft: at(12)},
	}
	// Table order: the frames as numbered, NetMon's other records among them.
	order := []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}
	// Records stored in reverse order in the file: the table decides.
	rev := make([]nmRec, len(recs))
	revOrder := make([]int, len(order))
	for i := range recs {
		rev[len(recs)-1-i] = recs[i]
	}
	for i, o := range order {
		revOrder[i] = len(recs) - 1 - o
	}
	want := []string{"ethernet 10.1.0.1", "ethernet 2001:db8:1::1", "raw-ip 10.1.0.1", "raw-ip 2001:db8:1::1", "raw-ip 10.1.0.1",
		"netmon-802.11 10.1.0.1", "802.11 2001:db8:1::1", "linux-sll 10.1.0.1", "fddi 10.1.0.1", "netmon-filter -", "ethernet -"}
	return nmFile{major: 2, minor: 3, net: 1, recs: rev, order: revOrder, gap: 3}, want
}

// readAll reads every record of a capture: link type, the innermost
// source address (or "-"), time, lengths and data.
type readRec struct {
	lt          string
	src         string
	timeNs      int64
	capLen, len int
	data        []byte
}

func readAll(t testing.TB, r io.Reader) ([]readRec, error) {
	rd, err := NewReader(r)
	if err != nil {
		return nil, err
	}
	defer rd.Close()
	var out []readRec
	var d Decoder
	for {
		var rec Record
		if err := rd.Next(&rec); err != nil {
			if err == io.EOF {
				return out, nil
			}
			return out, err
		}
		if rec.Frame != len(out)+1 {
			t.Fatalf("frame %d numbered %d", len(out)+1, rec.Frame)
		}
		var p Packet
		src := "-"
		if d.Decode(&rec, &p) == SkipNone {
			src = p.Src.String()
		}
		out = append(out, readRec{linkTypeName(rec.LinkType), src, rec.TimeNs, rec.CapLen, rec.OrigLen, append([]byte(nil), rec.Data...)})
	}
}

// Every media type and record kind, in a 2.3 file whose frame table
// orders records stored backwards with gaps between them.
func TestNetMonMediaTypes(t *testing.T) {
	f, want := netmonMediaFile(t)
	got, err := readAll(t, bytes.NewReader(netmonFile(f)))
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(want) {
		t.Fatalf("%d frames, want %d", len(got), len(want))
	}
	ms := []int{0, 2, 3, 4, 5, 6, 7, 8, 9, 10, 12} // the frames' FILETIMEs, ms after t0
	for i, g := range got {
		if s := g.lt + " " + g.src; s != want[i] {
			t.Errorf("frame %d: %s, want %s", i+1, s, want[i])
		}
		if w := t0.Add(time.Duration(ms[i]) * time.Millisecond).UnixNano(); g.timeNs != w/100*100 {
			t.Errorf("frame %d: time %d, want %d", i+1, g.timeNs, w/100*100)
		}
	}
}

// 1.x, 2.0, 2.1 and 2.2 files: the header's start plus each record's
// offset (ms in 1.x, µs in 2.x, negative when it wraps), and the media
// type from the header (1.x, 2.0) or each trailer.
func TestNetMonVersions(t *testing.T) {
	in4 := inner4(t)
	e4 := ethf(etherTypeIPv4, in4)
	start := t0.Truncate(time.Millisecond)
	for _, c := range []struct {
		name         string
		major, minor uint8
		net          uint16
		recs         []nmRec
		wantLT       []string
		wantNs       []int64
	}{
		{"1.1", 1, 1, 1, []nmRec{{data: e4}, {data: e4, deltaUs: 1500}}, []string{"ethernet", "ethernet"},
			[]int64{0, 1500 * 1e6}},
		{"2.0-raw", 2, 0, netmonNetRawIP, []nmRec{{data: in4, deltaUs: 7}}, []string{"raw-ip"}, []int64{7000}},
		{"2.0-before-start", 2, 0, 1, []nmRec{{data: e4, deltaUs: 1<<64 - 5}}, []string{"ethernet"}, []int64{-5000}},
		{"2.1", 2, 1, 1, []nmRec{{net: netmonNetRawIP, data: in4, deltaUs: 1}, {net: 1, data: e4, deltaUs: 2}}, []string{"raw-ip", "ethernet"},
			[]int64{1000, 2000}},
		{"2.2", 2, 2, 1, []nmRec{{net: 1, data: e4, deltaUs: 3}}, []string{"ethernet"}, []int64{3000}},
	} {
		got, err := readAll(t, bytes.NewReader(netmonFile(nmFile{major: c.major, minor: c.minor, net: c.net, start: start, recs: c.recs})))
		if err != nil || len(got) != len(c.recs) {
			t.Errorf("%s: %d frames, %v", c.name, len(got), err)
			continue
		}
		for i, g := range got {
			if g.lt != c.wantLT[i] || g.src != "10.1.0.1" || g.timeNs != start.UnixNano()+c.wantNs[i] || !bytes.Equal(g.data, c.recs[i].data) {
				t.Errorf("%s frame %d: %s %s at %d, want %s 10.1.0.1 at %d", c.name, i+1, g.lt, g.src, g.timeNs-start.UnixNano(), c.wantLT[i], c.wantNs[i])
			}
		}
	}
}

// The files editcap wrote from pcaps hold the pcaps' frames: the same
// bytes and lengths, at the same times (to the millisecond in 1.x).
func TestNetMonEditcapFiles(t *testing.T) {
	for _, c := range []struct {
		cap, pcap string
		res       time.Duration
	}{
		{"netmon/ssh-netmon2.cap", "ssh.pcap", time.Microsecond},
		{"netmon/ssh-netmon1.cap", "ssh.pcap", time.Millisecond},
	} {
		want := readFile(t, c.pcap)
		got := readFile(t, c.cap)
		if len(got) != len(want) || len(got) == 0 {
			t.Fatalf("%s: %d frames, %s has %d", c.cap, len(got), c.pcap, len(want))
		}
		for i := range got {
			g, w := got[i], want[i]
			dt := time.Duration(g.timeNs - w.timeNs)
			if g.lt != w.lt || g.src != w.src || g.capLen != w.capLen || g.len != w.len || !bytes.Equal(g.data, w.data) || dt < -c.res/2 || dt > c.res/2 {
				t.Errorf("%s frame %d: %+v\n differs from %s's: %+v", c.cap, i+1, g, c.pcap, w)
			}
		}
	}
	// 2.1: six Ethernet frames, then the FDDI one.
	got := readFile(t, "netmon/accecn-fddi-netmon2.1.cap")
	if len(got) != 7 || got[0].lt != "ethernet" || got[6].lt != "fddi" || got[6].src != "10.1.0.1" {
		t.Errorf("accecn-fddi-netmon2.1.cap: %d frames %+v", len(got), got)
	}
}

func readFile(t testing.TB, name string) []readRec {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	recs, err := readAll(t, bytes.NewReader(b))
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return recs
}

// onlyReader hides a reader's Seek: the input of a pipe.
type onlyReader struct{ io.Reader }

// A NetMon file that cannot seek (a pipe, or compressed) is copied to a
// temporary file, up to the cap, with the same result.
func TestNetMonWithoutSeek(t *testing.T) {
	b, err := os.ReadFile("testdata/netmon/ssh-netmon2.cap")
	if err != nil {
		t.Fatal(err)
	}
	want, _ := readAll(t, bytes.NewReader(b))
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(b)
	zw.Close()
	for name, r := range map[string]io.Reader{"pipe": onlyReader{bytes.NewReader(b)}, "gzip": bytes.NewReader(gz.Bytes())} {
		got, err := readAll(t, r)
		if err != nil || len(got) != len(want) {
			t.Errorf("%s: %d frames, %v; want %d", name, len(got), err, len(want))
		}
	}
	if _, err := newReader(onlyReader{bytes.NewReader(b)}, int64(len(b)-1)); err == nil || !strings.Contains(err.Error(), "cap on input files") {
		t.Errorf("above the cap: %v", err)
	}
	// Seekable input that does not start at the file's first byte.
	pre := append([]byte("xxxx"), b...)
	r := bytes.NewReader(pre)
	r.Seek(4, io.SeekStart)
	if got, err := readAll(t, r); err != nil || len(got) != len(want) {
		t.Errorf("at an offset: %d frames, %v", len(got), err)
	}
}

// Damaged files: every refusal names the byte at fault, and the frames
// before it are read.
func TestNetMonDamaged(t *testing.T) {
	e4 := ethf(etherTypeIPv4, inner4(t))
	good := nmFile{major: 2, minor: 1, net: 1, recs: []nmRec{{net: 1, data: e4}, {net: 1, data: e4}}}
	base := netmonFile(good)
	recLen := int64(16 + len(e4) + 2)
	table := int64(binary.LittleEndian.Uint32(base[24:]))
	le := binary.LittleEndian
	edit := func(f func(b []byte) []byte) []byte { return f(append([]byte(nil), base...)) }
	for _, c := range []struct {
		name      string
		file      []byte
		frames    int   // read before the error (-1: the header is refused)
		offset    int64 // FormatError.Offset
		truncated bool
		msg       string
	}{
		{"short header", base[:40], -1, 0, true, "header (64 bytes) incomplete"},
		{"version 3", edit(func(b []byte) []byte { b[5] = 3; return b }), -1, 5, false, "versions 1.x and 2.x are read"},
		{"media type 5", edit(func(b []byte) []byte { le.PutUint16(b[6:], 5); return b }), -1, 6, false, "media type 5 unknown"},
		{"table length 0", edit(func(b []byte) []byte { le.PutUint32(b[28:], 0); return b }), -1, 28, false, "positive multiple of 4"},
		{"table length 6", edit(func(b []byte) []byte { le.PutUint32(b[28:], 6); return b }), -1, 28, false, "positive multiple of 4"},
		{"table past the end", edit(func(b []byte) []byte { le.PutUint32(b[28:], 1<<30); return b }), -1, 24, false, "ends past the end of the file"},
		{"table offset past the end", edit(func(b []byte) []byte { le.PutUint32(b[24:], 1<<31); return b }), -1, 24, false, "ends past the end of the file"},
		{"cut off", base[:table-1], -1, 24, false, "ends past the end of the file"},
		{"entry past the end", edit(func(b []byte) []byte { le.PutUint32(b[table+4:], 1<<31); return b }), 1, table + 4, false, "points to byte 2147483648"},
		{"header at the end", edit(func(b []byte) []byte { le.PutUint32(b[table+4:], uint32(len(b)-8)); return b }), 1, int64(len(base) - 8), true, "record header"},
		{"captured length huge", edit(func(b []byte) []byte { le.PutUint32(b[128+recLen+12:], 1<<31); return b }), 1, 128 + recLen, false, "more than the largest frame"},
		{"record past the end", edit(func(b []byte) []byte { le.PutUint32(b[128+recLen+12:], 300); return b }), 1, 128 + recLen, true, "ends past the end of the file"},
		{"unknown media type", edit(func(b []byte) []byte { le.PutUint16(b[128+recLen+16+int64(len(e4)):], 0x1234); return b }), 1, 128 + recLen + 16 + int64(len(e4)), false, "media type 0x1234 unknown"},
		{"fiddler message", edit(func(b []byte) []byte { le.PutUint16(b[128+16+len(e4):], 0xe082); return b }), 0, 128 + 16 + int64(len(e4)), false, "media type 0xe082"},
	} {
		got, err := readAll(t, bytes.NewReader(c.file))
		var fe *FormatError
		if !errors.As(err, &fe) {
			t.Errorf("%s: %v, want a FormatError", c.name, err)
			continue
		}
		if c.frames >= 0 && len(got) != c.frames {
			t.Errorf("%s: %d frames before the error, want %d", c.name, len(got), c.frames)
		}
		if fe.Offset != c.offset || fe.Truncated != c.truncated || !strings.Contains(fe.Msg, c.msg) {
			t.Errorf("%s: %v (offset %d, truncated %v); want offset %d, truncated %v, %q", c.name, fe, fe.Offset, fe.Truncated, c.offset, c.truncated, c.msg)
		}
	}
}

// A frame table that names the same records over and over (a file of
// 1 MiB could name one 256 KiB record 190,000 times) is refused once the
// records named are longer than the file: records of a file Network
// Monitor wrote do not overlap. Nor does jumping between distant records
// make the reading cost more than a few times the file.
func TestNetMonOverlappingRecords(t *testing.T) {
	big := nmRec{data: make([]byte, 100_000)}
	small := nmRec{data: []byte{0x45}}
	f := nmFile{major: 2, minor: 0, net: netmonNetRawIP, recs: []nmRec{big, small}}
	for range 10 {
		f.order = append(f.order, 0)
	}
	got, err := readAll(t, bytes.NewReader(netmonFile(f)))
	var fe *FormatError
	if len(got) != 1 || !errors.As(err, &fe) || !strings.Contains(fe.Msg, "longer than the file") || fe.Offset != 128+16+100_000+16+1+4 {
		t.Errorf("%d frames, %v", len(got), err)
	}
	// Many small records far apart, visited alternately.
	f = nmFile{major: 2, minor: 0, net: netmonNetRawIP, gap: 70_000}
	for range 40 {
		f.recs = append(f.recs, small)
	}
	for i := range 20 {
		f.order = append(f.order, i, 39-i)
	}
	b := netmonFile(f)
	rd, err := NewReader(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	var rec Record
	n := 0
	for rd.Next(&rec) == nil {
		n++
	}
	if n != 40 || rd.nm.readBytes > 3*int64(len(b)) {
		t.Errorf("%d frames, %d bytes read from a file of %d", n, rd.nm.readBytes, len(b))
	}
}

// ATM frames (1.x and 2.0) come behind a 16-byte header that is not part
// of the frame.
func TestNetMonATM(t *testing.T) {
	in4 := inner4(t)
	f := netmonFile(nmFile{major: 2, minor: 0, net: netmonNetATM, recs: []nmRec{{data: cat(make([]byte, 16), in4)}, {data: make([]byte, 10)}}})
	got, err := readAll(t, bytes.NewReader(f))
	var fe *FormatError
	if len(got) != 1 || got[0].lt != "netmon-atm" || !bytes.Equal(got[0].data, in4) || got[0].len != len(in4) || !errors.As(err, &fe) || !strings.Contains(fe.Msg, "ATM record of 10 bytes") {
		t.Errorf("%d frames %+v, %v", len(got), got, err)
	}
}

// The frame table is read a chunk at a time: a table of many entries
// costs no more memory than a short one.
func TestNetMonTableChunked(t *testing.T) {
	f := nmFile{major: 2, minor: 0, net: netmonNetRawIP}
	for range 3*netmonTableChunk + 5 {
		f.recs = append(f.recs, nmRec{data: []byte{0x45}})
	}
	b := netmonFile(f)
	rd, err := NewReader(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	var rec Record
	n := 0
	for rd.Next(&rec) == nil {
		n++
	}
	if n != len(f.recs) || cap(rd.nm.tab) != netmonTableChunk*4 {
		t.Errorf("%d frames, table buffer %d bytes", n, cap(rd.nm.tab))
	}
}

// FuzzNetMon reads arbitrary bytes as a NetMon file, seeded with small
// files of each version and media type (the fuzzer makes little headway
// from seeds of many kilobytes).
func FuzzNetMon(f *testing.F) {
	tiny := []byte{0x45, 0, 0, 20}
	for _, v := range [][2]uint8{{1, 1}, {2, 0}, {2, 1}, {2, 2}, {2, 3}} {
		var recs []nmRec
		for _, net := range []uint16{netmonNetRawIP, netmonNetEthernet, netmonNetWLAN, netmonNetInfo, netmonNetFilter, netmonNetPcapBase | 113} {
			recs = append(recs, nmRec{net: net, data: tiny, deltaUs: 3, ft: filetime(t0)})
		}
		f.Add(netmonFile(nmFile{major: v[0], minor: v[1], net: netmonNetRawIP, recs: recs, order: []int{5, 0, 1, 2, 3, 4}}))
	}
	b, err := os.ReadFile("testdata/netmon/accecn-fddi-netmon2.1.cap")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(b)
	f.Fuzz(func(t *testing.T, b []byte) {
		rd, err := NewReader(bytes.NewReader(b))
		if err != nil {
			var fe *FormatError
			if !errors.As(err, &fe) {
				t.Fatalf("not a FormatError: %v", err)
			}
			return
		}
		var d Decoder
		var p Packet
		var rec Record
		for i := 0; ; i++ {
			err := rd.Next(&rec)
			if err != nil {
				var fe *FormatError
				if err != io.EOF && !errors.As(err, &fe) {
					t.Fatalf("not a FormatError: %v", err)
				}
				return
			}
			if rec.CapLen != len(rec.Data) || len(rec.Data) > maxPcapRecord || rec.Offset < 0 || rec.Offset >= int64(len(b)) {
				t.Fatalf("frame %d: %d bytes captured, %d held, at byte %d", rec.Frame, rec.CapLen, len(rec.Data), rec.Offset)
			}
			d.Decode(&rec, &p)
		}
	})
}
