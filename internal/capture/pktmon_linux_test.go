package capture

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/latlab/latlab/internal/testutil"
)

// tsharkCopies reads a pktmon capture with tshark: the frames it decodes
// as IP (their numbers), the frames it shows as Ethernet with an
// EtherType it does not know (eth:ethertype:data) and that are 802.11
// data frames carrying IP once editcap relabels the file 802.11
// (wlan:llc:ip), and the IP frames
// that are the first of their bytes within 1 ms (frame.md5_hash over the
// whole frame), which is what dropping pktmon's copies must leave.
func tsharkCopies(t *testing.T, path string) (ip []int, unknown int, first []int) {
	t.Helper()
	bin := testutil.NeedTool(t, "tshark")
	rows, stderr, err := testutil.TsharkFields(bin, path, []string{"-o", "frame.generate_md5_hash:TRUE"},
		[]string{"frame.number", "frame.protocols", "frame.md5_hash", "frame.time_epoch", "ip.src"})
	if err != nil {
		t.Fatalf("tshark: %v: %s", err, stderr)
	}
	wlan := filepath.Join(testutil.TempDir(t), "wlan.pcapng")
	if out, err := exec.Command(testutil.NeedTool(t, "editcap"), "-T", "ieee-802-11", path, wlan).CombinedOutput(); err != nil {
		t.Fatalf("editcap: %v: %s", err, out)
	}
	relabelled, stderr, err := testutil.TsharkFields(bin, wlan, nil, []string{"frame.number", "frame.protocols"})
	if err != nil {
		t.Fatalf("tshark: %v: %s", err, stderr)
	}
	seen := map[string]float64{}
	for n := 1; n <= len(rows); n++ {
		r, ok := rows[n]
		if !ok {
			t.Fatalf("tshark printed no frame %d", n)
		}
		if w := relabelled[n]; r[1] == "eth:ethertype:data" && len(w) > 1 && strings.HasPrefix(w[1], "wlan:llc:ip") {
			unknown++
		}
		if r[4] == "" {
			continue
		}
		ip = append(ip, n)
		ts, err := strconv.ParseFloat(r[3], 64)
		if err != nil {
			t.Fatal(err)
		}
		if last, ok := seen[r[2]]; !ok || ts-last > 0.001 {
			first = append(first, n)
		}
		seen[r[2]] = ts
	}
	return ip, unknown, first
}

// latlab drops exactly the copies tshark shows to be copies, and reads
// the 802.11 frames pktmon put under the Ethernet label as tshark does:
// the written fixture and, when at hand, the real file.
func TestPktmonEtl2pcapLikeTshark(t *testing.T) {
	files := []string{etl2pcapFixture}
	dir := os.Getenv("LATLAB_PCAP_CORPUS")
	if dir == "" {
		dir = "../../../shared/fixtures/pcap-corpus"
	}
	if real := filepath.Join(dir, realEtl2pcap); fileExists(real) {
		files = append(files, real)
	} else {
		t.Logf("%s not at hand: set LATLAB_PCAP_CORPUS", realEtl2pcap)
	}
	for _, path := range files {
		ip, unknown, first := tsharkCopies(t, path)
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		for _, mode := range []DedupMode{DedupAuto, DedupOff} {
			st, s := scan(t, b, ScanOptions{Dedup: mode})
			var frames []int
			for _, r := range s.recs {
				frames = append(frames, r.Frame)
			}
			want := first
			if mode == DedupOff {
				want = ip
			}
			if !slices.Equal(frames, want) {
				t.Errorf("%s, %s: analysed frames %v, want %v", path, mode, frames, want)
			}
			if got := st.Skipped[SkipWiFiAsEthernet.String()]; got != unknown || len(st.Skipped) != 1 {
				t.Errorf("%s, %s: skipped %v, tshark shows %d as Ethernet with an unknown EtherType, 802.11 carrying IP", path, mode, st.Skipped, unknown)
			}
		}
	}
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}
