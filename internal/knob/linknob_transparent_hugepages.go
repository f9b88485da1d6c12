package knob

import (
	"fmt"
	"strings"

	"github.com/latlab/latlab/internal/badinput"
	"github.com/latlab/latlab/internal/knob/backend"
)

func init() { register(thp{}) }

// thpName is the knob's name, written in this file only: the rest of
// latlab asks the catalogue.
const thpName = "transparent-hugepages"

type thp struct{ linuxKnob }

func (thp) Name() string { return thpName }
func (thp) Summary() string {
	return "transparent huge pages: when anonymous memory gets 2 MiB pages, and whether a fault stalls to compact memory for one (/sys/kernel/mm/transparent_hugepage/enabled, defrag)"
}

// The two files show every choice and bracket the one in force ("always
// [madvise] never"), and take only the bare word: they are choice files
// (backend.ChoiceName), which the Files backend writes as the bracketed word. So
// the journal keeps each file as it was, and a revert writes what the
// kernel accepts.
var (
	thpEnabledLoc = backend.Loc{Backend: backend.BackendFile, Path: "sys/kernel/mm/transparent_hugepage/enabled", Name: backend.ChoiceName}
	thpDefragLoc  = backend.Loc{Backend: backend.BackendFile, Path: "sys/kernel/mm/transparent_hugepage/defrag", Name: backend.ChoiceName}
)

const thpLacks = "transparent huge pages (CONFIG_TRANSPARENT_HUGEPAGE)"

// thpPart is one of the two files: its name in a request, its place and
// its choices with what each means (Documentation/admin-guide/mm/
// transhuge.rst).
type thpPart struct {
	key      string
	loc      backend.Loc
	choices  []string
	meanings map[string]string
}

var thpParts = []thpPart{
	{key: "enabled", loc: thpEnabledLoc, choices: []string{"always", "madvise", "never"}, meanings: map[string]string{
		"always":  "every large enough anonymous mapping gets huge pages: a page fault zeroes 2 MiB instead of 4 KiB and khugepaged collapses small pages in the background; fewer TLB misses, at the cost of memory and of occasional long faults",
		"madvise": "only regions an application asks for with madvise(MADV_HUGEPAGE) get huge pages; everyone else keeps 4 KiB pages",
		"never":   "no transparent huge pages (hugetlbfs pages still work): no 2 MiB faults and no collapsing, at the cost of more TLB misses for large working sets",
	}},
	{key: "defrag", loc: thpDefragLoc, choices: []string{"always", "defer", "defer+madvise", "madvise", "never"}, meanings: map[string]string{
		"always":        "a fault that finds no free huge page stalls to reclaim and compact memory itself: the longest page-fault stalls",
		"defer":         "a fault takes small pages at once and wakes kswapd and kcompactd to reclaim and compact in the background",
		"defer+madvise": "madvise(MADV_HUGEPAGE) regions reclaim and compact at the fault, the rest in the background",
		"madvise":       "only madvise(MADV_HUGEPAGE) regions stall to reclaim and compact at the fault; the rest take small pages at once (the kernel's default)",
		"never":         "no reclaim or compaction for a huge page: a fault takes small pages when none is free",
	}},
}

func (p thpPart) meaning(word string) string {
	if m, ok := p.meanings[word]; ok {
		return word + ": " + m
	}
	return word + ": a choice latlab does not know"
}

// thpRequest is a parsed value: the word to set for each part ("" leaves
// it alone).
type thpRequest map[string]string

