package capture

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/latlab/latlab/internal/infile"
	"github.com/latlab/latlab/internal/testutil"
)

// tsharkFrameFields are each frame's number, time (s since the epoch),
// length on the wire and length captured.
var tsharkFrameFields = []string{"frame.number", "frame.time_epoch", "frame.len", "frame.cap_len"}

// tsharkFrames reads every frame's time (ns since the epoch), length on
// the wire and length captured from tshark's rows of tsharkFrameFields
// (and any after them).
func tsharkFrames(t *testing.T, rows map[int][]string) map[int][3]int64 {
	t.Helper()
	m := map[int][3]int64{}
	for n, c := range rows {
		sec, frac, _ := strings.Cut(c[1], ".")
		s, err1 := strconv.ParseInt(sec, 10, 64)
		frac = (frac + "000000000")[:9]
		ns, err2 := strconv.ParseInt(frac, 10, 64)
		l, err3 := strconv.ParseInt(c[2], 10, 64)
		cl, err4 := strconv.ParseInt(c[3], 10, 64)
		if err1 != nil || err2 != nil || err3 != nil || err4 != nil {
			t.Fatalf("frame %d: tshark says %q", n, c)
		}
		if strings.HasPrefix(sec, "-") {
			ns = -ns
		}
		m[n] = [3]int64{s*1e9 + ns, l, cl}
	}
	return m
}

// checkFramesTshark compares latlab's reading of a capture with
// tshark's: the same frames, numbered alike, with the same times and
// lengths, decoding to the same addresses and ports.
func checkFramesTshark(t *testing.T, path string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	got, err := readAll(t, bytes.NewReader(b))
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	// One tshark run for the frames and their decoding: its start-up
	// is most of what it costs on these small files.
	fields := append(append([]string{}, tsharkFrameFields...), tsharkDecodeFields[1:]...)
	rows, stderr, err := testutil.TsharkFields(testutil.NeedTool(t, "tshark"), path, tsharkDecodeOpts, fields)
	if err != nil && len(rows) == 0 {
		t.Fatalf("tshark: %v: %s", err, stderr)
	}
	want := tsharkFrames(t, rows)
	dec := map[int][]string{}
	for n, c := range rows {
		dec[n] = append([]string{c[0]}, c[len(tsharkFrameFields):]...)
	}
	ts, tsStreams := decodeRows(dec)
	if len(got) != len(want) {
		t.Errorf("%s: latlab reads %d frames, tshark %d", path, len(got), len(want))
	}
	for i, g := range got {
		w, ok := want[i+1]
		if !ok {
			continue
		}
		if g.timeNs != w[0] || int64(g.len) != w[1] || int64(g.capLen) != w[2] {
			t.Errorf("%s frame %d: latlab %d, %d bytes (%d captured); tshark %d, %d (%d)", path, i+1, g.timeNs, g.len, g.capLen, w[0], w[1], w[2])
		}
	}
	for _, d := range compareDecodeWith(t, path, ts, tsStreams) {
		t.Errorf("%s %s", path, d)
	}
	// The same frames read in place from the file, and from a temporary
	// copy when compressed.
	f, err := infile.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for name, r := range map[string]io.Reader{"the file": f, "zstd": bytes.NewReader(compress(t, CompressionZstd, b))} {
		again, err := readAll(t, r)
		if err != nil || !reflect.DeepEqual(again, got) {
			t.Errorf("%s read from %s: %d frames (%v), not the %d frames read from memory", path, name, len(again), err, len(got))
		}
	}
}

// The files editcap wrote (1.1, 2.0, 2.1) and files of every media type
// and version written here, as tshark reads them.
func TestNetMonMatchesTshark(t *testing.T) {
	// In parallel, as TestOldPcapMatchesTshark.
	t.Parallel()
	paths, _ := filepath.Glob("testdata/netmon/*.cap")
	if len(paths) < 3 {
		t.Fatalf("%d NetMon files in testdata/netmon", len(paths))
	}
	dir := t.TempDir()
	media, _ := netmonMediaFile(t)
	e4 := ethf(etherTypeIPv4, inner4(t))
	written := map[string]nmFile{
		"media-2.3.cap": media,
		"raw-2.0.cap":   {major: 2, minor: 0, net: netmonNetRawIP, recs: []nmRec{{data: inner4(t), deltaUs: 5}, {data: inner6(t), deltaUs: 1<<64 - 1500}}},
		"wlan-2.0.cap":  {major: 2, minor: 0, net: netmonNetWLAN, recs: []nmRec{{data: cat(netmonRadio(), wlanQoS(false, etherTypeIPv4), inner4(t)), deltaUs: 1}}},
		"eth-2.2.cap":   {major: 2, minor: 2, net: 1, gap: 7, order: []int{1, 0}, recs: []nmRec{{net: 1, data: e4, deltaUs: 10}, {net: 0, data: e4[:40], orig: len(e4), deltaUs: 20}}},
		"eth-1.1.cap":   {major: 1, minor: 1, net: 1, recs: []nmRec{{data: e4, deltaUs: 10}, {data: e4, deltaUs: 20}}},
	}
	for name, f := range written {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, netmonFile(f), 0o644); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
	}
	for _, p := range paths {
		checkFramesTshark(t, p)
	}
}
