package irq

import (
	"errors"
	"os"
	"testing"

	"github.com/latlab/latlab/internal/testutil"
)

// pdhCStatusNoObject is PDH_CSTATUS_NO_OBJECT: the performance object
// (Processor Information, Processor) does not exist.
const pdhCStatusNoObject = 0xC0000BB9

// The PDH watcher opens its query and reads the processor counters. Wine
// has no processor performance objects, so there, and only there, the
// one failure accepted is PDH_CSTATUS_NO_OBJECT for the counter named in
// the error; Windows must deliver rows.
func TestWindowsWatcher(t *testing.T) {
	w, err := NewWatcher(WatchOptions{})
	if err != nil {
		var pe pdhError
		if testutil.UnderWine() && errors.As(err, &pe) && pe.status == pdhCStatusNoObject {
			t.Logf("Wine has no processor counters: %v", err)
			return
		}
		t.Fatalf("NewWatcher: %v", err)
	}
	defer w.Close()
	iv, err := w.Next()
	if err != nil {
		t.Fatalf("reading counters: %v", err)
	}
	if len(iv.CPUs) == 0 || len(iv.Rows) == 0 || iv.EndNs < iv.StartNs {
		t.Fatalf("interval %+v", iv)
	}
	for _, r := range iv.Rows {
		if len(r.PerCPU) != len(iv.CPUs) {
			t.Fatalf("row %s: %d values for %d CPUs", r.Name, len(r.PerCPU), len(iv.CPUs))
		}
	}
	if _, _, ok := iv.SumPerCPU(IsInterrupt); !ok {
		t.Fatal("no Interrupts/sec row")
	}
	if w.Network() == nil {
		t.Fatal("no network info")
	}
}

// Wine is detected exactly when the test runs under scripts/wine/exec,
// which sets WINEPREFIX: a false positive would hide a Windows failure
// above, a false negative fail the suite under Wine.
func TestUnderWineDetection(t *testing.T) {
	if byEnv := os.Getenv("WINEPREFIX") != ""; testutil.UnderWine() != byEnv {
		t.Fatalf("wine_get_version found: %v; WINEPREFIX set: %v", testutil.UnderWine(), byEnv)
	}
}
