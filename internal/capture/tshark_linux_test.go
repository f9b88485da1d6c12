package capture

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"
	"github.com/gopacket/gopacket/pcapgo"
	"github.com/latlab/latlab/internal/testutil"
)

// decoded is what both tools say about the innermost IP packet of a
// frame: its addresses, and its TCP or UDP header when the packet is whole
// (not a fragment, or the fragment that completes a datagram).
type decoded struct {
	proto            string // "tcp", "udp", "ip" (another protocol, or a fragment) or "" (not IP)
	src, dst         string
	srcPort, dstPort int
	tcpLen           int
}

func (d decoded) String() string {
	switch d.proto {
	case "":
		return "-"
	case "ip":
		return fmt.Sprintf("ip %s > %s", d.src, d.dst)
	}
	s := fmt.Sprintf("%s %s:%d > %s:%d", d.proto, d.src, d.srcPort, d.dst, d.dstPort)
	if d.proto == "tcp" {
		s += fmt.Sprintf(" len %d", d.tcpLen)
	}
	return s
}

var tsharkDecodeFields = []string{"frame.number", "frame.protocols", "ip.src", "ip.dst", "ipv6.src", "ipv6.dst",
	"tcp.srcport", "tcp.dstport", "tcp.len", "tcp.stream", "udp.srcport", "udp.dstport"}

// nth is the n-th (0-based) of the comma-separated occurrences, or the
// last with n < 0.
func nth(s string, n int) string {
	f := strings.Split(s, ",")
	if n < 0 || n >= len(f) {
		return f[len(f)-1]
	}
	return f[n]
}

// tsharkDecode reads path with tshark: each frame's innermost IP packet
// and transport header, and the tcp.stream of TCP frames. A packet
// quoted in an ICMP error is not the innermost: latlab does not read the
// quote, and tshark's tcp/udp fields then describe the quote.
func tsharkDecode(t *testing.T, path string) (map[int]decoded, map[int]int) {
	t.Helper()
	bin := testutil.NeedTool(t, "tshark")
	rows, stderr, err := testutil.TsharkFields(bin, path, tsharkDecodeOpts, tsharkDecodeFields)
	if err != nil && len(rows) == 0 {
		t.Fatalf("tshark: %v: %s", err, stderr)
	}
	return decodeRows(rows)
}

// tsharkDecodeOpts print every occurrence of a field, comma-separated.
var tsharkDecodeOpts = []string{"-E", "occurrence=a", "-E", "aggregator=,"}

// decodeRows is tsharkDecode's answer from tshark's rows of
// tsharkDecodeFields.
func decodeRows(rows map[int][]string) (map[int]decoded, map[int]int) {
	m, streams := map[int]decoded{}, map[int]int{}
	for n, c := range rows {
		// The innermost IP layer outside an ICMP error, as the index of
		// its occurrence among the ip.* or ipv6.* fields.
		inner, idx, n4, n6, quoted, after := "", 0, 0, 0, false, ""
		for _, p := range strings.Split(c[1], ":") {
			switch p {
			case "icmp", "icmpv6":
				quoted = true
			case "ip", "ipv6":
				if !quoted {
					inner, after = p, ""
					if p == "ip" {
						idx = n4
					} else {
						idx = n6
					}
				}
				if p == "ip" {
					n4++
				} else {
					n6++
				}
			default:
				if !quoted && inner != "" && after == "" && !strings.HasPrefix(p, "ipv6.") {
					after = p
				}
			}
		}
		var d decoded
		switch {
		case inner == "":
			m[n] = d
			continue
		case after == "tcp" && c[8] != "":
			d.proto = "tcp"
			d.srcPort, _ = strconv.Atoi(nth(c[6], 0))
			d.dstPort, _ = strconv.Atoi(nth(c[7], 0))
			d.tcpLen, _ = strconv.Atoi(nth(c[8], 0))
			streams[n], _ = strconv.Atoi(nth(c[9], 0))
		case after == "udp" && c[10] != "":
			d.proto = "udp"
			d.srcPort, _ = strconv.Atoi(nth(c[10], -1))
			d.dstPort, _ = strconv.Atoi(nth(c[11], -1))
		default:
			d.proto = "ip"
		}
		if inner == "ip" {
			d.src, d.dst = nth(c[2], idx), nth(c[3], idx)
		} else {
			d.src, d.dst = nth(c[4], idx), nth(c[5], idx)
		}
		if d.src == "" { // a header too short to hold the addresses
			d = decoded{}
		}
		m[n] = d
	}
	return m, streams
}

// latlabDecode reads path with Scan; conv names each TCP frame's
// conversation (both directions alike).
func latlabDecode(t *testing.T, path string) (map[int]decoded, map[int]string) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	m, conv := map[int]decoded{}, map[int]string{}
	_, err = Scan(f, ScanOptions{Dedup: DedupOff}, func(rec *Record, p *Packet) {
		d := decoded{proto: "ip", src: p.Src.String(), dst: p.Dst.String()}
		whole := !p.Fragment || p.Reassembled
		switch {
		case p.TCPHeader != nil && whole:
			d.proto, d.tcpLen = "tcp", p.TCPPayloadLen
		case p.Proto == 17 && p.HasPorts && whole:
			d.proto = "udp"
		}
		if d.proto != "ip" {
			d.srcPort, d.dstPort = int(p.SrcPort), int(p.DstPort)
		}
		if d.proto == "tcp" {
			a, b := fmt.Sprintf("%s:%d", d.src, d.srcPort), fmt.Sprintf("%s:%d", d.dst, d.dstPort)
			if b < a {
				a, b = b, a
			}
			conv[rec.Frame] = a + " " + b
		}
		m[rec.Frame] = d
	})
	if err != nil {
		t.Fatal(err)
	}
	return m, conv
}

