package tcpflow

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/latlab/latlab/internal/capture"
	"github.com/latlab/latlab/internal/testutil"
)

// runOutput is everything Run produces for a capture, as text: the
// result (the tables' numbers and the document's totals), every
// connection handed to OnConn (the document's list), the events and
// the error; then the result of a run as the tables' (the top 3).
func runOutput(t *testing.T, scan func(context.Context, capture.Handler) (*capture.Stats, error), inline bool) string {
	t.Helper()
	var conns, events bytes.Buffer
	enc := json.NewEncoder(&conns)
	res, err := Run(context.Background(), Options{Scan: scan, Stream: -1, Top: AllConnections, Events: &events,
		OnConn: func(c *Connection) error { return enc.Encode(c) }, inline: inline})
	doc, jerr := json.Marshal(res)
	if jerr != nil {
		t.Fatal(jerr)
	}
	// as the tables run: the top 3, nothing streamed
	top, terr := Run(context.Background(), Options{Scan: scan, Stream: -1, Top: 3, inline: inline})
	tdoc, jerr := json.Marshal(top)
	if jerr != nil {
		t.Fatal(jerr)
	}
	return fmt.Sprintf("error: %v\nresult: %s\nconnections:\n%s\nevents:\n%s\ntop 3: %v %s", err, doc, conns.Bytes(), events.Bytes(), terr, tdoc)
}

// bytesScan scans the capture held in data.
func bytesScan(data []byte) func(context.Context, capture.Handler) (*capture.Stats, error) {
	return func(ctx context.Context, h capture.Handler) (*capture.Stats, error) {
		return capture.Scan(bytes.NewReader(data), capture.ScanOptions{Context: ctx}, h)
	}
}

// retimed returns a copy of the pcap file data (version 2.4, little
// endian) with the times of its records changed by fn (record index,
// seconds and fraction).
func retimed(t *testing.T, data []byte, fn func(i int, sec, frac uint32) (uint32, uint32)) []byte {
	t.Helper()
	out := append([]byte(nil), data...)
	le := binary.LittleEndian
	if le.Uint32(out) != 0xa1b2c3d4 {
		t.Fatalf("not a little-endian µs pcap file")
	}
	for off, i := 24, 0; off+16 <= len(out); i++ {
		sec, frac := fn(i, le.Uint32(out[off:]), le.Uint32(out[off+4:]))
		le.PutUint32(out[off:], sec)
		le.PutUint32(out[off+4:], frac)
		off += 16 + int(le.Uint32(out[off+8:]))
	}
	return out
}

// The analysis in two stages (scan and analysis in goroutines of their
// own, segments handed over in batches) gives what the sequential one
// gives, byte for byte: on every real capture of testdata, on captures
// cut off, with times out of order, with many connections, and on
// scripts/pcapgen's captures of long and of short connections.
func TestStagesEqualSequentialAnalysis(t *testing.T) {
	// Pure computation: beside the package's other parallel tests (those
	// waiting on tshark), its cases side by side.
	t.Parallel()
	cases := map[string]func(context.Context, capture.Handler) (*capture.Stats, error){}
	err := filepath.WalkDir("testdata", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.Contains(path, ".pcap") {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		cases[path] = bytesScan(data)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(cases) < 10 {
		t.Fatalf("only %d captures in testdata", len(cases))
	}
	ssh, err := os.ReadFile("testdata/ssh.pcap")
	if err != nil {
		t.Fatal(err)
	}
	cases["ssh.pcap cut in a record"] = bytesScan(ssh[:len(ssh)-37])
	cases["ssh.pcap, times out of order"] = bytesScan(retimed(t, ssh, func(i int, sec, frac uint32) (uint32, uint32) {
		switch {
		case i >= 10 && i < 20: // backwards
			return sec, frac - uint32(i)*1000
		case i == 30: // before the first frame
			return sec - 100, frac
		case i == 40: // far ahead, then back
			return sec + 5, frac
		}
		return sec, frac
	}))
	// 3,000 open at once: more than the table's first 1,024 slots and a
	// chunk of entries (2,048); 8,000 in all: past 6,144 the table grows
	// from 8,192 slots to 16,384 into the spare slots the scan stage made
	// (asked for at 5/8 full, 1,024 connections and many batches before),
	// and the closed set fills 8 chunks. Each path the 20,000 of before
	// covered is covered (go test -cover), at 2/5 of the time.
	cases["many connections"] = generated{n: 8000, open: 3000, payload: func(i int) int { return 1 + i*37%1400 }}.scan
	if testing.Short() {
		t.Log("-short: no pcapgen captures")
	} else if gobin, err := exec.LookPath("go"); err == nil {
		dir := testutil.TempDir(t)
		for name, args := range map[string][]string{
			"pcapgen long":  {"-size", "6MB", "-active", "200", "-conn-bytes", "262144"},
			"pcapgen short": {"-size", "3MB", "-active", "200", "-conn-bytes", "3000", "-gap", "200us"},
		} {
			f := filepath.Join(dir, strings.ReplaceAll(name, " ", "-")+".pcap")
			cmd := exec.Command(gobin, append([]string{"run", "../../scripts/pcapgen", "-o", f, "-seed", "3"}, args...)...)
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("pcapgen: %v\n%s", err, out)
			}
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			cases[name] = bytesScan(data)
			cases[name+", cut"] = bytesScan(data[:len(data)*2/3])
		}
	} else {
		t.Log("no go command: no pcapgen captures")
	}
	for name, scan := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			seq := runOutput(t, scan, true)
			par := runOutput(t, scan, false)
			if seq != par {
				i := 0
				for i < len(seq) && i < len(par) && seq[i] == par[i] {
					i++
				}
				lo := max(0, i-200)
				t.Errorf("the staged analysis differs from the sequential one at byte %d:\nsequential %q\nstaged     %q",
					i, seq[lo:min(len(seq), i+200)], par[lo:min(len(par), i+200)])
			}
			if !strings.Contains(seq, `"connections":`) && !strings.Contains(seq, "error: ") {
				t.Error("no result")
			}
		})
	}
}
