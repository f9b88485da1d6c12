package ui

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/latlab/latlab/internal/testutil"
)

// As root the panel fills from a real trace: every Linux machine takes
// local timer interrupts and timer softirqs each second, so within a few
// seconds the panel is watching, names handlers and judges them.
func TestDPCPanelLiveLinux(t *testing.T) {
	testutil.NeedRoot(t)
	if _, err := os.Stat("/sys/kernel/tracing"); err != nil {
		if testutil.Required() {
			t.Fatal("this test needs tracefs (LATLAB_REQUIRE_ALL=1)")
		}
		t.Skip("no tracefs")
	}
	s, _ := testServer(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	// the watch sums a second at a time: up to 8 s of events, each read
	// as a page that has just opened gets it
	for end := time.Now().Add(8 * time.Second); time.Now().Before(end); time.Sleep(testStep) {
		evs := readEvents(t, ctx, s, 1)
		if len(evs) == 0 {
			break
		}
		d := evs[0].DPC
		if d.Watching && len(d.Rows) > 0 {
			if d.Sections != [2]string{"softirq", "hardirq"} || d.Verdict.Text == "" || d.Verdict.Module == "" || d.Seconds <= 0 {
				t.Errorf("panel %+v", d)
			}
			for _, r := range d.Rows {
				if r.Count <= 0 || r.TotalUs <= 0 || r.MaxUs <= 0 || r.MaxUs > r.TotalUs {
					t.Errorf("row %+v", r)
				}
			}
			return
		}
		if d.Status != "starting the watch" && !d.Watching {
			t.Fatalf("the watch did not start: %q", d.Status)
		}
	}
	t.Fatal("no handler in the panel after 8 s")
}
