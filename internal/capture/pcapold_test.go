package capture

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"os"
	"strings"
	"testing"
)

// oldPcapFile is a pcap file of another format version: the records of
// src (a 2.4 pcap) cut to snap bytes, with the header's version, magic
// and link type given and each record's two lengths in the old order
// (length on the wire first) when oldOrder is set. AIX files (nanos) hold
// nanoseconds.
type oldPcapFile struct {
	name         string
	order        binary.AppendByteOrder
	magic        uint32
	major, minor uint16
	network      uint32 // 0: src's link type
	oldOrder     bool
	nanos        bool
	fddiPad      bool
}

func (f oldPcapFile) build(t testing.TB, src []byte, snap int) []byte {
	t.Helper()
	rd, err := NewReader(bytes.NewReader(src))
	if err != nil {
		t.Fatal(err)
	}
	b := f.order.AppendUint32(nil, f.magic)
	b = f.order.AppendUint16(b, f.major)
	b = f.order.AppendUint16(b, f.minor)
	b = append(b, make([]byte, 8)...)
	b = f.order.AppendUint32(b, uint32(snap))
	nw := f.network
	if nw == 0 {
		nw = uint32(rd.linkType)
	}
	b = f.order.AppendUint32(b, nw)
	var rec Record
	for rd.Next(&rec) == nil {
		data := rec.Data[:min(len(rec.Data), snap)]
		if f.fddiPad {
			data = cat([]byte{0, 0, 0}, data)
		}
		incl, orig := uint32(len(data)), uint32(rec.OrigLen+len(data)-min(len(rec.Data), snap))
		if f.oldOrder {
			incl, orig = orig, incl
		}
		frac := rec.TimeNs % 1e9
		if !f.nanos {
			frac /= 1000
		}
		b = f.order.AppendUint32(b, uint32(rec.TimeNs/1e9))
		b = f.order.AppendUint32(b, uint32(frac))
		b = f.order.AppendUint32(b, incl)
		b = f.order.AppendUint32(b, orig)
		b = append(b, data...)
	}
	return b
}

// oldPcapCases: the versions Wireshark reads and pcapgo refuses, each
// laid out as its writers laid it out.
func oldPcapCases() []oldPcapFile {
	le, be := binary.LittleEndian, binary.BigEndian
	return []oldPcapFile{
		{name: "2.0", order: le, magic: magicPcapUs, major: 2, minor: 0, oldOrder: true},
		{name: "2.1", order: le, magic: magicPcapUs, major: 2, minor: 1, oldOrder: true},
		{name: "2.1-big-endian", order: be, magic: magicPcapUs, major: 2, minor: 1, oldOrder: true},
		{name: "2.2", order: le, magic: magicPcapUs, major: 2, minor: 2, oldOrder: true},
		{name: "2.3", order: le, magic: magicPcapUs, major: 2, minor: 3},
		{name: "2.3-old-order", order: le, magic: magicPcapUs, major: 2, minor: 3, oldOrder: true},
		{name: "543.0", order: be, magic: magicPcapUs, major: 543, minor: 0, oldOrder: true},
		{name: "2.5", order: le, magic: magicPcapNs, major: 2, minor: 5, nanos: true},
		{name: "2.1-ns-magic", order: le, magic: magicPcapNs, major: 2, minor: 1, oldOrder: true, nanos: true},
		{name: "2.2-aix-ethernet", order: be, magic: magicPcapUs, major: 2, minor: 2, network: 6, oldOrder: true, nanos: true},
	}
}

