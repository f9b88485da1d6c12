package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/latlab/latlab/internal/dpcisr"
)

// The hard fault section fits 80 columns whatever the trace names: long
// image names are cut, rows past maxFaultRows are counted; a Linux
// watch's counts-only table has no bytes or times.
func TestHardFaultText(t *testing.T) {
	h := &dpcisr.HardFaults{Events: 25, Bytes: 1 << 20, TotalUs: 5e5, LongestUs: 9e4}
	for i := 0; i < 25; i++ {
		pid := uint32(1000 + i)
		h.Processes = append(h.Processes, dpcisr.ProcessFaults{Image: strings.Repeat("x", 200), PID: &pid, Faults: 1, Bytes: 4096, TotalUs: 2e4, LongestUs: 9e4})
	}
	var b bytes.Buffer
	hardFaultText(&b, h)
	out := b.String()
	for i, l := range strings.Split(out, "\n") {
		if n := len([]rune(l)); n > 80 {
			t.Errorf("line %d has %d columns: %q", i+1, n, l)
		}
	}
	if !strings.Contains(out, "(5 more in the JSON document)") || !strings.Contains(out, "the longest 90.0 ms in xxxx") {
		t.Errorf("got\n%s", out)
	}
	pid := uint32(7)
	b.Reset()
	hardFaultText(&b, &dpcisr.HardFaults{Events: 3, CountsOnly: true, Processes: []dpcisr.ProcessFaults{{Image: "bash", PID: &pid, Faults: 3}}})
	want := "\n== hard page faults\n3 major page faults in 1 process during the watch (counts only)\n"
	if !strings.HasPrefix(b.String(), want) || strings.Contains(b.String(), "waited") || !strings.Contains(b.String(), "bash (pid 7)") {
		t.Errorf("counts only:\n%s", b.String())
	}
}
