package knob

import (
	"strconv"
	"strings"

	"github.com/latlab/latlab/internal/knob/backend"
)

// What the memory-management knobs (/proc/sys/vm, /proc/sys/kernel,
// /sys/kernel/mm) share: a setting file a kernel may lack (built without
// the feature), read as a plain "absent" rather than an error, and the
// kernel release some values need.

// sysItem reads one setting file as a reading item; an absent file is an
// item that says what its absence shows (absence.go: this kernel lacks
// the feature lacks names, with its build option, or the tree does not
// show it), never an error that stops the check-up.
func sysItem(env *Env, l backend.Loc, lacks string, meaning func(string) string) (Item, error) {
	s, v, err := readText(env, l)
	if err != nil {
		return Item{}, err
	}
	if v.IsAbsent() {
		return absentItem(env, l, v, lacks, "")
	}
	return item("", l, v, meaning(s)), nil
}

// mustExist refuses a plan for an absent setting file: such a file
// cannot be created, so there is nothing to set; the refusal says what
// the absence shows.
func mustExist(env *Env, l backend.Loc, lacks string) error {
	v, err := env.read(l)
	if err != nil {
		return err
	}
	if v.IsAbsent() {
		return absentError(env, l, lacks, l.String())
	}
	return nil
}

// absentRule is the check-up's rule for a setting file the kernel lacks:
// nothing to tune, and whether that is the default cannot be told. A file
// a tree does not show (Case.NotShown) never reaches it: the check-up's
// generic rule not-shown comes first and judges nothing.
func absentRule(id string) Rule {
	return Rule{ID: id, Verdict: Default, When: "the kernel has no such file",
		Match:     func(c *Case) bool { return c.Raw.IsAbsent() },
		Reason:    func(c *Case) string { return c.Meaning + "; nothing to tune" },
		IsDefault: func(*Case) *bool { return nil }}
}

var osreleaseLoc = fileLoc("proc/sys/kernel/osrelease")

// kernelBelow reports whether the running kernel's release is known and
// older than major.minor (a --root tree without osrelease is not).
func kernelBelow(env *Env, major, minor int) bool {
	s, v, err := readText(env, osreleaseLoc)
	if err != nil || v.IsAbsent() {
		return false
	}
	maj, rest, ok := strings.Cut(s, ".")
	if !ok {
		return false
	}
	mi := rest
	if i := strings.IndexFunc(rest, func(r rune) bool { return r < '0' || r > '9' }); i >= 0 {
		mi = rest[:i]
	}
	a, err1 := strconv.Atoi(maj)
	b, err2 := strconv.Atoi(mi)
	if err1 != nil || err2 != nil {
		return false
	}
	return a < major || (a == major && b < minor)
}

// parseIntIn parses a decimal integer in [lo, hi].
func parseIntIn(s string, lo, hi int) (int, bool) {
	n, err := strconv.Atoi(strings.TrimSpace(s))
	if err != nil || n < lo || n > hi {
		return 0, false
	}
	return n, true
}