// compareDecode returns the frames where latlab's decoding differs from
// tshark's, and the TCP frames that tshark and latlab group into
// conversations differently.
func compareDecode(t *testing.T, path string) []string {
	t.Helper()
	ts, tsStreams := tsharkDecode(t, path)
	return compareDecodeWith(t, path, ts, tsStreams)
}

// compareDecodeWith is compareDecode given tshark's decoding.
func compareDecodeWith(t *testing.T, path string, ts map[int]decoded, tsStreams map[int]int) []string {
	t.Helper()
	ll, llConv := latlabDecode(t, path)
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
	var diffs []string
	for _, n := range frames {
		if ts[n] != ll[n] {
			diffs = append(diffs, fmt.Sprintf("frame %d: latlab %v, tshark %v", n, ll[n], ts[n]))
		}
	}
	// The same tcp.stream must be the same conversation for latlab, and
	// one conversation one stream.
	byStream, byConv := map[int]string{}, map[string]int{}
	for _, n := range frames {
		s, ok := tsStreams[n]
		c, ok2 := llConv[n]
		if !ok || !ok2 {
			continue
		}
		if prev, seen := byStream[s]; seen && prev != c {
			diffs = append(diffs, fmt.Sprintf("frame %d: tcp.stream %d is %s here and %s before", n, s, c, prev))
		}
		if prev, seen := byConv[c]; seen && prev != s {
			diffs = append(diffs, fmt.Sprintf("frame %d: conversation %s is tcp.stream %d here and %d before", n, c, s, prev))
		}
		byStream[s], byConv[c] = c, s
	}
	return diffs
}

// named is a capture and where it comes from.
type named struct {
	name string
	data []byte
}

// concat writes captures as one pcapng file, an interface per link type,
// so that tshark starts once for all of them; origin names the capture a
// frame of it came from.
func concat(t *testing.T, files []named) (path string, origin func(frame int) string) {
	t.Helper()
	var buf bytes.Buffer
	var w *pcapgo.NgWriter
	ifaces := map[layers.LinkType]int{}
	var starts []int // first frame of each file
	frame := 0
	for _, f := range files {
		starts = append(starts, frame+1)
		r, err := NewReader(bytes.NewReader(f.data))
		if err != nil {
			t.Fatalf("%s: %v", f.name, err)
		}
		var rec Record
		for {
			if err := r.Next(&rec); err != nil {
				if err != io.EOF {
					t.Fatalf("%s: %v", f.name, err)
				}
				break
			}
			id, ok := ifaces[rec.LinkType]
			if !ok {
				intf := pcapgo.NgInterface{LinkType: rec.LinkType, SnapLength: 0}
				if w == nil {
					if w, err = pcapgo.NewNgWriterInterface(&buf, intf, pcapgo.DefaultNgWriterOptions); err != nil {
						t.Fatal(err)
					}
				} else if id, err = w.AddInterface(intf); err != nil {
					t.Fatal(err)
				}
				ifaces[rec.LinkType] = id
			}
			ci := gopacket.CaptureInfo{Timestamp: time.Unix(0, rec.TimeNs), CaptureLength: len(rec.Data), Length: rec.OrigLen, InterfaceIndex: id}
			if err := w.WritePacket(ci, rec.Data); err != nil {
				t.Fatal(err)
			}
			frame++
		}
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	path = filepath.Join(t.TempDir(), "all.pcapng")
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path, func(n int) string {
		i := sort.SearchInts(starts, n+1) - 1
		return fmt.Sprintf("%s frame %d", files[i].name, n-starts[i]+1)
	}
}

// checkTshark compares captures with tshark, all in one run.
func checkTshark(t *testing.T, files ...named) {
	t.Helper()
	path, origin := concat(t, files)
	for _, d := range compareDecode(t, path) {
		where, what, _ := strings.Cut(d, ":")
		n, _ := strconv.Atoi(strings.TrimPrefix(where, "frame "))
		t.Errorf("%s:%s", origin(n), what)
	}
}

// Item 3 of the capture fixes: the payload is sized from the frame.
func TestPayloadLengthMatchesTshark(t *testing.T) {
	checkTshark(t, named{"lengths", pcapOf(layers.LinkTypeEthernet, lengthFrames(t)...)})
}

// Every encapsulation and link type of encapCases, as tshark decodes it.
func TestEncapsulationsMatchTshark(t *testing.T) {
	var files []named
	for lt, file := range encapFiles(t) {
		files = append(files, named{fmt.Sprintf("linktype-%d", lt), file})
	}
	var fallback []frame
	for _, f := range fallbackCases(t) {
		fallback = append(fallback, whole(f))
	}
	files = append(files, named{"fallback", pcapOf(layers.LinkTypeEthernet, fallback...)})
	checkTshark(t, append(files, named{"tunnel-flows", tunnelFlowFile(t)})...)
}

// Public captures of encapsulations and link types
// (testdata/encap/PROVENANCE), as tshark decodes them.
func TestEncapCorpusMatchesTshark(t *testing.T) {
	var files []named
	err := filepath.WalkDir("testdata/encap", func(p string, de os.DirEntry, err error) error {
		if err != nil || de.IsDir() || de.Name() == "PROVENANCE" {
			return err
		}
		b, err := os.ReadFile(p)
		files = append(files, named{p, b})
		return err
	})
	if err != nil || len(files) < 30 {
		t.Fatalf("%d captures, %v", len(files), err)
	}
	checkTshark(t, files...)
}

// Fragmented datagrams, reassembled where tshark reassembles them.
func TestReassemblyMatchesTshark(t *testing.T) {
	frames, _ := fragFrames(t)
	checkTshark(t, named{"fragments", pcapOf(layers.LinkTypeEthernet, frames...)})
}
