package cli

import (
	"encoding/json"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/latlab/latlab/internal/tcpflow"
	"github.com/latlab/latlab/internal/testutil"
)

// A device given as a capture is refused unless special files are
// allowed; /dev/null then reads as an empty file.
func TestPcapSpecialFile(t *testing.T) {
	code, _, errs := runCLI(t, "pcap", "dscp", "/dev/null")
	testutil.CheckBadExit(t, "/dev/null", code, errs, "/dev/null: a character device, not a regular file (--allow-special-files reads it)")
	code, _, errs = runCLI(t, "pcap", "dscp", "--allow-special-files", "/dev/null")
	testutil.CheckBadExit(t, "/dev/null allowed", code, errs, "empty file")
}

// A capture that missed packets: frames cut out of a real capture with
// editcap, as a capture that dropped them would lack them. The summary
// says how many segments the capture did not see, with the counts
// Wireshark's tcp.analysis.lost_segment and ack_lost_segment give on the
// same file, and that the loss figures are lower bounds.
func TestPcapTCPSaysWhatTheCaptureMissed(t *testing.T) {
	editcap := testutil.NeedTool(t, "editcap")
	tshark := testutil.NeedTool(t, "tshark")
	cut := filepath.Join(testutil.TempDir(t), "cut.pcap")
	// Frames 8, 14 and 20 carry data (1392, 764 and 44 bytes).
	if out, err := exec.Command(editcap, "../capture/testdata/ssh.pcap", cut, "8", "14", "20").CombinedOutput(); err != nil {
		t.Fatalf("editcap: %v: %s", err, out)
	}
	count := func(field string) uint64 {
		out, err := exec.Command(tshark, "-n", "-r", cut, "-Y", field, "-T", "fields", "-e", "frame.number").Output()
		if err != nil {
			t.Fatalf("tshark -Y %s: %v", field, err)
		}
		return uint64(len(strings.Fields(string(out))))
	}
	lost, unseen := count("tcp.analysis.lost_segment"), count("tcp.analysis.ack_lost_segment")
	if lost == 0 {
		t.Fatal("tshark sees no gap in the cut capture: the test proves nothing")
	}
	code, out, errs := runCLI(t, "pcap", "tcp", cut, "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var doc struct {
		Data struct {
			Totals tcpflow.Totals `json:"totals"`
		} `json:"data"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	if got := doc.Data.Totals; got.LostSegments != lost || got.AckedUnseen != unseen {
		t.Errorf("lost segments %d, ACKed unseen %d; tshark %d, %d", got.LostSegments, got.AckedUnseen, lost, unseen)
	}
	code, out, errs = runCLIWidth(t, 80, "pcap", "tcp", cut)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	flat := strings.Join(strings.Fields(out), " ")
	want := fmt.Sprintf("the capture missed segments: at least %d not seen", lost)
	if !strings.Contains(flat, want) || !strings.Contains(flat, "lower bounds") {
		t.Errorf("the summary does not say what the capture missed (%q):\n%s", want, out)
	}
	// The whole capture says nothing of the kind.
	_, out, _ = runCLI(t, "pcap", "tcp", "../capture/testdata/ssh.pcap")
	if strings.Contains(out, "missed") {
		t.Errorf("a whole capture is said to have missed segments:\n%s", out)
	}
}
