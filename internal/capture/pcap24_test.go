package capture

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"os"
	"strings"
	"testing"

	"github.com/gopacket/gopacket/layers"
	"github.com/gopacket/gopacket/pcapgo"
)

// readPcap24 reads every record of a capture with Reader, copying the data.
func readPcap24(t *testing.T, file []byte) ([]Record, error) {
	t.Helper()
	rd, err := NewReader(bytes.NewReader(file))
	if err != nil {
		return nil, err
	}
	defer rd.Close()
	var out []Record
	for {
		var rec Record
		if err := rd.Next(&rec); err != nil {
			if err == io.EOF {
				err = nil
			}
			return out, err
		}
		rec.Data = append([]byte(nil), rec.Data...)
		out = append(out, rec)
	}
}

// The in-place record reader gives what pcapgo's gives, record by record,
// on real captures and on both byte orders and time resolutions, with a
// microsecond fraction whose product with 1000 does not fit 32 bits
// (pcapgo's arithmetic wraps; so does the reader's).
func TestPcap24MatchesPcapgo(t *testing.T) {
	files := map[string][]byte{}
	for _, name := range []string{"ssh.pcap", "accecn_handshake.pcap", "pgm_zmtp1.pcap"} {
		b, err := os.ReadFile("testdata/" + name)
		if err != nil {
			t.Fatal(err)
		}
		files[name] = b
	}
	p := eth(tcp4(t, "10.0.0.1", "10.0.0.2", 1, 2, 0, 100))
	for _, order := range []binary.AppendByteOrder{binary.LittleEndian, binary.BigEndian} {
		for _, nanos := range []bool{false, true} {
			f := writePcap(order, nanos, layers.LinkTypeEthernet, [][]byte{p, p[:60], p}, 80)
			order.(binary.ByteOrder).PutUint32(f[24+4:], 4_999_999) // 4,999,999 µs: wraps in 32 bits
			files[order.String()+map[bool]string{false: " µs", true: " ns"}[nanos]] = f
		}
	}
	// Records of every size from 0 to 1,400 bytes of payload over four
	// read buffers: records start and end at every offset of a buffer,
	// and some are cut across two (read from the window, then from the
	// buffer refilled).
	var many [][]byte
	for n, size := 0, 0; size < 4*bufSize; n = (n + 37) % 1401 {
		many = append(many, eth(tcp4(t, "10.0.0.1", "10.0.0.2", 1, 2, 0, n)))
		size += 16 + len(many[len(many)-1])
	}
	files["many, little-endian"] = writePcap(binary.LittleEndian, false, layers.LinkTypeEthernet, many, 0)
	files["many, big-endian"] = writePcap(binary.BigEndian, true, layers.LinkTypeEthernet, many, 0)
	for name, file := range files {
		got, err := readPcap24(t, file)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		pr, err := pcapgo.NewReader(bytes.NewReader(file))
		if err != nil {
			t.Fatal(err)
		}
		off := int64(24)
		for i := 0; ; i++ {
			data, ci, err := pr.ReadPacketData()
			if err == io.EOF {
				if i != len(got) {
					t.Errorf("%s: %d records, pcapgo %d", name, len(got), i)
				}
				break
			}
			if err != nil {
				t.Fatalf("%s: pcapgo: %v", name, err)
			}
			if i >= len(got) {
				t.Fatalf("%s: pcapgo reads more than %d records", name, len(got))
			}
			g := got[i]
			if g.Frame != i+1 || g.Offset != off || g.TimeNs != ci.Timestamp.UnixNano() || g.CapLen != ci.CaptureLength ||
				g.OrigLen != ci.Length || g.LinkType != pr.LinkType() || !bytes.Equal(g.Data, data) {
				t.Errorf("%s record %d: %+v; pcapgo %+v at %d", name, i+1, g, ci, off)
			}
			off += 16 + int64(len(data))
		}
	}
}

// Records cut off, too long or longer than the read buffer: each ends the
// reading where it is, with the words and the kind (cut off or corrupt)
// that say why, and a length from the file allocates only the bytes that
// are there.
func TestPcap24Bounds(t *testing.T) {
	le := binary.LittleEndian
	p := eth(tcp4(t, "10.0.0.1", "10.0.0.2", 1, 2, 0, 100))
	good := writePcap(le, false, layers.LinkTypeEthernet, [][]byte{p, p}, 0)
	rec2 := 24 + 16 + len(p)
	set := func(b []byte, at int, v uint32) []byte {
		b = append([]byte(nil), b...)
		le.PutUint32(b[at:], v)
		return b
	}
	// a snap length beyond the read buffer, and records that use it
	bigSnap := set(good, 16, 1<<20)
	big := make([]byte, 300_000)
	for i := range big {
		big[i] = byte(i)
	}
	bigRec := append(le.AppendUint32(le.AppendUint32(le.AppendUint32(le.AppendUint32(nil, 1), 2), uint32(len(big))), uint32(len(big))), big...)
	withBig := append(append([]byte(nil), bigSnap...), bigRec...)
	for _, c := range []struct {
		name      string
		file      []byte
		frames    int
		offset    int64
		truncated bool
		msg       string
	}{
		{"whole", good, 2, -1, false, ""},
		{"cut in a header", good[:rec2+10], 1, int64(rec2), true, "record header or data ends early"},
		{"header without data", good[:rec2+16], 1, int64(rec2), true, "record header or data ends early"},
		{"cut in the data", good[:rec2+30], 1, int64(rec2), true, "record header or data ends early"},
		{"above the snap length", set(good, rec2+8, 300_000), 1, int64(rec2), false, "capture length exceeds snap length: 300000 > 65535"},
		{"above the wire length, read whole", set(good, rec2+12, uint32(len(p)-4)), 2, -1, false, ""},
		{"above the wire length and libpcap's largest", set(bigSnap, rec2+8, 300_000), 1, int64(rec2), false, "capture length exceeds original packet length: 300000 > 166"},
		{"longer than the buffer", withBig, 3, -1, false, ""},
		{"longer than the buffer, cut", withBig[:len(withBig)-1000], 2, int64(len(good)), true, "record header or data ends early"},
		{"a length of 4 GiB in a small file", set(set(set(bigSnap, 16, 0xffffffff), rec2+8, 0xfffffff0), rec2+12, 0xfffffff0), 1, int64(rec2), true, "record header or data ends early"},
	} {
		got, err := readPcap24(t, c.file)
		var fe *FormatError
		switch {
		case c.msg == "" && err != nil, c.msg != "" && !errors.As(err, &fe):
			t.Errorf("%s: %v", c.name, err)
		case len(got) != c.frames:
			t.Errorf("%s: %d records, want %d", c.name, len(got), c.frames)
		case fe != nil && (fe.Offset != c.offset || fe.Truncated != c.truncated || !strings.Contains(fe.Msg, c.msg)):
			t.Errorf("%s: %v (offset %d, truncated %v); want offset %d, truncated %v, %q", c.name, fe, fe.Offset, fe.Truncated, c.offset, c.truncated, c.msg)
		}
		if c.name == "longer than the buffer" && len(got) == 3 && !bytes.Equal(got[2].Data, big) {
			t.Errorf("%s: the long record's data differs", c.name)
		}
	}
}
