package cli

import (
	"os"
	"path/filepath"
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
