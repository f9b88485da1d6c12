package capture

import (
	"bytes"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"
	"github.com/gopacket/gopacket/pcapgo"
	"github.com/latlab/latlab/internal/testutil"
)

// mixedCapture writes a capture of IPv4 and IPv6 TCP, UDP and ICMP
// between a few hosts and ports, and an ARP frame, for the filter test.
func mixedCapture(t *testing.T) string {
	t.Helper()
	var b bytes.Buffer
	w := pcapgo.NewWriterNanos(&b)
	if err := w.WriteFileHeader(65535, layers.LinkTypeEthernet); err != nil {
		t.Fatal(err)
	}
	mac := net.HardwareAddr{2, 0, 0, 0, 0, 1}
	ts := time.Unix(1_700_000_000, 0)
	write := func(ls ...gopacket.SerializableLayer) {
		buf := gopacket.NewSerializeBuffer()
		if err := gopacket.SerializeLayers(buf, gopacket.SerializeOptions{FixLengths: true, ComputeChecksums: true}, ls...); err != nil {
			t.Fatal(err)
		}
		ts = ts.Add(time.Millisecond)
		if err := w.WritePacket(gopacket.CaptureInfo{Timestamp: ts, CaptureLength: len(buf.Bytes()), Length: len(buf.Bytes())}, buf.Bytes()); err != nil {
			t.Fatal(err)
		}
	}
	v4 := []string{"10.0.0.1", "10.0.0.2", "192.168.7.9"}
	v6 := []string{"fe80::1", "2001:db8::7"}
	ports := []uint16{22, 53, 7007, 7009, 40000}
	for i, s := range append(v4, v6...) {
		for j, d := range append(v4, v6...) {
			src, dst := net.ParseIP(s), net.ParseIP(d)
			if s == d || (src.To4() == nil) != (dst.To4() == nil) {
				continue
			}
			sp, dp := ports[(i+j)%len(ports)], ports[(i*2+j+1)%len(ports)]
			for k, proto := range []string{"tcp", "udp", "icmp"} {
				var ip gopacket.NetworkLayer
				eth := &layers.Ethernet{SrcMAC: mac, DstMAC: mac, EthernetType: layers.EthernetTypeIPv4}
				var ipl gopacket.SerializableLayer
				if src.To4() != nil {
					l := &layers.IPv4{Version: 4, TTL: 64, SrcIP: src, DstIP: dst}
					switch proto {
					case "tcp":
						l.Protocol = layers.IPProtocolTCP
					case "udp":
						l.Protocol = layers.IPProtocolUDP
					default:
						l.Protocol = layers.IPProtocolICMPv4
					}
					ip, ipl = l, l
				} else {
					eth.EthernetType = layers.EthernetTypeIPv6
					l := &layers.IPv6{Version: 6, HopLimit: 64, SrcIP: src, DstIP: dst}
					switch proto {
					case "tcp":
						l.NextHeader = layers.IPProtocolTCP
					case "udp":
						l.NextHeader = layers.IPProtocolUDP
					default:
						l.NextHeader = layers.IPProtocolICMPv6
					}
					ip, ipl = l, l
				}
				payload := gopacket.Payload([]byte("latlab"))
				switch proto {
				case "tcp":
					tcp := &layers.TCP{SrcPort: layers.TCPPort(sp), DstPort: layers.TCPPort(dp), Seq: uint32(1000 * (k + 1)), ACK: true, Window: 512}
					tcp.SetNetworkLayerForChecksum(ip)
					write(eth, ipl, tcp, payload)
				case "udp":
					udp := &layers.UDP{SrcPort: layers.UDPPort(sp), DstPort: layers.UDPPort(dp)}
					udp.SetNetworkLayerForChecksum(ip)
					write(eth, ipl, udp, payload)
				default:
					if src.To4() != nil {
						write(eth, ipl, &layers.ICMPv4{TypeCode: layers.CreateICMPv4TypeCode(8, 0), Id: 1, Seq: 1}, payload)
					} else {
						icmp := &layers.ICMPv6{TypeCode: layers.CreateICMPv6TypeCode(128, 0)}
						icmp.SetNetworkLayerForChecksum(ip)
						write(eth, ipl, icmp, &layers.ICMPv6Echo{Identifier: 1, SeqNumber: 1}, payload)
					}
				}
			}
		}
	}
	write(&layers.Ethernet{SrcMAC: mac, DstMAC: layers.EthernetBroadcast, EthernetType: layers.EthernetTypeARP},
		&layers.ARP{AddrType: layers.LinkTypeEthernet, Protocol: layers.EthernetTypeIPv4, HwAddressSize: 6, ProtAddressSize: 4,
			Operation: 1, SourceHwAddress: mac, SourceProtAddress: net.ParseIP("10.0.0.1").To4(),
			DstHwAddress: make([]byte, 6), DstProtAddress: net.ParseIP("10.0.0.2").To4()})
	path := filepath.Join(testutil.TempDir(t), "mixed.pcap")
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// filterCases are tcpdump filter expressions with Wireshark's display
// filter for the same packets.
var filterCases = []struct{ bpf, display string }{
	{"dst port 7007", "tcp.dstport==7007 || udp.dstport==7007"},
	{"port 22", "tcp.port==22 || udp.port==22"},
	{"not port 22", "!(tcp.port==22 || udp.port==22)"},
	{"host 10.0.0.1", "ip.addr==10.0.0.1"},
	{"src host 10.0.0.1 or dst host 10.0.0.2", "ip.src==10.0.0.1 || ip.dst==10.0.0.2"},
	{"src net 10.0.0.0/8 and (udp or icmp)", "ip.src==10.0.0.0/8 && (udp || icmp)"},
	{"net 192.168.0.0/16", "ip.addr==192.168.0.0/16"},
	{"ip6 and tcp", "ipv6 && tcp"},
	{"ip and not tcp", "ip && !tcp"},
	{"tcp portrange 7000-7010", "tcp.port in {7000..7010}"},
	{"udp dst portrange 50-60", "udp.dstport in {50..60}"},
	{"src host fe80::1 or dst port 53", "ipv6.src==fe80::1 || tcp.dstport==53 || udp.dstport==53"},
	{"icmp or icmp6", "icmp || icmpv6"},
	{"!udp && !(host 10.0.0.2)", "!udp && !(ip.addr==10.0.0.2)"},
	{"host 10.0.0.1 and host 10.0.0.2", "ip.addr==10.0.0.1 && ip.addr==10.0.0.2"},
	{"host 10.0.0.1 or 192.168.7.9", "ip.addr==10.0.0.1 || ip.addr==192.168.7.9"},
	{"src or dst port 40000", "tcp.port==40000 || udp.port==40000"},
	{"ip proto 17", "ip.proto==17"},
	{"tcp and not (dst port 22 or src port 22)", "tcp && !(tcp.dstport==22 || tcp.srcport==22)"},
	{"port 62146", "tcp.port==62146 || udp.port==62146"},
	{"dst 223.132.53.222", "ip.dst==223.132.53.222"},
	{"host 10.0.0.1 port 22 tcp", "ip.addr==10.0.0.1 && tcp.port==22"},
}

// retimed copies a pcap with frame 1 at 0 s and frame n after it at
// n-0.5 s, so that tshark's io,stat in 1 s intervals (which start at the
// first frame) counts each frame in a row of its own.
func retimed(t *testing.T, path string) string {
	t.Helper()
	in, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	r, err := pcapgo.NewReader(in)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	w := pcapgo.NewWriterNanos(&b)
	if err := w.WriteFileHeader(r.Snaplen(), r.LinkType()); err != nil {
		t.Fatal(err)
	}
	for n := 1; ; n++ {
		data, ci, err := r.ReadPacketData()
		if err != nil {
			break
		}
		ci.Timestamp = time.Unix(1_700_000_000, 0)
		if n > 1 {
			ci.Timestamp = ci.Timestamp.Add(time.Duration(n)*time.Second - time.Second/2)
		}
		if err := w.WritePacket(ci, data); err != nil {
			t.Fatal(err)
		}
	}
	out := filepath.Join(testutil.TempDir(t), "retimed-"+filepath.Base(path))
	if err := os.WriteFile(out, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return out
}

// tsharkSelects runs tshark once over a retimed capture with every display
// filter as an io,stat column, and returns the frames each selects.
func tsharkSelects(t *testing.T, bin, path string, filters []string) [][]int {
	t.Helper()
	out, err := exec.Command(bin, "-n", "-q", "-r", path, "-z", "io,stat,1,"+strings.Join(filters, ",")).Output()
	if err != nil {
		t.Fatalf("tshark io,stat: %v", err)
	}
	sel := make([][]int, len(filters))
	frame := 0
	for _, l := range strings.Split(string(out), "\n") {
		cols := strings.Split(l, "|")
		if len(cols) < 2+2*len(filters) || !strings.Contains(cols[1], "<>") {
			continue
		}
		frame++ // one row per frame
		for i := range filters {
			if n, _ := strconv.Atoi(strings.TrimSpace(cols[2+2*i])); n > 0 {
				sel[i] = append(sel[i], frame)
			}
		}
	}
	return sel
}

// Each expression selects the frames Wireshark's equivalent display filter
// selects, on a capture of mixed traffic and on real captures.
func TestFilterAgainstTshark(t *testing.T) {
	bin := testutil.NeedTool(t, "tshark")
	var displays []string
	for _, c := range filterCases {
		// latlab reads IP packets only: an ARP frame is neither counted
		// nor filtered.
		displays = append(displays, "(ip || ipv6) && ("+c.display+")")
	}
	for _, path := range []string{mixedCapture(t), "testdata/ssh.pcap", "testdata/accecn_handshake.pcap", "testdata/pgm_zmtp1.pcap"} {
		want := tsharkSelects(t, bin, retimed(t, path), displays)
		for i, c := range filterCases {
			f, err := ParseFilter(c.bpf)
			if err != nil {
				t.Fatalf("%q: %v", c.bpf, err)
			}
			fh, err := os.Open(path)
			if err != nil {
				t.Fatal(err)
			}
			var got []int
			_, err = Scan(fh, ScanOptions{Dedup: DedupOff}, func(rec *Record, p *Packet) {
				if f.Match(KeyOf(p)) {
					got = append(got, rec.Frame)
				}
			})
			fh.Close()
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, want[i]) {
				t.Errorf("%s: %q selects frames %v, tshark -Y %q %v", filepath.Base(path), c.bpf, got, c.display, want[i])
			}
		}
	}
}
