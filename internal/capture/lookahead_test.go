package capture

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"runtime"
	"testing"
)

// genReader produces a capture of about size bytes without holding it:
// head, then record(i) for i = 0, 1, ... Every sampleEvery bytes it reads
// the heap size and fails the read once the heap has grown by more than
// maxGrowth (if set), so a reader that keeps what it read is stopped early.
type genReader struct {
	head      []byte
	record    func(i int, b []byte) []byte
	size      int64
	maxGrowth uint64

	buf     []byte
	i       int
	n       int64
	next    int64
	base    uint64
	peak    uint64
	stopped bool
}

const sampleEvery = 8 << 20

var errHeapGrew = errors.New("heap grew while reading")

func (g *genReader) Read(p []byte) (int, error) {
	if g.n == 0 {
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		g.base, g.buf = ms.HeapAlloc, append(g.buf[:0], g.head...)
	}
	if g.n >= g.next {
		g.next += sampleEvery
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		if ms.HeapAlloc > g.base {
			g.peak = max(g.peak, ms.HeapAlloc-g.base)
		}
		if g.maxGrowth > 0 && g.peak > g.maxGrowth {
			g.stopped = true
			return 0, fmt.Errorf("%w: %d MB after %d MB read", errHeapGrew, g.peak>>20, g.n>>20)
		}
	}
	for len(g.buf) < len(p) && g.n+int64(len(g.buf)) < g.size {
		g.buf = g.record(g.i, g.buf)
		g.i++
	}
	if len(g.buf) == 0 {
		return 0, io.EOF
	}
	k := copy(p, g.buf)
	g.buf = g.buf[:copy(g.buf, g.buf[k:])]
	g.n += int64(k)
	return k, nil
}

// arpFrame is a 42-byte ARP request: not IP, so no duplicate check ever
// sees it.
var arpFrame = append([]byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 2, 0, 0, 0, 0, 1, 0x08, 0x06,
	0, 1, 8, 0, 6, 4, 0, 1, 2, 0, 0, 0, 0, 1, 10, 0, 0, 1}, make([]byte, 10)...)

// arpPcap is a pcap of ARP frames, 1 µs apart.
func arpPcap(size int64) *genReader {
	le := binary.LittleEndian
	head := writePcap(le, false, 1, nil, 0)
	return &genReader{head: head, size: size, record: func(i int, b []byte) []byte {
		b = le.AppendUint32(b, uint32(1700000000+i/1000000))
		b = le.AppendUint32(b, uint32(i%1000000))
		b = le.AppendUint32(b, uint32(len(arpFrame)))
		b = le.AppendUint32(b, uint32(len(arpFrame)))
		return append(b, arpFrame...)
	}}
}

// arpPcapNG is a pcapng of ARP frames that each carry their own pcapng
// packet id, the case in which auto dedup holds frames back to look for
// a repeated id.
func arpPcapNG(size int64) *genReader {
	var frames []pkFrame
	frames = append(frames, pkFrame{iface: 0, ts: t0, data: arpFrame, groupID: 1})
	file := etl2pcapngFile([]string{"NIC"}, frames)
	epb := file[len(file)-int(binary.LittleEndian.Uint32(file[len(file)-4:])):]
	head := file[:len(file)-len(epb)]
	idAt := 28 + 44 + 8 + 4 // header, padded frame, flags option, packet id option header
	return &genReader{head: head, size: size, record: func(i int, b []byte) []byte {
		b = append(b, epb...)
		binary.LittleEndian.PutUint64(b[len(b)-len(epb)+idAt:], uint64(i+1))
		return b
	}}
}

// ARP frames (issue 10: 200 MB of them took 1.5 GB) go through auto
// dedup in bounded memory, and so do pcapng frames with packet ids: the
// look-ahead never holds more than autoMaxFrames frames and autoMaxBytes
// bytes, and the heap does not grow with the file. Each file is larger
// than the growth allowed (24 MiB), so a reader that kept even the bytes
// it read would fail; the heap grows by at most 3 and 8 MB (with or
// without -race), and 64 and 32 MiB are 1.2 million and 300,000 frames,
// far past the look-ahead's bounds.
func TestDedupLookAheadBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("reads 96 MiB")
	}
	for _, c := range []struct {
		name string
		g    *genReader
	}{{"pcap", arpPcap(64 << 20)}, {"pcapng with packet ids", arpPcapNG(32 << 20)}} {
		c.g.maxGrowth = 24 << 20
		st, s, err := runScan(c.g, ScanOptions{Dedup: DedupAuto}, func(*Record, *Packet) {})
		if err != nil {
			t.Fatalf("%s: %v (peak look-ahead %d frames, %d bytes)", c.name, err, s.peakFrames, s.peakBytes)
		}
		if st.Frames < int(c.g.size/200) || st.Skipped["not IP"] != st.Frames || st.ReadError != nil {
			t.Fatalf("%s: %d frames read (heap grew by %d MB), stats %+v", c.name, st.Frames, c.g.peak>>20, st)
		}
		if s.peakFrames > autoMaxFrames || s.peakBytes > autoMaxBytes || len(s.held) != 0 {
			t.Errorf("%s: look-ahead held up to %d frames and %d bytes; the bounds are %d and %d", c.name, s.peakFrames, s.peakBytes, autoMaxFrames, autoMaxBytes)
		}
		t.Logf("%s: %d frames, heap grew by at most %d MB, look-ahead peak %d frames", c.name, st.Frames, c.g.peak>>20, s.peakFrames)
	}
}
