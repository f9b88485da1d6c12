package knob

import (
	"fmt"
	"math"
	"strconv"

	"github.com/latlab/latlab/internal/knob/backend"
)

// What the scheduler, watchdog and busy-polling sysctl knobs share: a
// /proc/sys file that holds one integer, which some kernels lack (built
// without the feature), read as a plain "absent" rather than an error.

// sysctlInt reads a one-integer sysctl file: ok false when the kernel
// lacks it; err only when it cannot be read or holds no integer.
func sysctlInt(env *Env, l backend.Loc) (n int64, v backend.Value, ok bool, err error) {
	s, v, err := readText(env, l)
	if err != nil {
		return 0, v, false, err
	}
	if v.IsAbsent() {
		return 0, v, false, nil
	}
	n, err = strconv.ParseInt(s, 10, 64)
	if err != nil {
		return 0, v, false, fmt.Errorf("%s holds %q, not an integer", l, s)
	}
	return n, v, true, nil
}

// sysctlName is a /proc/sys file as sysctl(8) names it:
// proc/sys/kernel/nmi_watchdog is kernel.nmi_watchdog.
func sysctlName(l backend.Loc) string {
	const pre = "proc/sys/"
	p := l.Path
	if len(p) > len(pre) && p[:len(pre)] == pre {
		p = p[len(pre):]
	}
	b := []byte(p)
	for i, c := range b {
		if c == '/' {
			b[i] = '.'
		}
	}
	return string(b)
}

// vetSysctlInt checks a value a one-integer sysctl file can hold: an
// integer in [lo, hi] on one line.
func vetSysctlInt(v backend.Value, lo, hi int64) error {
	s, err := fileText(v)
	if err != nil {
		return err
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return fmt.Errorf("%q is not an integer", s)
	}
	if n < lo || n > hi {
		return fmt.Errorf("%d is outside %d..%d", n, lo, hi)
	}
	return nil
}

// sysctlIntMax is the largest value of a C int sysctl (INT_MAX).
const sysctlIntMax = math.MaxInt32

// sysctlAbsentItem is the reading item of an absent sysctl file, which
// names the sysctl: "kernel.x does not exist: this kernel has no ...",
// or that the tree does not show it (absence.go).
func sysctlAbsentItem(env *Env, l backend.Loc, v backend.Value, lacks string) (Item, error) {
	return absentItem(env, l, v, lacks, sysctlName(l))
}

// sysctlAbsentError refuses a plan for an absent sysctl file.
func sysctlAbsentError(env *Env, l backend.Loc, lacks string) error {
	return absentError(env, l, lacks, sysctlName(l))
}
