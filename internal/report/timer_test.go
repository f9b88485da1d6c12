package report

import (
	"bytes"
	"os"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/latlab/latlab/internal/timer"
)

// The Windows output of a report: the finest request first, the stack's
// modules beside it.
func TestTimerWhoWindows(t *testing.T) {
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
	TimerWho(WithWidth(&b, 80), &timer.WhoResult{OS: "windows", Current100ns: 5003, Finest100ns: 5000, Coarsest100ns: 156250, Energy: rep})
	out := b.String()
	for _, want := range []string{
		"timer resolution now: 0.5003ms (finest 0.5ms, coarsest 15.625ms)",
		"powercfg saw the resolution at 0.5003ms (platform maximum 15.625ms)",
		"2 outstanding timer requests by processes (powercfg /energy), finest first:",
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
	TimerWho(&b, &timer.WhoResult{OS: "windows", Current100ns: 156250, Finest100ns: 5000, Coarsest100ns: 156250, EnergyError: "'powercfg /energy' needs an elevated (Administrator) prompt"})
	if !strings.Contains(b.String(), "requesters: unknown: 'powercfg /energy' needs an elevated") {
		t.Error(b.String())
	}
}

// After Windows 10 2004 the energy report reads the system's current
// resolution as 156250 unless a driver holds a request, and still lists
// each requesting process with its own period (readers' comments on Bruce
// Dawson's post, research 002:107-108 and 002:234); timeBeginPeriod still
// sets the global timer interrupt interval (002:36, 002:230). The note
// once said powercfg listed a process's request at 156250. Drivers'
// requests are printed apart.
func TestTimerWhoAfter2004(t *testing.T) {
	in := "Platform Timer Resolution:Platform Timer Resolution\n" +
		"  Current Timer Resolution (100ns units) 156250\n  Maximum Timer Period (100ns units) 156250\n" +
		"Platform Timer Resolution:Outstanding Timer Request\n" +
		"  Requested Period 10000\n  Requesting Process ID 5120\n  Requesting Process Path \\Device\\HarddiskVolume3\\Games\\game.exe\n"
	rep, err := timer.ParseEnergyReport(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	TimerWho(WithWidth(&b, 80), &timer.WhoResult{OS: "windows", Energy: rep})
	out := strings.Join(strings.Fields(b.String()), " ")
	for _, want := range []string{
		"1 outstanding timer request by processes",
		"game.exe 5120 1ms",
		"powercfg reads the current resolution as 15.625ms (156250) although 1 process requests finer",
		"still lists each process with the period it asked for",
		"The requests still set the timer interrupt",
		"The Great Rule Change",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %q in\n%s", want, b.String())
		}
	}
	if strings.Contains(out, "lists an ordinary process's request at the default period") {
		t.Errorf("says powercfg lists a process's request at 156250:\n%s", b.String())
	}

	// A driver's request: the current resolution follows it, no note.
	in = "Platform Timer Resolution:Platform Timer Resolution\n" +
		"  Current Timer Resolution (100ns units) 10000\n  Maximum Timer Period (100ns units) 156250\n" +
		"Platform Timer Resolution:Outstanding Timer Request\n" +
		"  Requested Period 10000\n  Requesting Process ID 5120\n  Requesting Process Path \\Device\\HarddiskVolume3\\Games\\game.exe\n" +
		"Platform Timer Resolution:Outstanding Timer Request\n" +
		"  Requested Period 10000\n  Requesting Process ID 4\n  Requesting Process Path \\SystemRoot\\system32\\ntoskrnl.exe\n"
	if rep, err = timer.ParseEnergyReport(strings.NewReader(in)); err != nil {
		t.Fatal(err)
	}
	b.Reset()
	TimerWho(WithWidth(&b, 80), &timer.WhoResult{OS: "windows", Energy: rep})
	out = strings.Join(strings.Fields(b.String()), " ")
	for _, want := range []string{
		"1 kernel-mode request (drivers, ExSetTimerResolution)",
		"listed apart from processes': they belong to no process, so they set the resolution for the whole system",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %q in\n%s", want, b.String())
		}
	}
	if strings.Contains(out, "reads the current resolution as 15.625ms") {
		t.Errorf("a note although the current resolution is 1 ms:\n%s", b.String())
	}
	if strings.Index(b.String(), "game.exe") > strings.Index(b.String(), "ntoskrnl.exe") {
		t.Errorf("the kernel request is not apart:\n%s", b.String())
	}
}