// Every old version reads as the 2.4 file it was made from, frames cut by
// a snap length so that the order of the two lengths matters.
func TestOldPcapVersions(t *testing.T) {
	src, err := os.ReadFile("testdata/ssh.pcap")
	if err != nil {
		t.Fatal(err)
	}
	const snap = 80
	want, err := readAll(t, bytes.NewReader((oldPcapFile{order: binary.LittleEndian, magic: magicPcapUs, major: 2, minor: 4}).build(t, src, snap)))
	if err != nil || len(want) != 54 || want[5].capLen != snap || want[5].len <= snap {
		t.Fatalf("the 2.4 file: %d frames, %v", len(want), err)
	}
	for _, c := range oldPcapCases() {
		got, err := readAll(t, bytes.NewReader(c.build(t, src, snap)))
		if err != nil || len(got) != len(want) {
			t.Errorf("%s: %d frames, %v", c.name, len(got), err)
			continue
		}
		for i := range got {
			g, w := got[i], want[i]
			if g.lt != w.lt || g.src != w.src || g.capLen != w.capLen || g.len != w.len || g.timeNs != w.timeNs || !bytes.Equal(g.data, w.data) {
				t.Errorf("%s frame %d: %s %s %d/%d bytes at %d; want %s %s %d/%d at %d", c.name, i+1,
					g.lt, g.src, g.capLen, g.len, g.timeNs, w.lt, w.src, w.capLen, w.len, w.timeNs)
				break
			}
		}
	}
}

// AIX writes 3 bytes of padding before each FDDI frame.
func TestOldPcapAIXFDDI(t *testing.T) {
	src, err := os.ReadFile("testdata/netmon/fddi.pcap")
	if err != nil {
		t.Fatal(err)
	}
	want, _ := readAll(t, bytes.NewReader(src))
	f := oldPcapFile{order: binary.BigEndian, magic: magicPcapUs, major: 2, minor: 2, network: 15, oldOrder: true, nanos: true, fddiPad: true}
	got, err := readAll(t, bytes.NewReader(f.build(t, src, 1000)))
	if err != nil || len(got) != 1 || got[0].lt != "fddi" || got[0].src != "10.1.0.1" || !bytes.Equal(got[0].data, want[0].data) || got[0].len != want[0].len {
		t.Errorf("%+v, %v; want %+v", got, err, want)
	}
}

func TestOldPcapDamaged(t *testing.T) {
	src, _ := os.ReadFile("testdata/ssh.pcap")
	good := oldPcapCases()[0].build(t, src, 60)
	le := binary.LittleEndian
	rec2 := int64(24 + 16 + 60)
	for _, c := range []struct {
		name      string
		file      []byte
		frames    int
		offset    int64
		truncated bool
		msg       string
	}{
		{"version 1.0", func() []byte { b := bytes.Clone(good); le.PutUint16(b[4:], 1); return b }(), -1, 4, false, "versions 2.0 and later"},
		{"huge record", func() []byte { b := bytes.Clone(good); le.PutUint32(b[rec2+12:], 1<<31); return b }(), 1, rec2, false, "more than the largest frame"},
		{"cut in a header", good[:rec2+10], 1, rec2, true, "record header ends early"},
		{"cut in the data", good[:rec2+30], 1, rec2, true, "record data ends early"},
	} {
		got, err := readAll(t, bytes.NewReader(c.file))
		var fe *FormatError
		if !errors.As(err, &fe) || (c.frames >= 0 && len(got) != c.frames) || fe.Offset != c.offset || fe.Truncated != c.truncated || !strings.Contains(fe.Msg, c.msg) {
			t.Errorf("%s: %d frames, %v; want %d frames, an error at byte %d (truncated %v): %q", c.name, len(got), err, c.frames, c.offset, c.truncated, c.msg)
		}
	}
}

// FuzzOldPcap reads arbitrary records behind an old pcap header.
func FuzzOldPcap(f *testing.F) {
	src, err := os.ReadFile("testdata/ssh.pcap")
	if err != nil {
		f.Fatal(err)
	}
	for _, c := range oldPcapCases() {
		f.Add(c.build(f, src, 80)[:600])
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		rd, err := NewReader(bytes.NewReader(b))
		if err != nil {
			return
		}
		var rec Record
		var d Decoder
		var p Packet
		for {
			if err := rd.Next(&rec); err != nil {
				var fe *FormatError
				if err != io.EOF && !errors.As(err, &fe) {
					t.Fatalf("not a FormatError: %v", err)
				}
				return
			}
			if rec.CapLen != len(rec.Data) || rec.CapLen > maxPcapRecord {
				t.Fatalf("frame %d: %d bytes captured, %d held", rec.Frame, rec.CapLen, len(rec.Data))
			}
			d.Decode(&rec, &p)
		}
	})
}
