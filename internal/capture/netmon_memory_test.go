package capture

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/latlab/latlab/internal/infile"
	"github.com/latlab/latlab/internal/testutil"
)

// bigNetMon is a NetMon 2.1 file of n Ethernet frames of size bytes each.
func bigNetMon(t testing.TB, n, size int) []byte {
	t.Helper()
	frame := serialize(t, ethL(0x0800), ip4("10.0.0.1", "10.0.0.2", 17), payload(size-34))
	f := nmFile{major: 2, minor: 1, net: netmonNetEthernet}
	for i := range n {
		f.recs = append(f.recs, nmRec{net: netmonNetEthernet, data: frame, deltaUs: uint64(i)})
	}
	return netmonFile(f)
}

// seekOnly is a file that records the most bytes read from it in a row
// without a seek: reading it whole reads all of them.
type seekOnly struct {
	f      *infile.File
	run    int64 // bytes read since the last seek
	seeks  int
	maxRun int64
}

func (s *seekOnly) Read(p []byte) (int, error) {
	n, err := s.f.Read(p)
	s.run += int64(n)
	s.maxRun = max(s.maxRun, s.run)
	return n, err
}

func (s *seekOnly) Seek(off int64, whence int) (int64, error) {
	s.run = 0
	s.seeks++
	return s.f.Seek(off, whence)
}

// Issue 40: a NetMon file was read whole into memory when it came through
// Scan (the .etl sniffing hid its Seek), or compressed, or from a pipe: a
// 900 MiB capture cost 2.1 GB. Now the file is read at offsets, and what
// cannot seek is copied to a temporary file: Scan reads the same frames
// while reading at most a window of the file at a time, and allocates
// much less than the capture is long. (The 900 MiB bound itself is
// measured by scripts/bench-netmon-memory.)
func TestNetMonNotReadWhole(t *testing.T) {
	b := bigNetMon(t, 2000, 16000) // 32 MB
	dir := testutil.TempDir(t)
	path := filepath.Join(dir, "big.cap")
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	count := func(r io.Reader) (int, uint64, error) {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		frames := 0
		_, err := Scan(r, ScanOptions{DedupWindow: 1}, func(*Record, *Packet) { frames++ })
		runtime.ReadMemStats(&after)
		return frames, after.TotalAlloc - before.TotalAlloc, err
	}

	f, err := infile.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	so := &seekOnly{f: f}
	frames, _, err := count(so)
	if err != nil || frames != 2000 {
		t.Fatalf("the file: %d frames, %v", frames, err)
	}
	if so.seeks == 0 || so.maxRun > 1<<20 {
		t.Errorf("the file was read %d bytes in a row (%d seeks): read whole, not at offsets", so.maxRun, so.seeks)
	}

	for name, r := range map[string]func() io.Reader{
		"pipe": func() io.Reader { return onlyReader{bytes.NewReader(b)} },
		"zstd": func() io.Reader { return bytes.NewReader(compress(t, CompressionZstd, b)) },
	} {
		in := r()
		frames, alloc, err := count(in)
		if err != nil || frames != 2000 {
			t.Fatalf("%s: %d frames, %v", name, frames, err)
		}
		if alloc > uint64(len(b))/2 {
			t.Errorf("%s: reading a %d-byte capture allocated %d bytes: read whole", name, len(b), alloc)
		}
	}
}
