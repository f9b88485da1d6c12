package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/sebdah/goldie/v2"

	"github.com/latlab/latlab/internal/doctor"
	"github.com/latlab/latlab/internal/knob"
	"github.com/latlab/latlab/internal/stats"
	"github.com/latlab/latlab/internal/units"
)

// testCheckup is a check-up with every kind of line the page has, some
// of them far wider than a terminal.
func testCheckup() *doctor.Result {
	r := &doctor.Result{Profile: doctor.Standard, OS: "windows",
		Timer: doctor.Timer{Facts: []doctor.Fact{
			{Name: "resolution", Value: "current 1ms, finest 0.5ms, coarsest 15.625ms (NtQueryTimerResolution)"},
			{Name: "a fact with a long name", Value: "x"},
			{Name: "timer rule", Value: "per process: a request speeds up only the process that made it; GlobalTimerResolutionRequests=1 is ignored by build 19045 (needs Windows 11 22000+ or Server 2022 20348+)"},
		}},
		Sleep: &doctor.Probe{Name: "sleep", RequestNs: 1_000_000, What: "asking Sleep for 1ms, 60 times: overshoot (slept - requested)",
			Summary: stats.Summary{Count: 60, P50: 14_600_000, P99: 15_100_000, Max: 15_200_000},
			Verdict: "Sleep(1) took 15.6 ms (p50): the default 15.625 ms tick, although the interval is 1 ms; since Windows 10 2004 a request speeds up only the process that made it (see the timer rule)",
			Samples: []int64{14_600_000, 15_100_000, 15_200_000}},
		Wake: &doctor.Probe{Name: "wake", What: "a 1ms periodic wake-up, 3000 times: lateness (wake time - deadline)", IntervalNs: 1_000_000,
			Summary: stats.Summary{Count: 3000, P50: 500_000, P99: 900_000, Max: 1_900_000}, Overruns: 3, Band: "mediocre",
			Verdict: "mediocre: 3 missed periods: some wake-ups (up to 1.9ms late) came after the next 1ms deadline had passed, enough to break small audio buffers",
			Samples: []int64{400_000, 500_000, 900_000, 1_900_000}},
		Extra: []doctor.Probe{{Name: "wake-per-cpu", What: "a 1ms periodic wake-up on each of 2 CPUs at once", IntervalNs: 1_000_000,
			Threads: []doctor.ThreadStat{{CPU: 0, Summary: stats.Summary{P50: 1000}}, {CPU: 1}}, Verdict: "good: 99% of wake-ups within 200 µs of their deadline"}},
		Overhead: &doctor.Overhead{ClockReadP50Ns: 30, ZeroWaitP50Ns: 5900},
		Settings: []doctor.Setting{
			{Knob: "win32-priority-separation", Value: "0x2 (2)", Verdict: knob.Default, Reason: "the client default: 0x2 = short, variable quanta, foreground 18 units (93.75 ms), background 6 units (31.25 ms)"},
			{Knob: "network-throttling-index", Value: "4294967295 (REG_DWORD)", Verdict: knob.Suspicious, Reason: "off (0xFFFFFFFF): received packets are not throttled",
				Evidence: "Measured (GamingPCSetup, xperf, one Intel adapter): NDIS.sys DPC latency was higher with throttling off."},
			{Knob: "qos-dscp", Target: `a policy named with_an_unbroken_word_longer_than_any_terminal_line_can_hold_at_all_really_yes`, Value: "DSCP 46 (EF)", Verdict: knob.Suspicious, Reason: "x"},
			{Knob: "tsc-sync-policy", Value: "unknown (needs Administrator)", Verdict: knob.Unknown, Reason: "reading it needs an elevated prompt (Administrator)"},
		},
		Next:  []doctor.Step{{Command: "latlab knob set network-throttling-index 10", Why: "back to the default (needs a reboot; latlab knob revert undoes it)", Benefit: 70}},
		Notes: []string{"no realtime wake probe: thread 0: setting SCHED_FIFO needs root"},
	}
	r.Counts = doctor.Tally{Default: 1, Suspicious: 2, Unknown: 1}
	r.Verdict = doctor.OverallVerdict(r)
	r.Cause = &doctor.Cause{Source: "etw", Kind: "driver", Name: "ndis.sys",
		Text:    "driver ndis.sys: most DPC+ISR time (12.5 ms in 3.0 s); longest DPC 1.2 ms by ndis.sys: over 1 ms, drop-outs possible",
		Run:     "a 3s DPC/ISR watch after the probes (latlab dpc watch's trace)",
		Drivers: []doctor.DriverTime{{Module: "ndis.sys", DPCUs: 12000, ISRUs: 500, TotalUs: 12500, Count: 900}},
		Longest: &doctor.Longest{Section: "DPC", Module: "ndis.sys", MaxUs: 1200, Level: "over-1ms", Verdict: "drop-outs possible: ndis.sys ran a DPC for 1.2 ms"}}
	return r
}

