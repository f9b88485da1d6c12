// Package tracefstest gives tests the event formats recorded from a real
// kernel's tracefs (internal/tracefs/testdata), to build known timelines
// from.
package tracefstest

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/latlab/latlab/internal/tracefs"
)

// Format is the recorded format file testdata/FILE.format of tracefs,
// parsed, with its system set to system ("sched", "irq", ...).
func Format(t testing.TB, system, file string) *tracefs.Format {
	t.Helper()
	_, here, _, _ := runtime.Caller(0)
	f, err := os.Open(filepath.Join(filepath.Dir(here), "..", "testdata", file+".format"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	fm, err := tracefs.ParseFormat(f)
	if err != nil {
		t.Fatal(err)
	}
	fm.System = system
	return fm
}
