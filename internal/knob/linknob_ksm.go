package knob

import (
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/latlab/latlab/internal/badinput"
	"github.com/latlab/latlab/internal/knob/backend"
)

func init() { register(ksm{}) }

// ksmName is the knob's name, written in this file only: the rest of
// latlab asks the catalogue.
const ksmName = "ksm"

type ksm struct{ linuxKnob }

func (ksm) Name() string { return ksmName }
func (ksm) Summary() string {
	return "kernel samepage merging: whether ksmd scans memory for identical pages to share (/sys/kernel/mm/ksm/run)"
}

const ksmDir = "sys/kernel/mm/ksm/"

var ksmRunLoc = fileLoc(ksmDir + "run")

const ksmLacks = "kernel samepage merging (CONFIG_KSM)"

const ksmAccepted = "accepted 0|1|2 or stop|run|unmerge"

// Documentation/admin-guide/mm/ksm.rst: run 0 stops ksmd and keeps the
// merged pages, 1 runs it, 2 stops it and unmerges every merged page.
func parseKSM(s string) (int, bool) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "0", "stop":
		return 0, true
	case "1", "run":
		return 1, true
	case "2", "unmerge":
		return 2, true
	}
	return 0, false
}

func ksmMeaning(s string) string {
	switch s {
	case "0":
		return "0, stopped (the default): ksmd does not scan; pages it merged before stay merged"
	case "1":
		return "1, running: ksmd scans the memory applications registered (madvise MADV_MERGEABLE, or a whole process with prctl) and merges identical pages"
	case "2":
		return "2, stopped and unmerged: ksmd does not scan and no page is merged"
	}
	return "a value latlab does not know: " + s
}

// ksmFacts is the read-only context of the reading: what KSM has merged
// and how often ksmd scans (-1 when a file cannot be read).
type ksmFacts struct {
	PagesShared    int64 `json:"pages_shared"`  // merged pages in use
	PagesSharing   int64 `json:"pages_sharing"` // further sites sharing them: the pages saved
	SleepMillisecs int64 `json:"sleep_millisecs"`
	PagesToScan    int64 `json:"pages_to_scan"`
}

