package capture

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/gopacket/gopacket/layers"
	"github.com/latlab/latlab/internal/testutil"
)

// decoded is what both tools say about the innermost transport header of
// a frame: the one tshark's tcp.* and udp.* fields describe, and the one
// latlab's Packet does.
type decoded struct {
	proto            string // "tcp", "udp" or "" (neither analysed)
	src, dst         string
	srcPort, dstPort int
	tcpLen           int
}

func (d decoded) String() string {
	if d.proto == "" {
		return "-"
	}
	s := fmt.Sprintf("%s %s:%d > %s:%d", d.proto, d.src, d.srcPort, d.dst, d.dstPort)
	if d.proto == "tcp" {
		s += fmt.Sprintf(" len %d", d.tcpLen)
	}
	return s
}

var tsharkDecodeFields = []string{"frame.number", "frame.protocols", "ip.src", "ip.dst", "ipv6.src", "ipv6.dst",
	"tcp.srcport", "tcp.dstport", "tcp.len", "tcp.stream", "udp.srcport", "udp.dstport"}

// last is the last of the comma-separated occurrences.
func last(s string) string {
	if i := strings.LastIndexByte(s, ','); i >= 0 {
		return s[i+1:]
	}
	return s
}

// tsharkDecode reads path with tshark: each frame's innermost transport
// header, and the tcp.stream of TCP frames. Frames that quote a packet
// in an ICMP error are left out (latlab does not read the quote).
func tsharkDecode(t *testing.T, path string) (map[int]decoded, map[int]int) {
	t.Helper()
	bin := testutil.NeedTool(t, "tshark")
	args := []string{"-n", "-r", path, "-T", "fields", "-E", "separator=\t", "-E", "occurrence=a", "-E", "aggregator=,"}
	for _, f := range tsharkDecodeFields {
		args = append(args, "-e", f)
	}
	cmd := exec.Command(bin, args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("tshark: %v: %s", err, stderr.String())
	}
	m, streams := map[int]decoded{}, map[int]int{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		c := strings.Split(sc.Text(), "\t")
		if len(c) < len(tsharkDecodeFields) {
			continue
		}
		n, err := strconv.Atoi(c[0])
		if err != nil {
			continue
		}
		protos := strings.Split(c[1], ":")
		var d decoded
		inner := ""
		for _, p := range protos {
			switch p {
			case "icmp", "icmpv6":
				inner = "icmp"
			case "ip", "ipv6":
				if inner != "icmp" {
					inner = p
				}
			}
		}
		switch {
		case inner == "icmp":
		case c[6] != "":
			d.proto = "tcp"
			d.srcPort, _ = strconv.Atoi(last(c[6]))
			d.dstPort, _ = strconv.Atoi(last(c[7]))
			d.tcpLen, _ = strconv.Atoi(last(c[8]))
			s, _ := strconv.Atoi(last(c[9]))
			streams[n] = s
		case c[10] != "":
			d.proto = "udp"
			d.srcPort, _ = strconv.Atoi(last(c[10]))
			d.dstPort, _ = strconv.Atoi(last(c[11]))
		}
		if d.proto != "" {
			if inner == "ip" {
				d.src, d.dst = last(c[2]), last(c[3])
			} else {
				d.src, d.dst = last(c[4]), last(c[5])
			}
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
		var d decoded
		whole := !p.Fragment || p.Reassembled
		switch {
		case p.TCPHeader != nil && whole:
			d.proto, d.tcpLen = "tcp", p.TCPPayloadLen
		case p.Proto == 17 && p.HasPorts && whole:
			d.proto = "udp"
		}
		if d.proto != "" {
			d.src, d.dst, d.srcPort, d.dstPort = p.Src.String(), p.Dst.String(), int(p.SrcPort), int(p.DstPort)
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
	ll, llConv := latlabDecode(t, path)
	var frames []int
	for n := range ts {
		frames = append(frames, n)
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

// checkTshark writes a generated capture and compares it with tshark.
func checkTshark(t *testing.T, name string, file []byte) {
	t.Helper()
	path := filepath.Join(t.TempDir(), name+".pcap")
	if err := os.WriteFile(path, file, 0o644); err != nil {
		t.Fatal(err)
	}
	if d := compareDecode(t, path); len(d) > 0 {
		t.Errorf("%s: %d frames differ from tshark:\n%s", name, len(d), strings.Join(d, "\n"))
	}
}

func TestPayloadLengthMatchesTshark(t *testing.T) {
	checkTshark(t, "lengths", pcapOf(layers.LinkTypeEthernet, lengthFrames(t)...))
}
