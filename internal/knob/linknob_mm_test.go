package knob

import (
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/latlab/latlab/internal/knob/backend"
	"github.com/latlab/latlab/internal/knob/journal"
	"github.com/latlab/latlab/internal/testutil"
)

// The memory-management knobs (transparent-hugepages, numa-balancing,
// swappiness, stat-interval, ksm) on fixture trees shaped as the kernel
// prints the files.

// mmEnv is an Env over a fixture tree holding files and, as a kernel's
// /proc and /sys do, the directories every kernel has (absence.go).
func mmEnv(t *testing.T, files map[string]string) (*Env, string) {
	t.Helper()
	root := testutil.TempDir(t)
	testutil.WriteTree(t, root, files)
	mkAnchors(t, root)
	return &Env{Backends: map[string]backend.Backend{backend.BackendFile: backend.Files{Root: root}}}, root
}

const (
	thpEnabledFile = "sys/kernel/mm/transparent_hugepage/enabled"
	thpDefragFile  = "sys/kernel/mm/transparent_hugepage/defrag"
)

func thpTree(t *testing.T) (*Env, string) {
	return mmEnv(t, map[string]string{
		thpEnabledFile: "always [madvise] never\n",
		thpDefragFile:  "always defer defer+madvise [madvise] never\n",
	})
}

// The plan's originals are the files as read, the lists: what the
// journal keeps (the conformance suite, linknob_transparent_hugepages_test.go,
// sets and reverts).
func TestTHPPlanKeepsTheList(t *testing.T) {
	env, _ := thpTree(t)
	p, err := plan(env, "transparent-hugepages", Selector{}, "enabled=always,defrag=never")
	if err != nil || len(p.Changes) != 2 {
		t.Fatalf("plan: %+v, %v", p, err)
	}
	for _, ch := range p.Changes {
		if !strings.Contains(ch.Old.String(), "[") {
			t.Errorf("%s: original %q is not the file as read", ch.Loc, ch.Old)
		}
	}
}

// TestTHPJournalWritesTheBareWord: the journal keeps the whole list the
// file showed, and the revert hands the backend that list; what reaches
// the file must be the bare word, as the kernel refuses a list.
func TestTHPJournalWritesTheBareWord(t *testing.T) {
	env, root := thpTree(t)
	k, _ := Lookup("transparent-hugepages")
	p, err := k.Plan(env, Selector{}, "never")
	if err != nil {
		t.Fatal(err)
	}
	dir := testutil.TempDir(t)
	j, err := journal.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	if err := Apply(env, j, p); err != nil {
		t.Fatal(err)
	}
	if got := string(j.Entries[0].Original.Data); got != "always [madvise] never\n" {
		t.Fatalf("journal original %q, want the file as it was", got)
	}
	rec := &recordingBackend{Backend: env.Backends[backend.BackendFile]}
	env.Backends[backend.BackendFile] = rec
	if _, err := Revert(env, j, MatchAll, false); err != nil {
		t.Fatal(err)
	}
	if len(rec.writes) != 1 || rec.writes[0] != "always [madvise] never\n" {
		t.Fatalf("revert wrote %q through the backend", rec.writes)
	}
	// The fixture tree shows what the kernel shows after "madvise".
	if b, _ := os.ReadFile(filepath.Join(root, thpEnabledFile)); string(b) != "always [madvise] never\n" {
		t.Errorf("enabled = %q", b)
	}
	// And a script of the undo writes the bare word too.
	lines, err := Script([]Change{{Loc: thpEnabledLoc, Old: backend.FileValue("always madvise [never]\n"), New: j.Entries[0].Original}}, FormatSh)
	if err != nil {
		t.Fatal(err)
	}
	if s := strings.Join(lines, "\n"); !strings.Contains(s, "printf '%s\\n' 'madvise' > '/sys/kernel/mm/transparent_hugepage/enabled'") {
		t.Errorf("script:\n%s", s)
	}
}

