package cli

import (
	"strings"
	"testing"
)

// A device given as a capture is refused unless special files are
// allowed; /dev/null then reads as an empty file.
func TestPcapSpecialFile(t *testing.T) {
	code, _, errs := runCLI(t, "pcap", "dscp", "/dev/null")
	if code != 2 || !strings.Contains(errs, "/dev/null: a character device, not a regular file (--allow-special-files reads it)") {
		t.Errorf("/dev/null: exit %d %q", code, errs)
	}
	code, _, errs = runCLI(t, "pcap", "dscp", "--allow-special-files", "/dev/null")
	if code != 2 || !strings.Contains(errs, "empty file") {
		t.Errorf("/dev/null allowed: exit %d %q", code, errs)
	}
}