// parseTHP accepts a bare word (enabled only) or key=word pairs:
// "never", "enabled=never,defrag=madvise", "defrag=defer".
func parseTHP(value string) (thpRequest, error) {
	accepted := "accepted never|madvise|always (enabled), or enabled=never|madvise|always and/or defrag=always|defer|defer+madvise|madvise|never, comma-separated"
	req := thpRequest{}
	v := strings.ToLower(strings.TrimSpace(value))
	if v != "" && !strings.Contains(v, "=") {
		v = "enabled=" + v
	}
	for _, f := range strings.Split(v, ",") {
		key, word, ok := strings.Cut(strings.TrimSpace(f), "=")
		key, word = strings.TrimSpace(key), strings.TrimSpace(word)
		var part *thpPart
		for i := range thpParts {
			if thpParts[i].key == key {
				part = &thpParts[i]
			}
		}
		switch {
		case !ok || part == nil:
			return nil, badinput.Errorf("invalid transparent-hugepages %q: %q is not enabled=WORD or defrag=WORD; %s", value, f, accepted)
		case req[key] != "":
			return nil, badinput.Errorf("invalid transparent-hugepages %q: %s given twice; %s", value, key, accepted)
		case !contains(part.choices, word):
			return nil, badinput.Errorf("invalid transparent-hugepages %q: %s %q is not one of %s", value, key, word, strings.Join(part.choices, "|"))
		}
		req[key] = word
	}
	return req, nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func (thp) Explain(value string, o ExplainOptions) (*Explanation, error) {
	ex := &Explanation{Knob: thpName}
	if value == "" {
		ex.Text = []string{
			"/sys/kernel/mm/transparent_hugepage/enabled and defrag list their choices and bracket the one in force (\"always [madvise] never\"). Set a bare word for enabled, or enabled=WORD,defrag=WORD.",
			"The default of enabled is the kernel's build option (CONFIG_TRANSPARENT_HUGEPAGE_ALWAYS or _MADVISE: distributions differ); of defrag, madvise.",
		}
		for _, p := range thpParts {
			for _, c := range p.choices {
				ex.Text = append(ex.Text, p.key+" "+p.meaning(c))
			}
		}
		ex.Text = append(ex.Text, "For latency: a 2 MiB fault, khugepaged's collapsing and direct compaction are stalls a 4 KiB page never has; tuned's network-latency profile turns transparent huge pages off (never).")
		return ex, nil
	}
	req, err := parseTHP(value)
	if err != nil {
		return nil, err
	}
	data := map[string]string{}
	for _, p := range thpParts {
		if w := req[p.key]; w != "" {
			ex.Text = append(ex.Text, p.key+" "+p.meaning(w))
			data[p.key] = w
		}
	}
	ex.Data = data
	return ex, nil
}

// Get reads both files: one item each, its value the word in force.
func (k thp) Get(env *Env, sel Selector) (*Reading, error) {
	r := &Reading{Knob: k.Name()}
	for _, p := range thpParts {
		it, err := sysItem(env, p.loc, thpLacks, func(s string) string {
			choices, chosen := backend.ChoiceList(s)
			if chosen == "" {
				return p.meaning(s)
			}
			return p.meaning(chosen) + " (choices: " + strings.Join(choices, " ") + ")"
		})
		if err != nil {
			return nil, err
		}
		if it.Raw != nil && !it.Raw.IsAbsent() {
			if w, err := backend.ChosenWord(it.Raw.String()); err == nil {
				it.Value = w
			}
		}
		it.Target = p.key
		r.Items = append(r.Items, it)
	}
	return r, nil
}

// Plan changes each part asked for whose word in force differs.
func (k thp) Plan(env *Env, sel Selector, value string) (*Plan, error) {
	req, err := parseTHP(value)
	if err != nil {
		return nil, err
	}
	p := &Plan{Knob: k.Name(), Request: value}
	for _, part := range thpParts {
		w := req[part.key]
		if w == "" {
			continue
		}
		if err := mustExist(env, part.loc, thpLacks); err != nil {
			return nil, err
		}
		s, _, err := readText(env, part.loc)
		if err != nil {
			return nil, err
		}
		choices, chosen := backend.ChoiceList(s)
		if chosen == w || (chosen == "" && s == w) {
			continue
		}
		if chosen != "" && !contains(choices, w) {
			return nil, fmt.Errorf("nothing was changed: this kernel's %s offers %s, not %s", part.loc, strings.Join(choices, " "), w)
		}
		// Plan the file as the kernel will show it, so a value found
		// after a write cut short by a crash compares as latlab's own;
		// the backend writes only the bracketed word.
		v := backend.FileValue(w + "\n")
		if chosen != "" {
			list, err := backend.MoveBracket(s, w)
			if err != nil {
				return nil, err
			}
			v = backend.FileValue(string(list) + "\n") // s is trimmed
		}
		if err := p.add(env, part.loc, v); err != nil {
			return nil, err
		}
	}
	return p, nil
}

// Vet accepts the two files, holding a word of their choices or the list
// the kernel shows with one of them bracketed.
func (k thp) Vet(target string, l backend.Loc, v backend.Value) error {
	if err := noTarget(k.Name(), target); err != nil {
		return err
	}
	for _, p := range thpParts {
		if l != p.loc {
			continue
		}
		s, err := fileText(v)
		if err != nil {
			return err
		}
		words := strings.Fields(s)
		if len(words) > 1 {
			// The list as read: every word a choice, one bracketed.
			if strings.Count(s, "[") != 1 {
				return fmt.Errorf("%q: not a list with one choice bracketed", s)
			}
			for i, w := range words {
				words[i] = strings.TrimSuffix(strings.TrimPrefix(w, "["), "]")
			}
		}
		for _, w := range words {
			if !contains(p.choices, w) {
				return fmt.Errorf("%q is not a %s choice (%s)", w, p.key, strings.Join(p.choices, " "))
			}
		}
		return nil
	}
	return notMine(k.Name(), target, l)
}

var thpRefs = []Reference{
	tunedRef("network-latency", "vm", "transparent_hugepages", "never"),
	tunedRef("hpc-compute", "vm", "transparent_hugepages", "always"),
	tunedRef("postgresql", "vm", "transparent_hugepages", "never"),
}

// Checkup is what the check-up knows of transparent-hugepages: one
// finding for enabled, one for defrag.
func (thp) Checkup() Checkup {
	return Checkup{
		Default: func(c *Case) string {
			if c.Target == "defrag" {
				return "madvise"
			}
			return "always or madvise (the kernel's build option)"
		},
		Rules: thpRules, References: thpRefs,
	}
}

// Experiment is how a change takes effect for latlab try: at once for new
// faults, but no probe of try faults in memory, so none shows it.
func (thp) Experiment() Experiment {
	return Experiment{Scope: ScopeSystem, Settle: DefaultSettle,
		Unprobed: "it changes the page faults and compaction stalls of programs that fault in memory, and no probe of try does while it measures: compare the workload's runs (thp_fault_alloc, compact_stall in /proc/vmstat)"}
}

func thpIs(target, word string) func(c *Case) bool {
	return func(c *Case) bool { return c.Target == target && c.Value == word }
}

var thpRules = []Rule{
	absentRule("thp-absent"),
	{ID: "thp-never", Verdict: Changed, When: "enabled is never",
		Match: thpIs("enabled", "never"),
		Reason: func(c *Case) string {
			return "off, as " + thpRefs[0].Cite() + ": no 2 MiB faults, collapsing or compaction stalls; costs TLB misses (throughput) for large working sets"
		}},
	{ID: "thp-always", Verdict: Suspicious, When: "enabled is always",
		Match: thpIs("enabled", "always"),
		Reason: func(c *Case) string {
			return "every process gets huge pages: 2 MiB faults, khugepaged collapsing and compaction stalls; " + thpRefs[0].Cite() + " (" + thpRefs[1].Cite() + " for throughput)"
		},
		Next: func(c *Case) *NextStep {
			return &NextStep{Command: "latlab knob set transparent-hugepages never", Why: "transparent huge pages are on for every process (applies to new faults at once; latlab knob revert transparent-hugepages undoes it)", Benefit: 30}
		}},
	{ID: "thp-madvise", Verdict: Default, When: "enabled is madvise",
		Match: thpIs("enabled", "madvise"),
		Reason: func(c *Case) string {
			return "only applications that ask get huge pages; " + thpRefs[0].Cite() + " to rule them out entirely"
		},
		IsDefault: func(*Case) *bool { return nil }},
	{ID: "thp-defrag-always", Verdict: Suspicious, When: "defrag is always",
		Match: thpIs("defrag", "always"),
		Reason: func(c *Case) string {
			return "a fault with no free huge page stalls to reclaim and compact memory itself; the default, madvise, does that only for regions that ask"
		},
		Next: func(c *Case) *NextStep {
			return &NextStep{Command: "latlab knob set transparent-hugepages defrag=madvise", Why: "page faults stall to compact memory (latlab knob revert transparent-hugepages undoes it)", Benefit: 30}
		}},
	{ID: "thp-defrag-default", Verdict: Default, When: "defrag is madvise",
		Match:  thpIs("defrag", "madvise"),
		Reason: func(c *Case) string { return c.Meaning }},
	{ID: "thp-set", Verdict: Changed, When: "any other choice",
		Match:  always,
		Reason: func(c *Case) string { return c.Meaning }},
}