type recordingBackend struct {
	backend.Backend
	writes []string
}

func (r *recordingBackend) Write(l backend.Loc, v backend.Value) error {
	r.writes = append(r.writes, string(v.Data))
	return r.Backend.Write(l, v)
}

func TestTHPGet(t *testing.T) {
	env, _ := thpTree(t)
	r := get(t, env, "transparent-hugepages", Selector{})
	if len(r.Items) != 2 || r.Items[0].Target != "enabled" || r.Items[0].Value != "madvise" || r.Items[1].Target != "defrag" || r.Items[1].Value != "madvise" {
		t.Fatalf("reading %+v", r.Items)
	}
	if !strings.Contains(r.Items[0].Meaning, "choices: always madvise never") {
		t.Errorf("meaning %q", r.Items[0].Meaning)
	}
	// A kernel without THP: a reading that says so, and nothing to set.
	env, _ = mmEnv(t, map[string]string{"proc/sys/vm/swappiness": "60\n"})
	r = get(t, env, "transparent-hugepages", Selector{})
	if len(r.Items) != 2 || r.Items[0].Value != "absent" || !strings.Contains(r.Items[0].Meaning, "CONFIG_TRANSPARENT_HUGEPAGE") {
		t.Fatalf("absent reading %+v", r.Items)
	}
	if _, err := plan(env, "transparent-hugepages", Selector{}, "never"); err == nil || !strings.Contains(err.Error(), "does not exist") {
		t.Errorf("plan on a kernel without THP: %v", err)
	}
}

