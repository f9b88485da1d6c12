package cli

import (
	"bytes"
	"encoding/binary"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/latlab/latlab/internal/testutil"
)

// cutCopy writes the first n bytes of a fixture to a temporary file: the
// copy of a trace or capture taken while it was still being written.
func cutCopy(t *testing.T, fixture string, n int) string {
	t.Helper()
	b, err := os.ReadFile(fixture)
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(testutil.TempDir(t), "cut-"+filepath.Base(fixture))
	if err := os.WriteFile(p, b[:n], 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// An .etl trace cut at a buffer boundary holds fewer buffers than its
// header says the logger wrote: dpcisr says so instead of telling the
// user to record DPC events they did record.
func TestDpcisrOfACutTraceSaysItIsCut(t *testing.T) {
	f := cutCopy(t, etlData+"written-dpcisr-64.etl", 2*4096)
	code, _, errs := runCLI(t, "dpcisr", f)
	testutil.CheckBadExit(t, "dpcisr of a cut trace", code, errs, "holds 2 of the 4 buffers its header says the logger wrote")
}

// pcap of an .etl trace that holds no packets, or that fails before its
// first packet, is one line and exit 2: before, a kernel trace was
// "0 frames, empty" with exit 0, and a cut pktmon trace printed an
// empty report above the error.
func TestPcapOfAnETLWithoutPackets(t *testing.T) {
	for _, c := range []struct{ name, file, want string }{
		{"kernel trace", etlData + "ShutdownPerfDiagLogger.etl", "without NDIS-PacketCapture or PktMon events"},
		{"pktmon trace cut in its first buffer", cutCopy(t, etlData+"written-pktmon.etl", 100), "the first buffer says 8192 bytes, the file ends after 100"},
		{"ndis trace cut after its first buffer", cutCopy(t, etlData+"written-ndis.etl", 8192), "holds 1 of the 2 buffers"},
	} {
		for _, sub := range []string{"dscp", "tcp"} {
			code, out, errs := runCLI(t, "pcap", sub, c.file)
			testutil.CheckBadExit(t, "pcap "+sub+" of a "+c.name, code, errs, c.want)
			if out != "" {
				t.Errorf("pcap %s of a %s printed %q", sub, c.name, out)
			}
		}
	}
}

// A capture that goes bad before its first frame is one line and exit 2,
// for both subcommands: before, a pcap cut inside its first record was a
// report of "0 frames, empty" with exit 0, and a first record too long
// for its snap length an empty report above the error. A capture of its
// file header alone (tcpdump that saw nothing) is still an empty answer.
func TestPcapWithNoFrameBeforeTheDamage(t *testing.T) {
	const ssh = "../capture/testdata/ssh.pcap"
	b, err := os.ReadFile(ssh)
	if err != nil {
		t.Fatal(err)
	}
	long := filepath.Join(testutil.TempDir(t), "long.pcap")
	c := bytes.Clone(b)
	binary.LittleEndian.PutUint32(c[32:], 1<<20) // the first record's captured length, above the 65535 snap length
	if err := os.WriteFile(long, c, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ name, file, want string }{
		{"pcap cut inside its first record", cutCopy(t, ssh, 100), "the record at byte 24 is incomplete (record header or data ends early); no frame before it"},
		{"pcapng cut inside its interface block", cutCopy(t, "../tcpflow/testdata/corpus/zeek/tcp/retransmit-timeout.pcapng", 140), "no frame before it"},
		{"first record longer than the snap length", long, "at byte 24: corrupt record: capture length exceeds snap length: 1048576 > 65535; no frame before it"},
	} {
		for _, sub := range []string{"dscp", "tcp"} {
			code, out, errs := runCLI(t, "pcap", sub, c.file)
			testutil.CheckBadExit(t, "pcap "+sub+" of a "+c.name, code, errs, c.want)
			if out != "" {
				t.Errorf("pcap %s of a %s printed %q", sub, c.name, out)
			}
		}
	}
	header := cutCopy(t, ssh, 24)
	for _, sub := range []string{"dscp", "tcp"} {
		code, out, errs := runCLI(t, "pcap", sub, header)
		if code != 0 || !strings.Contains(out, "0 frames") {
			t.Errorf("pcap %s of a file header alone: exit %d, %q %q", sub, code, out, errs)
		}
	}
}

// A trace whose header is damaged is not recognised as one and is read
// as text: the error names every form dpcisr reads, not only xperf's
// text report (which made an .etl seem not accepted).
func TestDpcisrOfADamagedHeaderNamesEveryForm(t *testing.T) {
	b, err := os.ReadFile(etlData + "written-dpcisr-64.etl")
	if err != nil {
		t.Fatal(err)
	}
	f := filepath.Join(testutil.TempDir(t), "zeroed.etl")
	if err := os.WriteFile(f, append(make([]byte, 16), b[16:]...), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, errs := runCLI(t, "dpcisr", f)
	testutil.CheckBadExit(t, "dpcisr of a trace with a zeroed header", code, errs, "expected the text report of 'xperf -a dpcisr', a LatencyMon report, a latlab dpcisr JSON document or an .etl trace")
}
