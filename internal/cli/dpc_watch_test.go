package cli

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/latlab/latlab/internal/dpcisr"
	"github.com/latlab/latlab/internal/dpcwatch"
	"github.com/latlab/latlab/internal/etw"
	"github.com/latlab/latlab/internal/host"
	"github.com/latlab/latlab/internal/result"
	"github.com/latlab/latlab/internal/testutil"
)

const watchFreq = 10_000_000 // QPC ticks a second, 0.1 µs each

// watchResult is a finished watch over a synthetic driver table: ndis.sys
// with a 2.5 ms DPC, a module with a long name, an ISR of USBPORT.SYS.
func watchResult() *dpcwatch.Result {
	mods := etw.NewModules([]etw.Module{
		{Name: "ndis.sys", Base: 0xfffff80400300000, Size: 0x2000},
		{Name: "a-very-long-vendor-driver-name-x64.sys", Base: 0xfffff80400400000, Size: 0x1000},
		{Name: "USBPORT.SYS", Base: 0xfffff80400500000, Size: 0x1000},
	})
	r := dpcwatch.NewRecorder(watchFreq, 0, mods)
	add := func(kind etw.Kind, routine uint64, endUs, dUs int64) {
		r.Add(etw.Execution{Kind: kind, Routine: routine, Start: (endUs - dUs) * 10, End: endUs * 10, CPU: uint16(endUs % 2)})
	}
	for i := int64(1); i <= 400; i++ {
		add(etw.KindDPC, 0xfffff80400300010, i*1000, 1+i%6)
		add(etw.KindDPC, 0xfffff80400400010, i*1000+500, 2)
		add(etw.KindISR, 0xfffff80400500010, i*1000+700, 1)
	}
	add(etw.KindDPC, 0xfffff80400300010, 450_000, 2500)
	now := int64(500_000 * 10)
	return &dpcwatch.Result{Session: "latlab dpc watch", Report: r.Report(now), Summary: r.Summary(now)}
}

// A watch's document is a dpcisr report: 'dpcisr' prints it and 'dpcisr
// compare' sets it against xperf's text.
func TestDPCISRReadsWatchDocument(t *testing.T) {
	dir := testutil.TempDir(t)
	r := watchResult()
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
	if code != 2 || !strings.Contains(errs, `a result document of kind "sleep", not "dpcisr"`) {
		t.Errorf("exit %d %s", code, errs)
	}
}

func TestDPCWatchBadSeconds(t *testing.T) {
	code, _, errs := runCLI(t, "dpc", "watch", "--duration", "-3s")
	if code != 2 || !strings.Contains(errs, `invalid value "-3s" for --duration: must not be negative`) {
		t.Errorf("exit %d %s", code, errs)
	}
}
