package cli

import (
	"bytes"
	"os"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/latlab/latlab/internal/report"
	"github.com/latlab/latlab/internal/timer"
)

// The Windows output of a report: the finest request first, the stack's
// modules beside it.
func TestPrintTimerWhoWindows(t *testing.T) {
	f, err := os.Open("../timer/testdata/energy-report-written.xml")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rep, err := timer.ParseEnergyReport(f)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	printTimerWho(report.WithWidth(&b, 80), &timer.WhoResult{OS: "windows", Current100ns: 5003, Finest100ns: 5000, Coarsest100ns: 156250, Energy: rep})
	out := b.String()
	for _, want := range []string{
		"timer resolution now: 0.5003ms (finest 0.5ms, coarsest 15.625ms)",
		"powercfg saw the resolution at 0.5003ms (platform maximum 15.625ms)",
		"2 outstanding timer requests (powercfg /energy), finest first:",
		"ConsoleApplication1.exe",
		"firefox.exe",
		"ntdll.dll KernelBase.dll",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %q in\n%s", want, out)
		}
	}
	if strings.Index(out, "ConsoleApplication1.exe") > strings.Index(out, "firefox.exe") {
		t.Errorf("not finest first:\n%s", out)
	}
	for _, l := range strings.Split(out, "\n") {
		if utf8.RuneCountInString(l) > 80 {
			t.Errorf("wider than 80: %q", l)
		}
	}
	b.Reset()
	printTimerWho(&b, &timer.WhoResult{OS: "windows", Current100ns: 156250, Finest100ns: 5000, Coarsest100ns: 156250, EnergyError: "'powercfg /energy' needs an elevated (Administrator) prompt"})
	if !strings.Contains(b.String(), "requesters: unknown: 'powercfg /energy' needs an elevated") {
		t.Error(b.String())
	}
}

func TestTimerWhoBadSeconds(t *testing.T) {
	code, _, errs := runCLI(t, "timer", "who", "--seconds", "99999")
	if code != 2 || !strings.Contains(errs, "invalid --seconds 99999: want 0 to 3600") {
		t.Errorf("exit %d %s", code, errs)
	}
}

// A saved report is read on any OS; a file that is not one is bad input.
func TestTimerWhoReport(t *testing.T) {
	code, out, errs := runCLI(t, "timer", "who", "--report", "../timer/testdata/energy-report-akinshin.txt")
	if code != 0 || !strings.Contains(out, "2 outstanding timer requests") || strings.Contains(out, "timer resolution now") {
		t.Errorf("exit %d %s\n%s", code, errs, out)
	}
	code, _, errs = runCLI(t, "timer", "who", "--report", "../timer/testdata/energy-report-akinshin.PROVENANCE")
	if code != 2 || strings.Count(errs, "\n") != 1 || !strings.Contains(errs, "no 'Platform Timer Resolution' entry") {
		t.Errorf("exit %d %q", code, errs)
	}
}
