package tcpflow

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/latlab/latlab/internal/capture"
)

// analysed is what an Analyzer reported of a capture: every frame (with
// its connection as a stream number) and every connection as it closed.
type analysed struct {
	frames  []Frame
	streams []int
	conns   []Connection
}

func analyseScan(t *testing.T, scan func(context.Context, capture.Handler) (*capture.Stats, error), reuse, atOnce bool) analysed {
	t.Helper()
	var r analysed
	a := NewAnalyzer()
	a.ReuseConns, a.closeAtOnce = reuse, atOnce
	a.OnFrame = func(fr *Frame) {
		c := *fr
		c.Seg, c.Opts, c.Conn = nil, nil, nil
		c.SpuriousByDSACK = slices.Clone(fr.SpuriousByDSACK)
		c.RackAvoided = slices.Clone(fr.RackAvoided)
		r.frames = append(r.frames, c)
		r.streams = append(r.streams, fr.Conn.Stream)
	}
	a.OnClose = func(c *Conn) { r.conns = append(r.conns, NewConnection(c)) }
	var seg Segment
	if _, err := scan(context.Background(), func(rec *capture.Record, p *capture.Packet) {
		if FromCapture(rec, p, &seg) {
			a.Add(&seg)
		}
	}); err != nil {
		t.Fatal(err)
	}
	a.Finish()
	return r
}

func fileScan(path string) func(context.Context, capture.Handler) (*capture.Stats, error) {
	return func(ctx context.Context, h capture.Handler) (*capture.Stats, error) {
		f, err := os.Open(path)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		return capture.Scan(f, capture.ScanOptions{Context: ctx}, h)
	}
}

// Reusing a closed connection's memory (Analyzer.ReuseConns) changes no
// frame and no connection, whether connections close after the grace
// period or at once (so that every capture recycles some), on every
// capture of testdata and on thousands of generated connections.
func TestReuseConnsChangesNothing(t *testing.T) {
	scans := map[string]func(context.Context, capture.Handler) (*capture.Stats, error){
		"generated": generated{n: 3000, open: 40, payload: func(i int) int { return 1 + i*37%1400 }}.scan,
	}
	err := filepath.WalkDir("testdata", func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && (strings.HasSuffix(p, ".pcap") || strings.HasSuffix(p, ".pcapng")) {
			scans[p] = fileScan(p)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(scans) < 5 {
		t.Fatalf("only %d captures", len(scans))
	}
	for name, scan := range scans {
		for _, atOnce := range []bool{false, true} {
			want := analyseScan(t, scan, false, atOnce)
			got := analyseScan(t, scan, true, atOnce)
			if len(want.frames) == 0 {
				continue // not a capture the analyzer reads
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("%s (close at once %v): reusing connections changed the analysis", name, atOnce)
			}
		}
	}
}

// With ReuseConns, a connection costs no allocation once the first ones
// have closed: its state comes from a slab or from a closed connection,
// with that one's buffers (issue 30: with 100,000 short connections,
// garbage collection took about 17% of the time). What is left is the
// closed connections' map, which grows by doubling.
func TestReuseConnsAllocations(t *testing.T) {
	const n = 20_000
	g := generated{n: n, open: 50, payload: func(i int) int { return 100 + i%7 }}
	a := NewAnalyzer()
	a.ReuseConns = true
	var seg Segment
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	if _, err := g.scan(context.Background(), func(rec *capture.Record, p *capture.Packet) {
		if FromCapture(rec, p, &seg) {
			a.Add(&seg)
		}
	}); err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&after)
	if per := float64(after.Mallocs-before.Mallocs) / n; per > 0.25 {
		t.Errorf("%.2f allocations per connection, want at most 0.25", per)
	}
	if len(a.free)+a.table.open > 2000 {
		t.Errorf("%d connections kept for reuse, %d open: want the few open at once", len(a.free), a.table.open)
	}
}
