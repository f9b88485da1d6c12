package capture

import (
	"bytes"
	"compress/gzip"
	"io"
	"os"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"
	"github.com/pierrec/lz4/v4"
)

// compress compresses b with one of the formats NewReader detects.
func compress(t testing.TB, kind string, b []byte) []byte {
	t.Helper()
	var out bytes.Buffer
	var w io.WriteCloser
	switch kind {
	case CompressionGzip:
		w = gzip.NewWriter(&out)
	case CompressionZstd:
		zw, err := zstd.NewWriter(&out, zstd.WithEncoderConcurrency(1))
		if err != nil {
			t.Fatal(err)
		}
		w = zw
	case CompressionLZ4:
		lw := lz4.NewWriter(&out)
		if err := lw.Apply(lz4.BlockSizeOption(lz4.Block64Kb)); err != nil {
			t.Fatal(err)
		}
		w = lw
	}
	if _, err := w.Write(b); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}

var compressions = []string{CompressionGzip, CompressionZstd, CompressionLZ4}

// Compressed captures read as their plain selves (issue 17, item 6): the
// files the gzip, zstd and lz4 tools write, and pcapng too.
func TestCompressedCaptures(t *testing.T) {
	plain, err := os.ReadFile("testdata/ssh.pcap")
	if err != nil {
		t.Fatal(err)
	}
	want, _ := scan(t, plain, ScanOptions{})
	for _, c := range []struct{ file, kind string }{
		{"ssh.pcap.gz", CompressionGzip}, {"ssh.pcap.zst", CompressionZstd}, {"ssh.pcap.lz4", CompressionLZ4},
	} {
		b, err := os.ReadFile("testdata/" + c.file)
		if err != nil {
			t.Fatal(err)
		}
		st, _ := scan(t, b, ScanOptions{})
		if st.Compression != c.kind || st.Frames != want.Frames || st.IPPackets != want.IPPackets || st.FileBytes != int64(len(plain)) ||
			st.ReadError != nil || st.Gzipped != (c.kind == CompressionGzip) {
			t.Errorf("%s: %+v; want %s, %d frames, %d bytes", c.file, st, c.kind, want.Frames, len(plain))
		}
	}
	ng := ngFile(t, true)
	wantNG, _ := scan(t, ng, ScanOptions{})
	for _, kind := range compressions {
		st, _ := scan(t, compress(t, kind, ng), ScanOptions{})
		if st.Compression != kind || st.Format != FormatPcapNG || st.Frames != wantNG.Frames || st.Duplicates != wantNG.Duplicates || st.ReadError != nil {
			t.Errorf("pcapng %s: %+v", kind, st)
		}
	}
}

// A compressed capture that decompresses beyond the cap stops there,
// whatever the compression ratio: 2 MiB of ARP frames (twice the cap) in
// a few KiB.
func TestDecompressionBomb(t *testing.T) {
	g := arpPcap(2 << 20)
	var plain bytes.Buffer
	if _, err := io.Copy(&plain, g); err != nil {
		t.Fatal(err)
	}
	const max = 1 << 20
	for _, kind := range compressions {
		bomb := compress(t, kind, plain.Bytes())
		st, err := Scan(bytes.NewReader(bomb), ScanOptions{MaxBytes: max}, func(*Record, *Packet) {})
		if err != nil || st.ReadError == nil || !st.ReadError.Read || !strings.Contains(st.ReadError.Msg, "decompressed, the capture is more than the 1 MiB cap") ||
			st.FileBytes > max || st.Frames < max/100 {
			t.Errorf("%s bomb (%d bytes): err %v, %d frames, %d bytes read, read error %+v", kind, len(bomb), err, st.Frames, st.FileBytes, st.ReadError)
		}
		// the cap holds on every later read, too
		rd, err := newReader(bytes.NewReader(bomb), 64<<10)
		if err != nil {
			t.Fatal(err)
		}
		var rec Record
		for rd.Next(&rec) == nil {
		}
		for j := range 3 {
			if err := rd.Next(&rec); err == nil || err == io.EOF {
				t.Errorf("%s: read %d after the cap: %v", kind, j, err)
			}
		}
		// below the cap it reads whole
		st, err = Scan(bytes.NewReader(bomb), ScanOptions{MaxBytes: int64(plain.Len())}, func(*Record, *Packet) {})
		if err != nil || st.ReadError != nil || st.FileBytes != int64(plain.Len()) {
			t.Errorf("%s within the cap: err %v, %+v", kind, err, st.ReadError)
		}
	}
}

// Damage in a compressed stream is the file's: corrupt or cut off, never a
// failed read.
func TestCompressedDamage(t *testing.T) {
	g := arpPcap(1 << 20)
	var plain bytes.Buffer
	if _, err := io.Copy(&plain, g); err != nil {
		t.Fatal(err)
	}
	for _, kind := range compressions {
		z := compress(t, kind, plain.Bytes())
		st, err := Scan(bytes.NewReader(z[:len(z)*2/3]), ScanOptions{}, func(*Record, *Packet) {})
		if err != nil || st.ReadError == nil || !st.ReadError.Truncated || st.ReadError.Read || st.Frames == 0 {
			t.Errorf("%s cut off: err %v, stats %+v", kind, err, st)
		}
		// cut before the first (zstd, lz4) block ends: no header yet
		st, err = Scan(bytes.NewReader(z[:len(z)/50]), ScanOptions{}, func(*Record, *Packet) {})
		if fe, ok := err.(*FormatError); err != nil && (!ok || !fe.Truncated || fe.Read) || err == nil && (st.ReadError == nil || !st.ReadError.Truncated) {
			t.Errorf("%s cut early: %v", kind, err)
		}
		bad := append([]byte(nil), z...)
		for i := len(bad) / 3; i < len(bad)/3+64; i++ {
			bad[i] ^= 0x5a
		}
		st, err = Scan(bytes.NewReader(bad), ScanOptions{}, func(*Record, *Packet) {})
		if err != nil || st.ReadError == nil || st.ReadError.Read || st.Frames*58+24 >= plain.Len() {
			t.Errorf("%s corrupt: err %v, stats %+v", kind, err, st)
		} else if !strings.Contains(st.ReadError.Msg, "corrupt") && !strings.Contains(st.ReadError.Msg, "damaged or unsupported "+kind+" data") {
			t.Errorf("%s corrupt: %s", kind, st.ReadError.Msg)
		}
	}
	// a zstd window above zstd's own default limit (2^27) is refused
	// before it is allocated; 2^27 is read
	for wl, want := range map[byte]string{27: "unknown magic number 61626364", 28: "damaged or unsupported zstd data: window size exceeded"} {
		frame := []byte{0x28, 0xb5, 0x2f, 0xfd, 0x00, (wl - 10) << 3, 0x01 | 4<<3, 0, 0, 'a', 'b', 'c', 'd'} // one raw block "abcd"
		_, err := Scan(bytes.NewReader(frame), ScanOptions{}, func(*Record, *Packet) {})
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("zstd window 2^%d: %v, want %q", wl, err, want)
		}
	}
	// a compression header that is not one
	_, err := Scan(bytes.NewReader([]byte{0x1f, 0x8b, 0, 0, 0}), ScanOptions{}, func(*Record, *Packet) {})
	if fe, ok := err.(*FormatError); !ok || !strings.Contains(fe.Msg, "gzip header") {
		t.Errorf("bad gzip header: %v", err)
	}
}
