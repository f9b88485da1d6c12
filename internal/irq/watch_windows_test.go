package irq

import "testing"

// The PDH watcher opens its query and reads the counters Wine or Windows
// provides. Wine implements few counters, so a clear error naming the
// counter is accepted there; Windows must deliver rows.
func TestWindowsWatcher(t *testing.T) {
	w, err := NewWatcher(WatchOptions{})
	if err != nil {
		t.Logf("watcher unavailable (Wine lacks the processor counters): %v", err)
		if err.Error() == "" {
			t.Fatal("empty error")
		}
		return
	}
	defer w.Close()
	iv, err := w.Next()
	if err != nil {
		t.Logf("reading counters: %v", err)
		return
	}
	for _, r := range iv.Rows {
		if len(r.PerCPU) != len(iv.CPUs) {
			t.Fatalf("row %s: %d values for %d CPUs", r.Name, len(r.PerCPU), len(iv.CPUs))
		}
	}
	if w.Network() == nil {
		t.Fatal("no network info")
	}
}
