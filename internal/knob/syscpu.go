package knob

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/latlab/latlab/internal/badinput"
	"github.com/latlab/latlab/internal/cpuset"
	"github.com/latlab/latlab/internal/knob/backend"
	"github.com/latlab/latlab/internal/knob/journal"
)

// What the per-CPU knobs of /sys/devices/system/cpu (cpufreq, cpuidle,
// the energy hints) share: which CPUs there are, which of them --cpu
// selects, the target a plan names them by, and the grouping of CPUs
// that read the same so a reading of 64 CPUs stays a few lines.

const sysCPUDir = "sys/devices/system/cpu"

// cpuLoc is a file of CPU n: rest is the path below cpuN ("cpufreq/scaling_governor").
func cpuLoc(n int, rest string) backend.Loc {
	return fileLoc(sysCPUDir + "/cpu" + strconv.Itoa(n) + "/" + rest)
}

// cpuOfLoc splits a per-CPU file's location into its CPU and the path
// below cpuN; ok is false for anything else.
func cpuOfLoc(l backend.Loc) (n int, rest string, ok bool) {
	if l.Backend != backend.BackendFile || l.Name != "" {
		return 0, "", false
	}
	p, ok := strings.CutPrefix(l.Path, sysCPUDir+"/cpu")
	if !ok {
		return 0, "", false
	}
	num, rest, ok := strings.Cut(p, "/")
	if !ok || num == "" || len(num) > 4 || (len(num) > 1 && num[0] == '0') {
		return 0, "", false
	}
	n, err := strconv.Atoi(num)
	if err != nil || n < 0 || n > cpuset.MaxCPU {
		return 0, "", false
	}
	return n, rest, true
}

// sysCPUs lists the CPUs under /sys/devices/system/cpu (cpu0, cpu1...),
// ascending; with list (the --cpus selector) only those, each of which
// must exist.
func sysCPUs(env *Env, list string) ([]int, error) {
	dirs, _, err := env.list(backend.BackendFile, sysCPUDir)
	if err != nil && !errors.Is(err, backend.ErrNotFound) {
		return nil, fmt.Errorf("list CPUs: %w", err)
	}
	var cpus []int
	for _, d := range dirs {
		if n, _, ok := cpuOfLoc(fileLoc(sysCPUDir + "/" + d + "/x")); ok {
			cpus = append(cpus, n)
		}
	}
	slices.Sort(cpus)
	if list == "" {
		return cpus, nil
	}
	want, err := cpuset.ParseList(list)
	if err != nil || len(want) == 0 {
		return nil, badinput.Errorf("invalid --cpus %q: accepted a CPU list, e.g. 0-3,8", list)
	}
	for _, c := range want {
		if !slices.Contains(cpus, c) {
			return nil, badinput.Errorf("no CPU %d under /sys/devices/system/cpu: accepted CPUs %s", c, cpuset.FormatList(cpus))
		}
	}
	return want, nil
}

// cpuTarget is the target a plan names its CPUs by: "" for every CPU,
// "cpu LIST" for those --cpus chose.
func cpuTarget(list string, cpus []int) string {
	if list == "" {
		return ""
	}
	return "cpu " + cpuset.FormatList(cpus)
}

// vetCPUTarget checks that l is a file of a CPU the target names (every
// CPU for ""), and returns the path below cpuN.
func vetCPUTarget(knob, target string, l backend.Loc) (string, error) {
	n, rest, ok := cpuOfLoc(l)
	if !ok {
		return "", notMine(knob, target, l)
	}
	if target == "" {
		return rest, nil
	}
	list, ok := strings.CutPrefix(target, "cpu ")
	cpus, err := cpuset.ParseList(list)
	if !ok || err != nil || len(cpus) == 0 {
		return "", fmt.Errorf("%s target %q is not cpu LIST", knob, target)
	}
	if !slices.Contains(cpus, n) {
		return "", notMine(knob, target, l)
	}
	return rest, nil
}

// cpuGroup is CPUs that read the same, in the order first seen.
type cpuGroup[T any] struct {
	CPUs []int
	Val  T
}

// groupCPUs puts CPUs with the same key together, keeping the order of
// each group's first CPU.
func groupCPUs[T any](cpus []int, val func(int) T, key func(T) string) []cpuGroup[T] {
	var gs []cpuGroup[T]
	idx := map[string]int{}
	for _, c := range cpus {
		v := val(c)
		k := key(v)
		if i, ok := idx[k]; ok {
			gs[i].CPUs = append(gs[i].CPUs, c)
			continue
		}
		idx[k] = len(gs)
		gs = append(gs, cpuGroup[T]{CPUs: []int{c}, Val: v})
	}
	return gs
}

// cpusName names a group of CPUs: "cpu 3", "cpu 0-7".
func cpusName(cpus []int) string { return "cpu " + cpuset.FormatList(cpus) }

// groupItem is a reading item for the file rest of a group of CPUs: the
// first CPU's file is the item's, the others' are Extra (export writes
// them all).
func groupItem(target string, cpus []int, rest string, v backend.Value, meaning string) Item {
	it := item(target, cpuLoc(cpus[0], rest), v, meaning)
	for _, c := range cpus[1:] {
		it.Extra = append(it.Extra, Change{Loc: cpuLoc(c, rest), Old: v, New: v})
	}
	return it
}

// sysfsWord checks a value that is one word of a sysfs choice list (a
// governor, an energy preference): letters, digits, _ and -.
func sysfsWord(v backend.Value) (string, error) {
	s, err := fileText(v)
	if err != nil {
		return "", err
	}
	if len(s) > 64 || strings.ContainsFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-')
	}) {
		return "", fmt.Errorf("%q is not one word of a sysfs choice list", s)
	}
	return s, nil
}

// cpufreqPolicies keeps one CPU of each cpufreq policy among cpus: the
// CPUs of a policy (related_cpus) share its files, so a write through one
// sets them all, and a second entry for the same file would see the
// first one's revert as someone else's change. It says which CPUs
// outside cpus a write changes too.
func cpufreqPolicies(env *Env, cpus []int) (lead []int, notes []string) {
	covered := map[int]bool{}
	for _, c := range cpus {
		if covered[c] {
			continue
		}
		lead = append(lead, c)
		s, _, err := readText(env, cpuLoc(c, "cpufreq/related_cpus"))
		rel, perr := cpuset.ParseList(s)
		if err != nil || perr != nil || len(rel) == 0 {
			continue
		}
		var outside []int
		for _, r := range rel {
			covered[r] = true
			if !slices.Contains(cpus, r) {
				outside = append(outside, r)
			}
		}
		if len(outside) > 0 {
			notes = append(notes, fmt.Sprintf("CPU %d shares its frequency policy with CPUs %s (related_cpus): the write changes them too", c, cpuset.FormatList(outside)))
		}
	}
	return lead, notes
}

// matchCPUs narrows match to the entries of the per-CPU files of the
// CPUs of list (revert --cpu).
func matchCPUs(list string, match func(*journal.Entry) bool) (func(*journal.Entry) bool, error) {
	cpus, err := cpuset.ParseList(list)
	if err != nil || len(cpus) == 0 {
		return nil, badinput.Errorf("invalid --cpus %q: accepted a CPU list, e.g. 0-3,8", list)
	}
	return func(e *journal.Entry) bool {
		n, _, ok := cpuOfLoc(e.Loc)
		return ok && slices.Contains(cpus, n) && match(e)
	}, nil
}