func TestChoiceFile(t *testing.T) {
	for in, want := range map[string]string{
		"always [madvise] never\n": "madvise",
		"[always] madvise never":   "always",
		"never\n":                  "never",
		" defer+madvise ":          "defer+madvise",
	} {
		if got, err := backend.ChosenWord(in); err != nil || got != want {
			t.Errorf("backend.ChosenWord(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, in := range []string{"", "always madvise", "[always] [never]", "[always", "[]", "a ]b["} {
		if got, err := backend.ChosenWord(in); err == nil {
			t.Errorf("backend.ChosenWord(%q) = %q, want an error", in, got)
		}
	}
	if b, err := backend.MoveBracket("always [madvise] never\n", "never"); err != nil || string(b) != "always madvise [never]\n" {
		t.Errorf("moveBracket = %q, %v", b, err)
	}
	if _, err := backend.MoveBracket("always [madvise] never\n", "defer"); !errors.Is(err, os.ErrInvalid) {
		t.Errorf("moveBracket to a word not listed: %v, want EINVAL as the kernel", err)
	}
	if b, err := backend.MoveBracket("madvise\n", "never"); err != nil || b != nil {
		t.Errorf("moveBracket on a bare word = %q, %v; want nil (the word is written)", b, err)
	}
}

func FuzzChosenWord(f *testing.F) {
	for _, s := range []string{"always [madvise] never\n", "never", "[a] [b]", "a ]b[", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		w, err := backend.ChosenWord(s)
		if err == nil && (w == "" || strings.ContainsAny(w, " \t[]")) {
			t.Fatalf("backend.ChosenWord(%q) = %q", s, w)
		}
		choices, chosen := backend.ChoiceList(s)
		if chosen != "" && !contains(choices, chosen) {
			t.Fatalf("backend.ChoiceList(%q): %q not among %q", s, chosen, choices)
		}
		if b, err := backend.MoveBracket(s, "never"); err == nil && b != nil && !strings.Contains(string(b), "[never]") {
			t.Fatalf("backend.MoveBracket(%q) = %q", s, b)
		}
	})
}

const numaFile = "proc/sys/kernel/numa_balancing"

// numaTree is a machine with nodes NUMA nodes and numa_balancing value.
func numaTree(nodes int, value string) map[string]string {
	files := map[string]string{"sys/devices/system/node/possible": "0\n"}
	for i := 0; i < nodes; i++ {
		files[fmt.Sprintf("sys/devices/system/node/node%d/cpulist", i)] = "0-1\n"
	}
	if value != "" {
		files[numaFile] = value
	}
	return files
}

// What the conformance suite (linknob_numa_balancing_test.go) does not
// ask: the reading counts the nodes, a plan on one node says it does
// nothing there, and a kernel without NUMA balancing is no plan.
func TestNUMABalancingFacts(t *testing.T) {
	env, _ := mmEnv(t, numaTree(2, "1\n"))
	r := get(t, env, "numa-balancing", Selector{})
	if len(r.Items) != 1 || r.Items[0].Value != "1" || r.Items[0].Detail.(numaFacts).Nodes != 2 {
		t.Fatalf("reading %+v", r.Items)
	}
	env, _ = mmEnv(t, numaTree(1, "0\n"))
	p, err := plan(env, "numa-balancing", Selector{}, "1")
	if err != nil || len(p.Notes) == 0 || !strings.Contains(p.Notes[0], "no effect") {
		t.Errorf("one node: %+v, %v", p, err)
	}
	env, _ = mmEnv(t, numaTree(1, ""))
	if _, err := plan(env, "numa-balancing", Selector{}, "0"); err == nil || !strings.Contains(err.Error(), "CONFIG_NUMA_BALANCING") {
		t.Errorf("plan without the file: %v", err)
	}
}

const (
	swappinessFile = "proc/sys/vm/swappiness"
	swapsFile      = "proc/swaps"
	swapsOne       = "Filename\t\t\t\tType\t\tSize\t\tUsed\t\tPriority\n/dev/nvme0n1p3                          partition\t8388604\t\t0\t\t-2\n"
	swapsNone      = "Filename\t\t\t\tType\t\tSize\t\tUsed\t\tPriority\n"
)

// What the conformance suite (linknob_swappiness_test.go) does not ask:
// the reading counts the swap areas for the check-up, and a kernel
// without the file is no plan.
func TestSwappinessSwapFacts(t *testing.T) {
	env, _ := mmEnv(t, map[string]string{swappinessFile: "60\n", swapsFile: swapsOne})
	r := get(t, env, "swappiness", Selector{})
	if len(r.Items) != 1 || r.Items[0].Value != "60" || r.Items[0].Detail.(swapFacts).Devices != 1 {
		t.Fatalf("reading %+v", r.Items)
	}
	env, _ = mmEnv(t, map[string]string{swapsFile: swapsNone})
	if _, err := plan(env, "swappiness", Selector{}, "10"); err == nil || !strings.Contains(err.Error(), "does not exist") {
		t.Errorf("plan without the file: %v", err)
	}
}

const statIntervalFile = "proc/sys/vm/stat_interval"

// What the conformance suite (linknob_stat_interval_test.go) does not
// ask: an original of 0, which Plan refuses, is still one Revert may put
// back, and the try value after a long interval is the default.
func TestStatIntervalOriginalAndTry(t *testing.T) {
	k, _ := Lookup("stat-interval")
	if err := k.Vet("", statIntervalLoc, backend.FileValue("0\n")); err != nil {
		t.Errorf("Vet refused an original the kernel can hold: %v", err)
	}
	if v := k.Checkup().TryValue(&Case{}, "stat-interval-long"); v != "1" {
		t.Errorf("try value %q, want the default 1", v)
	}
}

const ksmRunFile = "sys/kernel/mm/ksm/run"

func ksmTree(run, sharing string) map[string]string {
	files := map[string]string{
		"sys/kernel/mm/ksm/pages_shared":    "120\n",
		"sys/kernel/mm/ksm/pages_sharing":   sharing,
		"sys/kernel/mm/ksm/sleep_millisecs": "20\n",
		"sys/kernel/mm/ksm/pages_to_scan":   "100\n",
		"sys/kernel/mm/ksm/full_scans":      "7\n",
	}
	if run != "" {
		files[ksmRunFile] = run
	}
	return files
}

// What the conformance suite (linknob_ksm_test.go) does not ask: the
// reading's facts and notes, the context read but never named, what the
// plans say of merged pages, a kernel without KSM.
func TestKSMFacts(t *testing.T) {
	env, _ := mmEnv(t, ksmTree("1\n", "2560\n"))
	r := get(t, env, "ksm", Selector{})
	if len(r.Items) != 1 || r.Items[0].Value != "1" {
		t.Fatalf("reading %+v", r.Items)
	}
	f := r.Items[0].Detail.(ksmFacts)
	if f.PagesShared != 120 || f.PagesSharing != 2560 || f.SleepMillisecs != 20 || f.PagesToScan != 100 {
		t.Errorf("facts %+v", f)
	}
	if len(r.Notes) != 1 || !strings.Contains(r.Notes[0], "pages_sharing 2560") || !strings.Contains(r.Notes[0], "sleeps 20 ms") {
		t.Errorf("notes %q", r.Notes)
	}
	// The context is read, never written: not even an export names it.
	for _, it := range r.Items {
		if it.Loc.Path != ksmRunFile {
			t.Errorf("an item of %s", it.Loc)
		}
	}
	p, err := plan(env, "ksm", Selector{}, "unmerge")
	if err != nil || len(p.Notes) != 1 || !strings.Contains(p.Notes[0], "2560 shared pages") || len(p.Warnings) != 0 {
		t.Errorf("plan of 2 from 1: notes %q warnings %q, %v", p.Notes, p.Warnings, err)
	}
	// From 0 with merged pages, a revert of 2 cannot merge them again.
	env, _ = mmEnv(t, ksmTree("0\n", "2560\n"))
	p, err = plan(env, "ksm", Selector{}, "2")
	if err != nil || len(p.Warnings) != 1 || !strings.Contains(p.Warnings[0], "does not merge the pages again") {
		t.Errorf("plan of 2 from 0: warnings %q, %v", p.Warnings, err)
	}
	// A kernel without KSM.
	env, _ = mmEnv(t, map[string]string{swappinessFile: "60\n"})
	if r := get(t, env, "ksm", Selector{}); r.Items[0].Value != "absent" || len(r.Notes) != 0 {
		t.Errorf("absent: %+v", r)
	}
	if _, err := plan(env, "ksm", Selector{}, "2"); err == nil || !strings.Contains(err.Error(), "CONFIG_KSM") {
		t.Errorf("plan without KSM: %v", err)
	}
}

// mmFiles is a machine with every file of the memory-management knobs.
func mmFiles() map[string]string {
	files := map[string]string{
		thpEnabledFile:                          "always [madvise] never\n",
		thpDefragFile:                           "always defer defer+madvise [madvise] never\n",
		numaFile:                                "1\n",
		"sys/devices/system/node/node0/cpulist": "0\n",
		"sys/devices/system/node/node1/cpulist": "1\n",
		swappinessFile:                          "60\n",
		swapsFile:                               swapsOne,
		statIntervalFile:                        "1\n",
	}
	maps.Copy(files, ksmTree("1\n", "2560\n"))
	return files
}

// TestMMCrashEverywhere: a crash after any write of a set or a revert of
// these knobs loses nothing; a revert after it restores every file byte
// for byte, the choice files included.
func TestMMCrashEverywhere(t *testing.T) {
	steps := []setStep{
		{"transparent-hugepages", Selector{}, "enabled=never,defrag=defer"},
		{"numa-balancing", Selector{}, "0"},
		{"swappiness", Selector{}, "10"},
		{"stat-interval", Selector{}, "10"},
		{"ksm", Selector{}, "2"},
		{"transparent-hugepages", Selector{}, "always"},
	}
	crashEverywhere(t, steps, func(t *testing.T) (*Env, func() map[string]string) {
		env, root := mmEnv(t, mmFiles())
		return env, func() map[string]string { return snapshotTree(t, root) }
	})
}
