package cli

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"
	"github.com/gopacket/gopacket/pcapgo"

	"github.com/latlab/latlab/internal/testutil"
)

// manyConnsPcap writes a capture of n connections, each a SYN and a RST,
// as raw IPv4.
func manyConnsPcap(t *testing.T, path string, n int) {
	t.Helper()
	var b bytes.Buffer
	w := pcapgo.NewWriter(&b)
	if err := w.WriteFileHeader(65535, layers.LinkTypeRaw); err != nil {
		t.Fatal(err)
	}
	t0 := time.Unix(1_700_000_000, 0)
	pkt := func(i int, flags byte, at time.Duration) {
		p := make([]byte, 40)
		p[0], p[9] = 0x45, 6
		binary.BigEndian.PutUint16(p[2:], 40)
		p[8] = 64
		copy(p[12:], []byte{10, byte(i >> 16), byte(i >> 8), byte(i)})
		copy(p[16:], []byte{192, 168, 0, 1})
		binary.BigEndian.PutUint16(p[20:], uint16(1024+i%60000))
		binary.BigEndian.PutUint16(p[22:], 443)
		binary.BigEndian.PutUint32(p[24:], uint32(i))
		p[32], p[33] = 5<<4, flags
		binary.BigEndian.PutUint16(p[34:], 1000)
		if err := w.WritePacket(gopacket.CaptureInfo{Timestamp: t0.Add(at), CaptureLength: 40, Length: 40}, p); err != nil {
			t.Fatal(err)
		}
	}
	for i := range n {
		pkt(i, 0x02, time.Duration(i)*time.Millisecond)
		pkt(i, 0x04, time.Duration(i)*time.Millisecond+time.Microsecond)
	}
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// failingWriter takes n bytes, then fails every write.
type failingWriter struct{ n int }

var errDiskFull = errors.New("no space left on device")

func (w *failingWriter) Write(p []byte) (int, error) {
	if len(p) > w.n {
		k := w.n
		w.n = 0
		return k, errDiskFull
	}
	w.n -= len(p)
	return len(p), nil
}

// The document is written by a goroutine of its own: a write that fails
// part-way stops the analysis and `pcap tcp --json` fails naming why,
// without hanging or leaving the goroutine behind; one that succeeds gives
// the same document as a run that writes to a file.
func TestPcapTCPDocumentWriteFails(t *testing.T) {
	// In parallel with the package's other parallel tests: it reads a
	// capture of its own, in memory.
	t.Parallel()
	dir := testutil.TempDir(t)
	capFile := filepath.Join(dir, "many.pcap")
	manyConnsPcap(t, capFile, 5000)
	for _, limit := range []int{0, 1000, 300_000} {
		var errb bytes.Buffer
		done := make(chan int)
		go func() {
			done <- Run(context.Background(), []string{"pcap", "tcp", capFile, "--json"},
				&IO{In: strings.NewReader(""), Out: &failingWriter{n: limit}, Err: &errb})
		}()
		select {
		case code := <-done:
			if code == 0 || !strings.Contains(errb.String(), errDiskFull.Error()) {
				t.Errorf("writes failing after %d bytes: exit %d, %q; want a failure naming the write's error", limit, code, errb.String())
			}
		case <-time.After(time.Minute):
			t.Fatalf("writes failing after %d bytes: the command hangs", limit)
		}
	}
	file := filepath.Join(dir, "tcp.json")
	code, out, errs := runCLI(t, "pcap", "tcp", capFile, "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if code, _, errs := runCLI(t, "pcap", "tcp", capFile, "-o", file); code != 0 {
		t.Fatalf("-o: exit %d: %s", code, errs)
	}
	d := readDoc(t, out)
	data, ok := KindPcapTCP.Of(d)
	if !ok || len(data.Connections) != 5000 || data.Totals.Connections != 5000 {
		t.Fatalf("kind %s (%v): %d connections", d.Kind, ok, len(data.Connections))
	}
	f := readDoc(t, readFile(t, file))
	fdata, _ := KindPcapTCP.Of(f)
	a, _ := json.Marshal(data.Connections)
	b, _ := json.Marshal(fdata.Connections)
	if !bytes.Equal(a, b) || data.Connections[4999].Stream != 4999 {
		t.Fatalf("the connections of the document differ from those of the file")
	}
}

// panickyWriter panics on its first write.
type panickyWriter struct{}

func (panickyWriter) Write([]byte) (int, error) { panic("the writer broke") }

// A panic while the document is written, in the encoder's goroutine, is
// raised again in the command's, as it was when the document was written
// there: the caller can recover it, and the process does not die with a
// goroutine's panic that nothing could catch.
func TestPcapTCPDocumentPanicReachesTheCaller(t *testing.T) {
	capFile := filepath.Join(testutil.TempDir(t), "many.pcap")
	manyConnsPcap(t, capFile, 2000) // more than one flush of the stream
	defer func() {
		if p := recover(); p == nil || !strings.Contains(fmt.Sprint(p), "the writer broke") {
			t.Fatalf("recovered %v, want the writer's panic", p)
		}
	}()
	Run(context.Background(), []string{"pcap", "tcp", capFile, "--json"},
		&IO{In: strings.NewReader(""), Out: panickyWriter{}, Err: io.Discard})
	t.Fatal("no panic")
}
