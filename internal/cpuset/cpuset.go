// Package cpuset reads and writes the kernel's two spellings of a set of
// CPUs: lists ("0-3,8", as in smp_affinity_list and taskset -c) and hex
// masks ("00000000,0000000f", as in smp_affinity and rps_cpus).
package cpuset

import (
	"fmt"
	"math/big"
	"slices"
	"strconv"
	"strings"
)

// MaxCPU is the largest CPU number accepted (the kernel's NR_CPUS limit).
const MaxCPU = 8191

// ParseList reads a CPU list. Order and duplicates do not matter; the
// result is ascending. An empty list is an empty set.
func ParseList(s string) ([]int, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return nil, nil
	}
	seen := map[int]bool{}
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		lo, hi, isRange := strings.Cut(part, "-")
		a, err := strconv.Atoi(lo)
		if err != nil || a < 0 {
			return nil, fmt.Errorf("%q is not a CPU list: accepted e.g. 0-3,8", clip(s))
		}
		b := a
		if isRange {
			if b, err = strconv.Atoi(hi); err != nil || b < a {
				return nil, fmt.Errorf("%q is not a CPU list (bad range %q): accepted e.g. 0-3,8", clip(s), part)
			}
		}
		if b > MaxCPU {
			return nil, fmt.Errorf("CPU %d in %q is beyond any machine (max %d)", b, clip(s), MaxCPU)
		}
		for c := a; c <= b; c++ {
			seen[c] = true
		}
	}
	out := make([]int, 0, len(seen))
	for c := range seen {
		out = append(out, c)
	}
	slices.Sort(out)
	return out, nil
}

// FormatList writes ascending CPUs in the kernel's list form, with ranges.
func FormatList(cpus []int) string {
	var b strings.Builder
	for i := 0; i < len(cpus); {
		j := i
		for j+1 < len(cpus) && cpus[j+1] == cpus[j]+1 {
			j++
		}
		if b.Len() > 0 {
			b.WriteByte(',')
		}
		if j > i {
			fmt.Fprintf(&b, "%d-%d", cpus[i], cpus[j])
		} else {
			fmt.Fprintf(&b, "%d", cpus[i])
		}
		i = j + 1
	}
	return b.String()
}

// ParseMask reads a hex CPU mask: comma-separated 32-bit groups of one to
// eight hex digits, most significant first; a leading 0x, as people type
// masks, is accepted.
func ParseMask(s string) ([]int, error) {
	s = strings.TrimSpace(s)
	if len(s) > 2 && (s[:2] == "0x" || s[:2] == "0X") {
		s = s[2:]
	}
	groups := strings.Split(s, ",")
	var out []int
	for gi := len(groups) - 1; gi >= 0; gi-- {
		g := groups[gi]
		if g == "" || len(g) > 8 {
			return nil, fmt.Errorf("CPU mask %q: group %q is not 1-8 hex digits", clip(s), g)
		}
		v, err := strconv.ParseUint(g, 16, 32)
		if err != nil {
			return nil, fmt.Errorf("CPU mask %q: group %q is not hex", clip(s), g)
		}
		base := 32 * (len(groups) - 1 - gi)
		for bit := 0; bit < 32; bit++ {
			if v&(1<<bit) != 0 {
				out = append(out, base+bit)
			}
		}
	}
	return out, nil
}

// FormatMask writes cpus as a hex mask laid out like like (the same number
// of digits and comma-separated groups the kernel printed), so a file
// written with it reads back exactly as the kernel would print it.
func FormatMask(cpus []int, like string) string {
	n := new(big.Int)
	for _, c := range cpus {
		n.SetBit(n, c, 1)
	}
	h := n.Text(16)
	like = strings.TrimSpace(like)
	for len(h) < len(strings.ReplaceAll(like, ",", "")) {
		h = "0" + h
	}
	if !strings.Contains(like, ",") {
		return h
	}
	var groups []string
	for len(h) > 8 {
		groups = append([]string{h[len(h)-8:]}, groups...)
		h = h[:len(h)-8]
	}
	for len(h) < 8 {
		h = "0" + h
	}
	return strings.Join(append([]string{h}, groups...), ",")
}

func clip(s string) string {
	if len(s) > 40 {
		return s[:40] + "..."
	}
	return s
}