func ksmCount(env *Env, name string) int64 {
	s, v, err := readText(env, fileLoc(ksmDir+name))
	if err != nil || v.IsAbsent() {
		return -1
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n < 0 {
		return -1
	}
	return n
}

func readKSMFacts(env *Env) ksmFacts {
	return ksmFacts{PagesShared: ksmCount(env, "pages_shared"), PagesSharing: ksmCount(env, "pages_sharing"),
		SleepMillisecs: ksmCount(env, "sleep_millisecs"), PagesToScan: ksmCount(env, "pages_to_scan")}
}

// pagesSize is n pages in KiB or MiB, at this machine's page size.
func pagesSize(pages int64) string {
	b := float64(pages) * float64(os.Getpagesize())
	if b < 1<<20 {
		return fmt.Sprintf("%.0f KiB", b/(1<<10))
	}
	return fmt.Sprintf("%.1f MiB", b/(1<<20))
}

func (f ksmFacts) String() string {
	var parts []string
	if f.PagesShared >= 0 && f.PagesSharing >= 0 {
		parts = append(parts, fmt.Sprintf("pages_shared %d, pages_sharing %d (%s saved)", f.PagesShared, f.PagesSharing, pagesSize(f.PagesSharing)))
	}
	if f.PagesToScan >= 0 && f.SleepMillisecs >= 0 {
		parts = append(parts, fmt.Sprintf("ksmd scans %d pages, then sleeps %d ms (sleep_millisecs)", f.PagesToScan, f.SleepMillisecs))
	}
	return strings.Join(parts, "; ")
}

func (ksm) Explain(value string, o ExplainOptions) (*Explanation, error) {
	ex := &Explanation{Knob: ksmName}
	if value == "" {
		ex.Text = []string{
			"/sys/kernel/mm/ksm/run: 0 stop ksmd and keep the merged pages (the default), 1 run ksmd, 2 stop ksmd and unmerge every merged page (Documentation/admin-guide/mm/ksm.rst).",
			"For latency: ksmd's scanning takes CPU time (pages_to_scan pages every sleep_millisecs), and a merged page is shared read-only, so the first write to it takes a copy-on-write fault. tuned's realtime-virtual-host profile writes 2 to stop ksmd and unmerge, saying it may introduce latencies.",
			"2 is not lossy for data: each process gets its own copy of the pages it shared. It costs memory, pages_sharing pages more, and when memory runs short the unmerge fails or wakes the OOM killer. A revert writes back the value run had; writing 1 lets ksmd merge again over its next scans, writing 0 leaves the pages unmerged.",
		}
		return ex, nil
	}
	n, ok := parseKSM(value)
	if !ok {
		return nil, badinput.Errorf("invalid ksm %q: %s", value, ksmAccepted)
	}
	ex.Text = []string{ksmMeaning(strconv.Itoa(n))}
	ex.Data = map[string]any{"run": n}
	return ex, nil
}

func (k ksm) Get(env *Env, sel Selector) (*Reading, error) {
	it, err := sysItem(env, ksmRunLoc, ksmLacks, ksmMeaning)
	if err != nil {
		return nil, err
	}
	r := &Reading{Knob: k.Name()}
	if it.Raw != nil && !it.Raw.IsAbsent() {
		f := readKSMFacts(env)
		it.Detail = f
		if s := f.String(); s != "" {
			r.Notes = append(r.Notes, s)
		}
	}
	r.Items = []Item{it}
	return r, nil
}

func (k ksm) Plan(env *Env, sel Selector, value string) (*Plan, error) {
	n, ok := parseKSM(value)
	if !ok {
		return nil, badinput.Errorf("invalid ksm %q: %s", value, ksmAccepted)
	}
	if err := mustExist(env, ksmRunLoc, ksmLacks); err != nil {
		return nil, err
	}
	p := &Plan{Knob: k.Name(), Request: value}
	if err := p.add(env, ksmRunLoc, backend.FileValue(fmt.Sprintf("%d\n", n))); err != nil {
		return nil, err
	}
	f := readKSMFacts(env)
	if n == 2 && len(p.Changes) > 0 && f.PagesSharing > 0 {
		p.Notes = append(p.Notes, fmt.Sprintf("unmerging gives back %d shared pages as private copies: about %s more memory in use; if memory runs short the write fails and nothing is changed", f.PagesSharing, pagesSize(f.PagesSharing)))
		if orig, _, _ := readText(env, ksmRunLoc); orig == "0" {
			p.Warnings = append(p.Warnings, "a revert writes 0 back, which stops ksmd but does not merge the pages again: only run 1 merges")
		}
	}
	return p, nil
}

func (k ksm) Vet(target string, l backend.Loc, v backend.Value) error {
	if err := noTarget(k.Name(), target); err != nil {
		return err
	}
	if l != ksmRunLoc {
		return notMine(k.Name(), target, l)
	}
	s, err := fileText(v)
	if err != nil {
		return err
	}
	if _, ok := parseIntIn(s, 0, 2); !ok {
		return fmt.Errorf("%q is not a ksm run value (0, 1, 2)", s)
	}
	return nil
}

var ksmRefs = []Reference{tunedRef("realtime-virtual-host", "sysfs", "/sys/kernel/mm/ksm/run", "2")}

// Checkup is what the check-up knows of ksm.
func (ksm) Checkup() Checkup {
	return Checkup{Default: text("0"), Rules: ksmRules, References: ksmRefs}
}

// Experiment: ksmd scans registered memory, which no probe of try has.
func (ksm) Experiment() Experiment {
	return Experiment{Scope: ScopeSystem, Settle: DefaultSettle,
		Unprobed: "ksmd scans memory programs register with madvise(MADV_MERGEABLE), which no probe of try has: compare the workload's runs, and ksmd's CPU time"}
}

func ksmSharing(c *Case) int64 {
	if f, ok := c.Detail.(ksmFacts); ok {
		return f.PagesSharing
	}
	return -1
}

var ksmRules = []Rule{
	absentRule("ksm-absent"),
	{ID: "ksm-stopped-merged", Verdict: Default, When: "0 with merged pages left",
		Match: func(c *Case) bool { return c.Text() == "0" && ksmSharing(c) > 0 },
		Reason: func(c *Case) string {
			return fmt.Sprintf("ksmd is stopped, but %d pages are still merged: the first write to one takes a copy-on-write fault; %s", ksmSharing(c), ksmRefs[0].Cite())
		},
		Next: func(c *Case) *NextStep {
			return &NextStep{Command: "latlab knob set ksm 2", Why: "merged pages remain, each a copy-on-write fault waiting (latlab knob revert ksm undoes the setting, not the unmerge)", Benefit: 5}
		}},
	{ID: "ksm-stopped", Verdict: Default, When: "0",
		Match:  func(c *Case) bool { return c.Text() == "0" },
		Reason: func(c *Case) string { return c.Meaning }},
	{ID: "ksm-running", Verdict: Suspicious, When: "1",
		Match: func(c *Case) bool { return c.Text() == "1" },
		Reason: func(c *Case) string {
			return "ksmd scans memory (CPU time) and merged pages take copy-on-write faults when written; " + ksmRefs[0].Cite() + "; stopping it costs the memory merging saves"
		},
		Next: func(c *Case) *NextStep {
			return &NextStep{Command: "latlab knob set ksm 2", Why: "ksmd is scanning and merging pages (latlab knob revert ksm restarts it)", Benefit: 15}
		}},
	{ID: "ksm-unmerged", Verdict: Changed, When: "2",
		Match: func(c *Case) bool { return c.Text() == "2" },
		Reason: func(c *Case) string {
			return "stopped and unmerged, as " + ksmRefs[0].Cite() + ": no scanning and no shared pages to fault on"
		}},
	{ID: "ksm-other", Verdict: Unknown, When: "any other value",
		Match:  always,
		Reason: func(c *Case) string { return c.Meaning }},
}
