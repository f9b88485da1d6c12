package dpcisr

import (
	"errors"
	"fmt"
	"io"
	"runtime"
	"strings"
	"testing"
)

// shortLines generates size bytes of a report that is mostly short lines
// parsers must look at and keep nothing of: free text, blank lines, rules
// and stray footers (each a note). It holds one block, so it parses.
type shortLines struct {
	left int64
	buf  []byte
	i    int
}

func newShortLines(size int64) *shortLines {
	head := "DPC Info\nTotal = 1 for module a.sys\nElapsed Time, > 1 usecs AND <= 2 usecs, 1, or 100.00%\nTotal, 1\n"
	return &shortLines{left: size, buf: []byte(head)}
}

var fillers = []string{"x\n", "\n", "a line of some free text\r\n", "--------------------\n", "Total,\n",
	"        \n", "USB Keyboard Driver (kbdhid.sys)\n"}

func (g *shortLines) Read(p []byte) (int, error) {
	n := 0
	for n < len(p) && g.left > 0 {
		if len(g.buf) == 0 {
			g.buf = append(g.buf, fillers[g.i%len(fillers)]...)
			g.i++
		}
		k := copy(p[n:], g.buf)
		k = int(min(int64(k), g.left))
		g.buf = g.buf[k:]
		n += k
		g.left -= int64(k)
	}
	if n == 0 {
		return 0, io.EOF
	}
	return n, nil
}

// heapWatch samples the live heap (after a collection) every step bytes
// read, so a reader that keeps what it read shows up whatever the timing.
type heapWatch struct {
	r          io.Reader
	step, next int64
	read       int64
	peak       uint64
}

func (h *heapWatch) Read(p []byte) (int, error) {
	n, err := h.r.Read(p)
	h.read += int64(n)
	if h.read >= h.next {
		h.next += h.step
		h.peak = max(h.peak, liveHeap())
	}
	return n, err
}

func liveHeap() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// Parse streams: the memory it holds does not grow with the file. Short
// lines used to be held three times over (the bytes, the decoded text and
// a string header per line: 60 MB took 624 MB); 6 MiB of them grew the
// live heap by 8 MiB. The bound is half the size read, as it was with 6
// MiB (a reader that keeps half of what it read fails); the heap now
// grows by about 200 KiB, with or without -race.
func TestParseMemoryIndependentOfSize(t *testing.T) {
	const size = 2 << 20
	base := liveHeap()
	w := &heapWatch{r: newShortLines(size), step: 256 << 10, next: 256 << 10}
	r, err := Parse(w)
	if err != nil {
		t.Fatal(err)
	}
	if w.read != size {
		t.Fatalf("read %d bytes of %d", w.read, size)
	}
	if grew := int64(w.peak) - int64(base); grew > size/2 {
		t.Errorf("live heap grew by %d KiB while reading %d KiB; want it independent of the size", grew>>10, size>>10)
	}
	if len(r.Notes) != maxNotes+1 || !strings.HasSuffix(r.Notes[maxNotes], "more notes not shown") {
		t.Errorf("%d notes, last %q", len(r.Notes), r.Notes[len(r.Notes)-1])
	}
	if len(r.Sections) != 1 || len(r.Sections[0].Modules) != 1 {
		t.Errorf("sections %+v", r.Sections)
	}
}

// What a report holds is bounded too: past maxRetained it is refused.
func TestParseRetainedBound(t *testing.T) {
	defer func(m int) { maxRetained = m }(maxRetained)
	maxRetained = 1 << 20
	var b strings.Builder
	b.WriteString("DPC Info\n")
	for i := 0; b.Len() < 2<<20; i++ {
		fmt.Fprintf(&b, "Total = 1 for module m%d.sys\nElapsed Time, > 1 usecs AND <= 2 usecs, 1, or 100.00%%\n", i)
	}
	_, err := Parse(strings.NewReader(b.String()))
	var pe *ParseError
	if !errors.As(err, &pe) || !strings.Contains(pe.Msg, "pass 1 MiB, far more than any xperf report") {
		t.Fatalf("2 MiB of blocks under a 1 MiB bound: %v", err)
	}
}

func TestParseLongLine(t *testing.T) {
	in := "DPC Info\nTotal = 1 for module " + strings.Repeat("a", 2<<20) + "\n"
	_, err := Parse(strings.NewReader(in))
	if err == nil || !strings.HasPrefix(err.Error(), "line 2: longer than 1 MiB") {
		t.Fatalf("2 MiB line: %v", err)
	}
}

// Module names, labels and headings are copied out of their lines, so a
// long line does not stay in memory behind a short name.
func TestParseKeepsNoLine(t *testing.T) {
	junk := strings.Repeat("j", 512<<10)
	in := "DPC Info\nTotal = 1 for module a.sys " + junk + "\nElapsed Time, > 1 usecs AND <= 2 usecs, 1, or 100.00%\n"
	base := liveHeap()
	r, err := Parse(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	if grew := int64(liveHeap()) - int64(base); grew > 256<<10 {
		t.Errorf("the report keeps %d KiB for a module name", grew>>10)
	}
	runtime.KeepAlive(r)
	runtime.KeepAlive(in)
}

func BenchmarkParseShortLines(b *testing.B) {
	in, err := io.ReadAll(newShortLines(4 << 20))
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(in)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Parse(strings.NewReader(string(in))); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkParseReport(b *testing.B) {
	in := readFixture(b, "xperf-dpcisr-written-layout.txt")
	b.SetBytes(int64(len(in)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Parse(strings.NewReader(in)); err != nil {
			b.Fatal(err)
		}
	}
}