// Real reports list a driver's request as an "Outstanding Kernel Timer
// Request", a period and a count without a process, and may give a
// process's stack a finer period than its outstanding request (both seen
// in real reports, docs/commands/timer.md): the kernel row names no
// process and no PID 0, the stack's period is shown beside its modules.
func TestTimerWhoKernelEntryAndStackPeriod(t *testing.T) {
	in := "Platform Timer Resolution:Platform Timer Resolution\n" +
		"Current Timer Resolution (100ns units)\t9900\nMaximum Timer Period (100ns units)\t156250\n" +
		"Platform Timer Resolution:Outstanding Kernel Timer Request\n" +
		"Requested Period\t10000\nRequest Count\t1\n" +
		"Platform Timer Resolution:Outstanding Timer Request\n" +
		"Requested Period\t9900\nRequesting Process ID\t7568\nRequesting Process Path\t\\Device\\HarddiskVolume2\\Razer\\Service.exe\n" +
		"Platform Timer Resolution:Timer Request Stack\n" +
		"Requested Period\t5000\nRequesting Process ID\t7568\nRequesting Process Path\t\\Device\\HarddiskVolume2\\Razer\\Service.exe\n" +
		"Calling Module Stack\t\\Device\\HarddiskVolume2\\Windows\\SysWOW64\\ntdll.dll\n"
	rep, err := timer.ParseEnergyReport(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	TimerWho(WithWidth(&b, 80), &timer.WhoResult{OS: "windows", Energy: rep})
	out := strings.Join(strings.Fields(b.String()), " ")
	for _, want := range []string{
		"Service.exe 7568 0.99ms (stack at 0.5ms) ntdll.dll",
		"1 kernel-mode request (drivers, ExSetTimerResolution)",
		"(drivers, count 1) - 1ms",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %q in\n%s", want, b.String())
		}
	}
	if strings.Contains(out, "(no path)") {
		t.Errorf("the kernel entry printed as a process without a path:\n%s", b.String())
	}
}

// Notes and long lines wrap at 80 columns, continued 2 columns in.
func TestTimerWhoWrapsNotes(t *testing.T) {
	var b bytes.Buffer
	TimerWho(&b, &timer.WhoResult{OS: "linux", DefaultSlackNs: 50_000,
		Notes: []string{strings.Repeat("word ", 30) + "end"}})
	lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	var note []string
	for _, l := range lines {
		if strings.HasPrefix(l, "note: ") || len(note) > 0 {
			note = append(note, l)
		}
	}
	if len(note) != 2 || !strings.HasPrefix(note[1], "  word") || !strings.HasSuffix(note[1], " end") {
		t.Fatalf("note lines %q", note)
	}
	for _, l := range note {
		if utf8.RuneCountInString(l) > 80 || strings.HasSuffix(l, " ") {
			t.Errorf("line %q", l)
		}
	}
	if !strings.Contains(b.String(), "timer slack not the default 50µs:\n  no process apart from realtime ones\n") {
		t.Errorf("slack part:\n%s", b.String())
	}
}

// timer status's warnings wrap at 80 columns, continued 2 columns in
// (Windows 7's, the Go runtime's own timer request, was 134 wide).
func TestTimerStatusWrapsWarnings(t *testing.T) {
	var b bytes.Buffer
	warn := "build 7601 is older than 17134: the Go runtime raises the timer resolution itself there, so every measurement in this process runs at the finest resolution"
	TimerStatus(WithWidth(&b, 80), &timer.Status{Warnings: []string{warn}})
	out := b.String()
	i := strings.Index(out, "warning: ")
	if i < 0 {
		t.Fatalf("no warning:\n%s", out)
	}
	lines := strings.Split(strings.TrimSuffix(out[i:], "\n"), "\n")
	if len(lines) < 2 || !strings.HasPrefix(lines[1], "  ") {
		t.Fatalf("warning lines %q", lines)
	}
	if got := strings.Join(strings.Fields(strings.Join(lines, " ")), " "); got != "warning: "+warn {
		t.Errorf("warning reads %q", got)
	}
	for _, l := range lines {
		if utf8.RuneCountInString(l) > 80 {
			t.Errorf("wider than 80: %q", l)
		}
	}
}