func TestDoctorTextFits80Columns(t *testing.T) {
	var b bytes.Buffer
	DoctorText(&b, testCheckup(), true)
	out := b.String()
	for _, l := range strings.Split(out, "\n") {
		if n := utf8.RuneCountInString(l); n > 80 || strings.HasSuffix(l, " ") {
			t.Errorf("line of %d columns (or a trailing space): %q", n, l)
		}
	}
	// Worst first; the evidence of the suspicious verdicts.
	s, u, d := strings.Index(out, "  suspicious"), strings.Index(out, "  unknown"), strings.Index(out, "  default")
	if s < 0 || !(s < u && u < d) || strings.Contains(out, "harmful") {
		t.Errorf("settings out of order:\n%s", out)
	}
	for _, want := range []string{"evidence: Measured (GamingPCSetup, xperf, one Intel adapter)", "settings: 4 read, none altered: 2 suspicious, 0 changed, 1 default, 1 unknown",
		"tsc-sync-policy: unknown (needs Administrator)", "CPU 0: p50 1µs", "  1. latlab knob set network-throttling-index 10", "note: no realtime wake probe"} {
		if !strings.Contains(out, want) {
			t.Errorf("page lacks %q:\n%s", want, out)
		}
	}
	// A word wider than the page is cut, not lost.
	if !strings.Contains(strings.ReplaceAll(out, "\n", ""), "really_yes") {
		t.Errorf("the long word was lost:\n%s", out)
	}
}

func TestWrapText(t *testing.T) {
	for _, c := range []struct {
		text, first, indent string
		width               int
		want                []string
	}{
		{"a b c", "", "", 80, []string{"a b c"}},
		{"aaa bbb ccc", "> ", "  ", 8, []string{"> aaa", "  bbb", "  ccc"}},
		{"aaaaaaaaaa", "", "", 4, []string{"aaaa", "aaaa", "aa"}},
		{"µµµ µµµ", "", "", 7, []string{"µµµ µµµ"}},
		{"", "x ", "", 80, []string{"x"}},
	} {
		got := wrapText(c.text, c.first, c.indent, c.width)
		if strings.Join(got, "|") != strings.Join(c.want, "|") {
			t.Errorf("%q at %d: %q, want %q", c.text, c.width, got, c.want)
		}
	}
}

