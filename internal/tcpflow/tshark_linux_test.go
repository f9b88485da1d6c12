package tcpflow

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/latlab/latlab/internal/capture"
	"github.com/latlab/latlab/internal/testutil"
)

// tsharkFields are the per-frame fields compared with tshark.
var tsharkFields = func() []string {
	f := []string{"frame.number", "tcp.options.sack.dsack_le", "tcp.options.sack.dsack_re", "tcp.analysis.duplicate_ack_num"}
	for _, fi := range AllFlags {
		f = append(f, fi.Wireshark)
	}
	return f
}()

// frameView is what both tools say about one frame.
type frameView struct {
	flags     Flag
	dsack     string // "le-re" relative, or ""
	dupAckNum int
}

func (v frameView) String() string {
	return fmt.Sprintf("flags=[%s] dsack=%q dupack#=%d", v.flags, v.dsack, v.dupAckNum)
}

func tsharkView(t *testing.T, path string) map[int]frameView {
	t.Helper()
	bin := testutil.NeedTool(t, "tshark")
	rows, stderr, err := testutil.TsharkFields(bin, path, []string{"-Y", "tcp", "-E", "occurrence=f"}, tsharkFields)
	if err != nil {
		t.Fatalf("tshark: %v: %s", err, stderr)
	}
	m := map[int]frameView{}
	for n, cols := range rows {
		var v frameView
		if cols[1] != "" {
			v.dsack = cols[1] + "-" + cols[2]
		}
		v.dupAckNum, _ = strconv.Atoi(cols[3])
		for i, fi := range AllFlags {
			if cols[4+i] != "" {
				v.flags |= fi.Flag
			}
		}
		m[n] = v
	}
	return m
}

// latlabView analyses path; closeAtOnce closes each connection on the
// segment that ends it instead of after the grace period.
func latlabView(t *testing.T, path string, closeAtOnce bool) map[int]frameView {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	m := map[int]frameView{}
	a := NewAnalyzer()
	a.closeAtOnce = closeAtOnce
	a.OnFrame = func(fr *Frame) {
		v := frameView{flags: fr.Flags.WiresharkFields(), dupAckNum: fr.DupAckNum}
		if fr.DSACK {
			v.dsack = fmt.Sprintf("%d-%d", fr.DSACKLeft, fr.DSACKRight)
		}
		m[fr.Seg.Frame] = v
	}
	var seg Segment
	_, err = capture.Scan(f, capture.ScanOptions{Dedup: capture.DedupOff}, func(rec *capture.Record, p *capture.Packet) {
		if FromCapture(rec, p, &seg) {
			a.Add(&seg)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	a.Finish()
	return m
}

// compareWithTshark returns the frames where latlab and tshark differ,
// with connections closed after the grace period as usual and, again, with
// each closed on the segment that ends it: the flags of the segments that
// come after must not depend on it.
func compareWithTshark(t *testing.T, path string) []string {
	return compareViews(t, path, tsharkView(t, path))
}

// compareViews is compareWithTshark given tshark's view of path.
func compareViews(t *testing.T, path string, ts map[int]frameView) []string {
	var diffs []string
	for _, atOnce := range []bool{false, true} {
		ll := latlabView(t, path, atOnce)
		var frames []int
		for n := range ts {
			frames = append(frames, n)
		}
		for n := range ll {
			if _, ok := ts[n]; !ok {
				frames = append(frames, n)
			}
		}
		sort.Ints(frames)
		how := ""
		if atOnce {
			how = " (connections closed at once)"
		}
		for _, n := range frames {
			a, b := ll[n], ts[n]
			if a != b {
				diffs = append(diffs, fmt.Sprintf("frame %d: latlab %v, tshark %v%s", n, a, b, how))
			}
		}
	}
	return diffs
}

func TestFixturesMatchTshark(t *testing.T) {
	// closing.pcap: segments after the end of a connection, before and
	// after it is closed (close_test.go).
	for _, f := range []string{"testdata/ssh.pcap", "testdata/accecn_handshake.pcap", "testdata/closing.pcap"} {
		if d := compareWithTshark(t, f); len(d) > 0 {
			t.Errorf("%s: %d frames differ from tshark:\n%s", f, len(d), strings.Join(d, "\n"))
		}
	}
}

// Hand-written conversations for the corner cases of Wireshark's
// algorithm, written to a capture and compared with tshark.
func TestGeneratedMatchTshark(t *testing.T) {
	// In parallel with the package's other parallel tests: it mostly
	// waits on tshark, reading files of its own.
	t.Parallel()
	cases := []struct {
		name    string
		segs    []seg
		windows map[int]uint16
	}{
		{"acked_unseen", ackedUnseenConversation(), nil},
		{"unacked_9999", unackedConversation(9_999), nil},
		{"unacked_10000", unackedConversation(10_000), nil},
		{"zero_window", zeroWindowConversation(), zeroWindowWindows},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), c.name+".pcap")
			if err := os.WriteFile(path, writeSegsWindows(t, c.segs, c.windows), 0o644); err != nil {
				t.Fatal(err)
			}
			if d := compareWithTshark(t, path); len(d) > 0 {
				t.Errorf("%d frames differ from tshark:\n%s", len(d), strings.Join(d, "\n"))
			}
		})
	}
}

// corpusCaptureSide: frames of the corpus subset that differ from tshark
// because of how internal/capture decodes them, not because of the TCP
// analysis, keyed "file:frame". They are logged, not failed; once the
// capture reader agrees with tshark on them, they simply agree.
var corpusCaptureSide = map[string]string{}

// corpusFlags must all be seen in the subset, so that the comparison is
// about something.
var corpusFlags = []Flag{FlagRetransmission, FlagFastRetransmission, FlagSpuriousRetransmission, FlagOutOfOrder,
	FlagLostSegment, FlagAckLostSegment, FlagKeepAlive, FlagKeepAliveAck, FlagWindowUpdate, FlagWindowFull,
	FlagDuplicateAck, FlagReusedPorts}

// A representative subset of the public tcpdump and zeek test captures
// (testdata/corpus/PROVENANCE); scripts/verify-pcap-corpus runs the whole
// corpora.
func TestCorpusMatchesTshark(t *testing.T) {
	// In parallel, as TestGeneratedMatchTshark.
	t.Parallel()
	var files []string
	err := filepath.WalkDir("testdata/corpus", func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && (strings.HasSuffix(p, ".pcap") || strings.HasSuffix(p, ".pcapng")) {
			files = append(files, p)
		}
		return err
	})
	if err != nil || len(files) < 10 {
		t.Fatalf("corpus subset: %d files, %v", len(files), err)
	}
	var seen Flag
	dsacks := 0
	for _, f := range files {
		rel := strings.TrimPrefix(filepath.ToSlash(f), "testdata/corpus/")
		ts := tsharkView(t, f)
		for _, v := range ts {
			seen |= v.flags
			if v.dsack != "" {
				dsacks++
			}
		}
		for _, d := range compareViews(t, f, ts) {
			frame := strings.TrimPrefix(strings.SplitN(d, ":", 2)[0], "frame ")
			if why, ok := corpusCaptureSide[rel+":"+frame]; ok {
				t.Logf("%s: capture-side difference (%s): %s", rel, why, d)
				continue
			}
			t.Errorf("%s: %s", rel, d)
		}
	}
	for _, fl := range corpusFlags {
		if seen&fl == 0 {
			t.Errorf("no frame of the subset has %v: the comparison does not cover it", fl)
		}
	}
	if dsacks == 0 {
		t.Error("no D-SACK in the subset")
	}
}
