package cli

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/latlab/latlab/internal/dpcisr"
	"github.com/latlab/latlab/internal/dpcwatch/dpcwatchtest"
	"github.com/latlab/latlab/internal/host"
	"github.com/latlab/latlab/internal/result"
	"github.com/latlab/latlab/internal/testutil"
)

// A watch's document is a dpcisr report: 'dpcisr' prints it and 'dpcisr
// compare' sets it against xperf's text.
func TestDPCISRReadsWatchDocument(t *testing.T) {
	dir := testutil.TempDir(t)
	r := dpcwatchtest.WindowsResult()
	view := r.Report.View("w.json", "")
	view.Watch = &r.Summary
	doc := dpcisr.Kind.New(host.Facts{}, &view)
	p := filepath.Join(dir, "w.json")
	if err := result.WriteFile(p, doc); err != nil {
		t.Fatal(err)
	}
	code, out, errs := runCLI(t, "dpcisr", p, "--module", "NDIS.SYS")
	if code != 0 || !strings.Contains(out, "(an ETW trace of latlab dpc watch)") || !strings.Contains(out, "401 DPCs") || strings.Contains(out, "(line 0)") {
		t.Fatalf("exit %d %s\n%s", code, errs, out)
	}
	xperf := "../dpcisr/testdata/xperf-dpcisr-written-layout.txt"
	code, out, errs = runCLI(t, "dpcisr", "compare", xperf, p, "--module", "ndis.sys", "--labels", "xperf,etw")
	if code != 0 || !strings.Contains(out, "ndis.sys in xperf vs etw") || !strings.Contains(out, "verdict: DPC:") {
		t.Fatalf("exit %d %s\n%s", code, errs, out)
	}
	// A document of another kind is refused in one line.
	other := "../result/testdata/sleep-document.golden"
	code, _, errs = runCLI(t, "dpcisr", "compare", xperf, other)
	testutil.CheckBadExit(t, "a sleep document", code, errs, `a result document of kind "sleep", not "dpcisr"`)
}

func TestDPCWatchBadSeconds(t *testing.T) {
	code, _, errs := runCLI(t, "dpc", "watch", "--duration", "-3s")
	testutil.CheckBadExit(t, "--duration -3s", code, errs, `invalid value "-3s" for --duration: must not be negative`)
}
