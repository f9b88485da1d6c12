package report

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/latlab/latlab/internal/badinput"
	"github.com/latlab/latlab/internal/testutil"
)

// When the PNGs cannot be written the page still was: Run says both. A
// directory under /proc passes the checks made before the work (its
// parent exists) and cannot be created, even by root.
func TestRunPNGFailureReportsThePage(t *testing.T) {
	dir := testutil.TempDir(t)
	out := filepath.Join(dir, "r.html")
	res, err := Run(context.Background(), Options{Files: []string{fixture("a.json")}, Out: out, PNG: "/proc/latlab-no-such-dir"})
	if err == nil || badinput.Is(err) || res == nil || res.Out != out || res.PNGDir != "" {
		t.Fatalf("%+v %v", res, err)
	}
	if _, err := os.Stat(out); err != nil {
		t.Error(err)
	}
}