// TestDoctorTextReferences: a finding shows the tuning profiles its knob
// cites, one short line each, within 80 columns.
func TestDoctorTextReferences(t *testing.T) {
	r := testCheckup()
	r.Settings = []doctor.Setting{{Knob: "swappiness", Value: "60", Verdict: knob.Default, Reason: "the default",
		References: []knob.Reference{
			{Source: "tuned", Version: "2.20.0", Profile: "latency-performance", Section: "sysctl", Key: "vm.swappiness", Value: "10"},
			{Source: "tuned", Version: "2.20.0", Profile: "a-profile-with-a-very-long-name-indeed", Section: "sysfs", Key: "/sys/kernel/mm/transparent_hugepage/khugepaged/defrag", Value: "0"},
		}}}
	var b bytes.Buffer
	DoctorText(&b, r, true)
	out := b.String()
	for _, l := range strings.Split(out, "\n") {
		if n := utf8.RuneCountInString(l); n > 80 {
			t.Errorf("line of %d columns: %q", n, l)
		}
	}
	if !strings.Contains(out, "\n             tuned 2.20.0 latency-performance: vm.swappiness=10\n") {
		t.Errorf("no reference line:\n%s", out)
	}
	if !strings.Contains(strings.Join(strings.Fields(out), " "), "tuned 2.20.0 a-profile-with-a-very-long-name-indeed: /sys/kernel/mm/transparent_hugepage/khugepaged/defrag=0") {
		t.Errorf("the long reference was lost:\n%s", out)
	}
	// A second finding of the knob does not cite again; a reference the
	// reason quotes is not repeated; profiles that set the same value
	// share a line.
	ref := func(profile, value string) knob.Reference {
		return knob.Reference{Source: "tuned", Version: "2.20.0", Profile: profile, Section: "sysctl", Key: "kernel.nmi_watchdog", Value: value}
	}
	refs := []knob.Reference{ref("realtime", "0"), ref("cpu-partitioning", "0"), ref("powersave", "0"), ref("other", "1")}
	r.Settings = []doctor.Setting{
		{Knob: "nmi-watchdog", Value: "1", Verdict: knob.Default, Reason: "on; " + refs[0].Cite(), References: refs},
		{Knob: "nmi-watchdog", Target: "again", Value: "1", Verdict: knob.Default, Reason: "on", References: refs},
	}
	b.Reset()
	DoctorText(&b, r, true)
	out = b.String()
	for _, want := range []string{
		"\n             tuned 2.20.0 cpu-partitioning, powersave: kernel.nmi_watchdog=0\n",
		"\n             tuned 2.20.0 other: kernel.nmi_watchdog=1\n",
	} {
		if strings.Count(out, want) != 1 {
			t.Errorf("want %q once:\n%s", want, out)
		}
	}
	if strings.Contains(out, "tuned 2.20.0 realtime:") || strings.Contains(out, "realtime, ") {
		t.Errorf("the reference the reason quotes is repeated:\n%s", out)
	}
	r.Settings = r.Settings[1:]
	r.Settings[0].References = nil
	b.Reset()
	DoctorText(&b, r, true)
	if strings.Contains(b.String(), "tuned 2.20.0") {
		t.Errorf("a finding without references shows one:\n%s", b.String())
	}
}

// vmCheckup is a check-up as latlab ran it, as root, on a loaded 2-CPU
// Linux VM: 24 settings, 21 of them default, the cause traced.
func vmCheckup(t *testing.T) *doctor.Result {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "doctor-linux-vm.json"))
	if err != nil {
		t.Fatal(err)
	}
	var r doctor.Result
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatal(err)
	}
	return &r
}

