package capture

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"flag"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gopacket/gopacket/pcapgo"
)

var updateFixtures = flag.Bool("update", false, "rewrite the written pktmon fixtures in testdata")

// etl2pcapFile writes pcapng as `pktmon etl2pcap` (pktmon pcapng) does, in
// the layout of a real file it wrote (see PROVENANCE,
// dolphin2410-archive/gdn backup.pcapng): a section header naming the OS,
// the hardware and the application "Packet Monitor" (strings without a
// NUL, no end-of-options option), one Ethernet interface without options and with snap length 0,
// an enhanced packet block without options per appearance (µs time
// stamps, interface 0), and an interface statistics block (isb_ifdrop 0)
// at the end. Nothing says at which component a frame was logged.
func etl2pcapFile(frames []pkFrame) []byte {
	le := binary.LittleEndian
	var b []byte
	opt, block := ngWriters(&b)
	block(0x0a0d0d0a, func() {
		b = le.AppendUint32(b, 0x1a2b3c4d)
		b = le.AppendUint16(b, 1)
		b = le.AppendUint16(b, 0)
		b = le.AppendUint64(b, ^uint64(0))
		opt(3, []byte("Windows 10 Home"))
		opt(2, []byte("LATLAB TEST MACHINE"))
		opt(4, []byte("Packet Monitor"))
	})
	block(1, func() {
		b = le.AppendUint16(b, 1) // Ethernet, for every component
		b = le.AppendUint16(b, 0)
		b = le.AppendUint32(b, 0)
	})
	for _, f := range frames {
		block(6, func() {
			us := uint64(f.ts.UnixNano() / 1000)
			b = le.AppendUint32(b, 0)
			b = le.AppendUint32(b, uint32(us>>32))
			b = le.AppendUint32(b, uint32(us))
			b = le.AppendUint32(b, uint32(len(f.data)))
			b = le.AppendUint32(b, uint32(len(f.data)))
			b = append(b, f.data...)
			b = append(b, make([]byte, (4-len(f.data)%4)%4)...)
		})
	}
	block(5, func() {
		b = le.AppendUint32(b, 0)
		b = le.AppendUint64(b, 0)
		opt(5, le.AppendUint64(nil, 0)) // isb_ifdrop
	})
	return b
}

// wifiCopy is an Ethernet frame as pktmon logs it at a Wi-Fi adapter: a
// Native 802.11 data frame (LLC/SNAP before the IP packet), which
// etl2pcap writes under the file's one Ethernet interface all the same
// (MicrosoftDocs/windowsserverdocs issue 6696). Sent frames go to the
// access point (Data, To DS), received ones come from it (QoS Data, From
// DS), as in the real file.
func wifiCopy(ether []byte, sent bool, seq uint16) []byte {
	dst, src := ether[0:6], ether[6:12]
	var h []byte
	if sent {
		h = []byte{0x08, 0x01, 0, 0}
		h = append(h, dst...) // BSSID: the gateway's MAC
		h = append(h, src...)
		h = append(h, dst...)
	} else {
		h = []byte{0x88, 0x02, 0, 0}
		h = append(h, dst...)
		h = append(h, src...) // BSSID
		h = append(h, src...)
	}
	h = binary.LittleEndian.AppendUint16(h, seq<<4)
	if !sent {
		h = append(h, 0, 0) // QoS control
	}
	h = append(h, 0xaa, 0xaa, 0x03, 0, 0, 0)
	return append(h, ether[12:]...)
}