// The folded page answers first: at most six lines of summary naming
// every class of setting and the cause, then the evidence, 45 lines in
// all on the VM; --all shows every finding in full.
func TestDoctorTextFolded(t *testing.T) {
	r := vmCheckup(t)
	var b bytes.Buffer
	DoctorText(&b, r, false)
	out := b.String()
	goldie.New(t).Assert(t, "doctor-linux-vm", b.Bytes())
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if len(lines) > 45 {
		t.Errorf("%d lines, want at most 45:\n%s", len(lines), out)
	}
	for _, l := range lines {
		if n := utf8.RuneCountInString(l); n > 80 || strings.HasSuffix(l, " ") {
			t.Errorf("line of %d columns (or a trailing space): %q", n, l)
		}
	}
	summary, _, _ := strings.Cut(out, "\n\n")
	if n := strings.Count(summary, "\n") + 1; n > 6 {
		t.Errorf("a summary of %d lines:\n%s", n, summary)
	}
	if !strings.HasPrefix(summary, r.Verdict.Text+"\n") {
		t.Errorf("the summary does not open with the verdict %q:\n%s", r.Verdict.Text, summary)
	}
	for _, want := range []string{"0 suspicious", "1 changed", "21 default", "2 unknown", "cause     " + r.Cause.Text,
		"p99 " + units.NsShort(float64(r.Wake.Summary.P99)), fmt.Sprintf("%d missed periods: poor", r.Wake.Overruns)} {
		if !strings.Contains(summary, want) {
			t.Errorf("the summary lacks %q:\n%s", want, summary)
		}
	}
	// A default finding is a name in one list; its reason is not shown.
	for _, s := range r.Settings {
		if !strings.Contains(out, s.Knob) {
			t.Errorf("%s is missing from the folded page", s.Knob)
		}
		if s.Verdict == knob.Default && strings.Contains(out, s.Reason) {
			t.Errorf("the default %s is shown in full", s.Knob)
		}
	}

	b.Reset()
	DoctorText(&b, r, true)
	all := b.String()
	for _, s := range r.Settings {
		if !strings.Contains(strings.Join(strings.Fields(all), " "), strings.Join(strings.Fields(s.Reason), " ")) {
			t.Errorf("--all lacks the reason of %s", s.Knob)
		}
	}
	if !strings.HasPrefix(all, summary+"\n\n") {
		t.Errorf("--all does not open with the same summary")
	}
	for _, s := range r.Next {
		if !strings.Contains(all, s.Command) {
			t.Errorf("--all lacks the step %s", s.Command)
		}
	}
}

// Without the privilege to trace, the summary says in one line how to get
// the cause.
func TestDoctorSummaryNotTraced(t *testing.T) {
	r := vmCheckup(t)
	r.Cause = &doctor.Cause{Missing: "not traced: run as root (sudo latlab) and the check-up names what delayed the worst wake-ups"}
	s := DoctorSummary(r)
	got := strings.Join(s, "\n")
	if len(s) > 6 || !strings.Contains(got, "sudo latlab") || strings.Contains(got, "thread ") {
		t.Errorf("summary:\n%s", got)
	}
}

// A note on what the trace lacks takes the third culprit's line: the
// folded page keeps its length.
func TestDoctorTextCauseNote(t *testing.T) {
	r := vmCheckup(t)
	var b bytes.Buffer
	DoctorText(&b, r, false)
	before := strings.Count(b.String(), "\n")
	r.Cause.Notes = []string{"explain: the ring buffer lost 12 events; explanations near the loss may miss what ran", "another note"}
	b.Reset()
	DoctorText(&b, r, false)
	out := b.String()
	if n := strings.Count(out, "\n"); n != before || !strings.Contains(out, "\n  note: explain: the ring buffer lost 12 events") || strings.Contains(out, "another note") {
		t.Errorf("%d lines (before %d):\n%s", n, before, out)
	}
}

// A verdict too long for one line is wrapped whole: the first line alone
// once ended "...small audio buffers; no", the rest of the sentence lost.
func TestDoctorSummaryKeepsTheWholeVerdict(t *testing.T) {
	r := vmCheckup(t)
	r.Verdict.Text = "mediocre: some wake-ups are late enough to break small audio buffers; no suspicious setting"
	s := DoctorSummary(r)
	if !strings.HasPrefix(s[1], "  suspicious setting") {
		t.Errorf("summary:\n%s", strings.Join(s, "\n"))
	}
	for _, l := range s {
		if n := utf8.RuneCountInString(l); n > 80 {
			t.Errorf("%d columns: %q", n, l)
		}
	}
}

// A p99 of fewer than 100 samples is the maximum: the page shows the
// maximum alone.
func TestDoctorTailOf(t *testing.T) {
	for _, c := range []struct {
		n    int64
		want string
	}{{60, "max 2.54ms"}, {99, "max 2.54ms"}, {100, "p99 1.00ms, max 2.54ms"}, {2254, "p99 1.00ms, max 2.54ms"}} {
		if got := tailOf(stats.Summary{Count: c.n, P99: 1_000_000, Max: 2_540_000}, short); got != c.want {
			t.Errorf("%d samples: %q, want %q", c.n, got, c.want)
		}
	}
}