// pktmonWifiLog is the frames of the Ethernet capture src (pcap) as
// pktmon logs them on a Windows machine whose network is Wi-Fi, converted
// by etl2pcap: a sent packet appears at three components as Ethernet (the
// TCP/IP stack and the filters above the adapter), then twice as 802.11
// at the adapter; a received one first twice as 802.11, then three times
// as Ethernet, each a few µs after the last (the order of the real file).
// Sent packets are those from the first frame's source MAC.
func pktmonWifiLog(t testing.TB, src []byte) []byte {
	t.Helper()
	r, err := pcapgo.NewReader(bytes.NewReader(src))
	if err != nil {
		t.Fatal(err)
	}
	var frames []pkFrame
	var us []byte
	for seq := uint16(0); ; seq++ {
		data, ci, err := r.ReadPacketData()
		if err == io.EOF {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		if us == nil {
			us = append([]byte(nil), data[6:12]...)
		}
		sent := bytes.Equal(data[6:12], us)
		eth := append([]byte(nil), data...)
		wifi := wifiCopy(eth, sent, seq)
		// the first Ethernet copy keeps the frame's time in ssh.pcap,
		// so that what latlab analyses is timed as that file is
		order, first := [][]byte{eth, eth, eth, wifi, wifi}, 0
		if !sent {
			order, first = [][]byte{wifi, wifi, eth, eth, eth}, 2
		}
		for i, d := range order {
			frames = append(frames, pkFrame{ts: ci.Timestamp.Add(time.Duration(i-first) * 2 * time.Microsecond), data: d})
		}
	}
	return etl2pcapFile(frames)
}

const etl2pcapFixture = "testdata/pktmon-etl2pcap-ssh.pcapng"

// The committed fixture is what pktmonWifiLog writes for ssh.pcap (go
// test ./internal/capture -run Etl2pcapFixture -update rewrites it).
func TestEtl2pcapFixture(t *testing.T) {
	src, err := os.ReadFile("testdata/ssh.pcap")
	if err != nil {
		t.Fatal(err)
	}
	want := pktmonWifiLog(t, src)
	if *updateFixtures {
		if err := os.WriteFile(etl2pcapFixture, want, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile(etl2pcapFixture)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s is not what pktmonWifiLog writes now: rerun with -update", etl2pcapFixture)
	}
}

// A pcapng file `pktmon etl2pcap` wrote carries one mark only: its section
// header names "Packet Monitor" as the application. --dedup auto must see
// it on the first frame and drop the Ethernet copies, so that the file
// reads as ssh.pcap does (54 packets); the 802.11 copies at the Wi-Fi
// adapter stay unread, as tshark reads them (Ethernet with a nonsense
// EtherType, not IP), and the note says what they are.
func TestDedupAutoPktmonEtl2pcap(t *testing.T) {
	file, err := os.ReadFile(etl2pcapFixture)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		mode              DedupMode
		dedup             bool
		analysed, dropped int
	}{
		{DedupAuto, true, 54, 108},
		{DedupOn, true, 54, 108},
		{DedupOff, false, 162, 0},
	} {
		st, s := scan(t, file, ScanOptions{Dedup: c.mode})
		if st.Frames != 270 || st.Dedup != c.dedup || len(s.pkts) != c.analysed || st.Dropped != c.dropped {
			t.Errorf("%s: %d frames, dedup %v, %d analysed, %d dropped; want 270, %v, %d, %d",
				c.mode, st.Frames, st.Dedup, len(s.pkts), st.Dropped, c.dedup, c.analysed, c.dropped)
		}
		if c.mode == DedupAuto && st.DedupReason != `a pktmon capture: its pcapng header names the writer "Packet Monitor", pktmon's converter` {
			t.Errorf("auto: reason %q", st.DedupReason)
		}
		notes := strings.Join(st.Notes(), "\n")
		if st.Skipped[SkipWiFiAsEthernet.String()] != 108 || len(st.Skipped) != 1 ||
			!strings.Contains(notes, "108 frames skipped: 802.11 under an Ethernet label (data frames carrying IP, as pktmon etl2pcap writes") {
			t.Errorf("%s: the 802.11 copies are not counted as such (%v):\n%s", c.mode, st.Skipped, notes)
		}
	}
	// only pktmon's own name marks the file: another writer's is read
	// as it is, copies and all
	other := bytes.Replace(file, []byte("Packet Monitor"), []byte("Packet Monitos"), 1)
	if st, s := scan(t, other, ScanOptions{Dedup: DedupAuto}); st.Dedup || len(s.pkts) != 162 {
		t.Errorf("writer %q: dedup %v, %d analysed; want false, 162", "Packet Monitos", st.Dedup, len(s.pkts))
	}
}

// realEtl2pcap is a file `pktmon etl2pcap` wrote on a Windows laptop
// (HTTP and TLS to one server over Wi-Fi), from dolphin2410-archive/gdn:
// it states no licence, so it is not in this
// repository; the test reads it from $LATLAB_PCAP_CORPUS (default
// ../shared/fixtures/pcap-corpus beside the repository) when it is there.
const (
	realEtl2pcap       = "dolphin2410-archive_gdn__backup-af647b1b.pcapng"
	realEtl2pcapSHA256 = "af647b1b912801143c9aedd5603a7a268e7e9be7cbf7f22117a59b8c1a0511c2"
)

// On the real file, what tshark shows: 1196 frames, 638 of them IPv4/TCP
// in Ethernet, 558 802.11 data frames under the Ethernet label (tshark:
// eth/data; read as 802.11 with editcap -T ieee-802-11 they carry the
// same 93 IP packets as the Ethernet frames). Identical Ethernet frames
// within 1 ms (tshark's frame.md5_hash) leave the 93 frames listed below;
// editcap -D 1000 drops the same 545, and tshark finds no TCP analysis
// flag in what remains.
func TestDedupRealPktmonEtl2pcap(t *testing.T) {
	dir := os.Getenv("LATLAB_PCAP_CORPUS")
	if dir == "" {
		dir = "../../../shared/fixtures/pcap-corpus"
	}
	file, err := os.ReadFile(filepath.Join(dir, realEtl2pcap))
	if err != nil {
		t.Skipf("%s not at hand (%v): set LATLAB_PCAP_CORPUS", realEtl2pcap, err)
	}
	if sum := sha256.Sum256(file); hex.EncodeToString(sum[:]) != realEtl2pcapSHA256 {
		t.Fatalf("%s: SHA-256 %x, want %s", realEtl2pcap, sum, realEtl2pcapSHA256)
	}
	kept := []int{1, 13, 37, 38, 53, 65, 77, 95, 103, 115, 133, 141, 153, 171, 191, 192, 207, 219, 237, 245, 263, 271,
		295, 296, 311, 323, 341, 349, 367, 375, 387, 405, 413, 431, 439, 451, 469, 477, 489, 507, 515, 527, 545, 559,
		567, 579, 591, 609, 623, 631, 643, 655, 673, 687, 695, 707, 725, 733, 745, 757, 781, 782, 797, 809, 821, 833,
		851, 865, 873, 885, 897, 915, 929, 937, 955, 963, 987, 988, 1003, 1015, 1027, 1057, 1058, 1059, 1081, 1099,
		1119, 1120, 1135, 1147, 1159, 1177, 1185}
	for _, mode := range []DedupMode{DedupAuto, DedupOn, DedupOff} {
		st, s := scan(t, file, ScanOptions{Dedup: mode})
		var frames []int
		for _, r := range s.recs {
			frames = append(frames, r.Frame)
		}
		if st.Frames != 1196 || st.IPPackets != len(s.recs) {
			t.Errorf("%s: %d frames, %d IP packets, %d analysed; want 1196 frames, each IP packet analysed", mode, st.Frames, st.IPPackets, len(s.recs))
		}
		if st.Skipped[SkipWiFiAsEthernet.String()] != 558 || len(st.Skipped) != 1 {
			t.Errorf("%s: skipped %v, want the 558 802.11 frames only", mode, st.Skipped)
		}
		if mode == DedupOff {
			if st.Dedup || len(frames) != 638 {
				t.Errorf("off: dedup %v, %d analysed; want false, 638", st.Dedup, len(frames))
			}
			continue
		}
		if !st.Dedup || st.Dropped != 545 || !slices.Equal(frames, kept) {
			t.Errorf("%s: dedup %v, %d dropped, analysed frames %v; want true, 545, %v", mode, st.Dedup, st.Dropped, frames, kept)
		}
		if mode == DedupAuto && !strings.Contains(st.DedupReason, `names the writer "Packet Monitor"`) {
			t.Errorf("auto: reason %q", st.DedupReason)
		}
	}
}

// Only a Native 802.11 data frame to or from the access point whose
// LLC/SNAP header announces IP is taken for pktmon's Wi-Fi copy; any
// other frame keeps the reason it has as Ethernet. The addresses make
// bytes 12-13 an EtherType (0x6e11) or, below, an 802.3 length (0x0001).
func TestWifiAsEthernet(t *testing.T) {
	ether := eth(tcp4(t, "10.5.0.1", "10.5.0.2", 1, 2, 0, 0))
	copy(ether, []byte{0x6e, 0x11, 0x6e, 0x11, 0x6e, 0x11, 0x6e, 0x11, 0x6e, 0x11, 0x6e, 0x11})
	sent, received := wifiCopy(ether, true, 1), wifiCopy(ether, false, 2)
	short := append([]byte(nil), sent...)
	copy(short[10:], []byte{0, 0, 0, 1})
	ht := append([]byte(nil), received...)
	ht[1] |= 0x80 // Order: an HT control field after QoS control
	ht = append(ht[:26:26], append([]byte{0, 0, 0, 0}, received[26:]...)...)
	with := func(b []byte, at int, v ...byte) []byte {
		c := append([]byte(nil), b...)
		copy(c[at:], v)
		return c
	}
	arp := append([]byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 2, 0, 0, 0, 0, 1, 0x08, 0x06}, make([]byte, 28)...)
	for _, c := range []struct {
		name string
		b    []byte
		want Skip
	}{
		{"Data, To DS", sent, SkipWiFiAsEthernet},
		{"Data, To DS, an 802.3 length as Ethernet", short, SkipWiFiAsEthernet},
		{"QoS Data, From DS", received, SkipWiFiAsEthernet},
		{"QoS Data with HT control", ht, SkipWiFiAsEthernet},
		{"IPv6 in SNAP", with(sent, 30, 0x86, 0xdd), SkipWiFiAsEthernet},
		{"no DS bits (ad hoc)", with(sent, 1, 0x00), SkipNonIP},
		{"both DS bits (WDS: a fourth address)", with(sent, 1, 0x03), SkipNonIP},
		{"management frame", with(sent, 0, 0x80), SkipNonIP},
		{"null data", with(sent, 0, 0x48), SkipNonIP},
		{"ARP in SNAP", with(sent, 30, 0x08, 0x06), SkipNonIP},
		{"no SNAP header", with(sent, 24, 0xab), SkipNonIP},
		{"cut inside the SNAP header", sent[:30], SkipNonIP},
		{"an ARP frame", arp, SkipNonIP},
	} {
		var d Decoder
		var p Packet
		rec := &Record{LinkType: 1, Data: c.b, CapLen: len(c.b), OrigLen: len(c.b)}
		if got := d.Decode(rec, &p); got != c.want {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
}
