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
			return nil, fmt.Errorf("%q is not a CPU list: accepted CPU numbers and ranges from 0 to %d, e.g. 0-3,8", clip(s), MaxCPU)
		}
		b := a
		if isRange {
			if b, err = strconv.Atoi(hi); err != nil || b < a {
				return nil, fmt.Errorf("%q is not a CPU list (bad range %q): accepted CPU numbers and ranges from 0 to %d, e.g. 0-3,8", clip(s), part, MaxCPU)
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

// ParseMask reads a hex CPU mask, most significant digit first, in either
// of the spellings people use: Linux's comma-separated 32-bit groups of one
// to eight digits ("00000100,00000001", as sysfs prints masks above 32
// CPUs) or one run of digits of any width ("10000000001", as a mask is
// typed and as printf %x writes it). A leading 0x or 0X is accepted. A bit
// above MaxCPU is refused.
func ParseMask(s string) ([]int, error) {
	s = strings.TrimSpace(s)
	if len(s) > 2 && (s[:2] == "0x" || s[:2] == "0X") {
		s = s[2:]
	}
	groups := []string{s}
	if strings.Contains(s, ",") {
		groups = strings.Split(s, ",")
		for _, g := range groups {
			if g == "" || len(g) > 8 {
				return nil, fmt.Errorf("CPU mask %q: group %q is not 1-8 hex digits (Linux groups masks by 32 bits)", clip(s), clip(g))
			}
		}
	} else if s == "" {
		return nil, fmt.Errorf("empty CPU mask: accepted hex digits such as f or 00000001,0000000f")
	}
	var out []int
	base := 0 // the CPU of the lowest bit of the group being read
	for gi := len(groups) - 1; gi >= 0; gi-- {
		g := groups[gi]
		for i := len(g) - 1; i >= 0; i-- {
			d := hexDigit(g[i])
			if d < 0 {
				return nil, fmt.Errorf("CPU mask %q: %q is not a hex digit", clip(s), g[i])
			}
			cpu := base + 4*(len(g)-1-i)
			for bit := 0; bit < 4; bit++ {
				if d&(1<<bit) == 0 {
					continue
				}
				if cpu+bit > MaxCPU {
					return nil, fmt.Errorf("CPU mask %q sets CPU %d, beyond any machine (max %d)", clip(s), cpu+bit, MaxCPU)
				}
				out = append(out, cpu+bit)
			}
		}
		if len(groups) > 1 {
			base += 32
		} else {
			base += 4 * len(g)
		}
	}
	return out, nil // ascending: read from the lowest digit up
}

func hexDigit(c byte) int {
	switch {
	case '0' <= c && c <= '9':
		return int(c - '0')
	case 'a' <= c && c <= 'f':
		return int(c-'a') + 10
	case 'A' <= c && c <= 'F':
		return int(c-'A') + 10
	}
	return -1
}

// FormatMask writes cpus as a hex mask laid out like like (a mask the
// kernel printed: the same number of digits, and comma-separated 32-bit
// groups when like has them), so a file written with it reads back exactly
// as the kernel would print it. A mask wider than 32 bits is always written
// in groups, the only form the kernel's bitmap_parse accepts for it; like
// may be empty, and a 0x prefix on it is ignored.
func FormatMask(cpus []int, like string) string {
	n := new(big.Int)
	for _, c := range cpus {
		n.SetBit(n, c, 1)
	}
	h := n.Text(16)
	like = strings.TrimSpace(like)
	if len(like) > 2 && (like[:2] == "0x" || like[:2] == "0X") {
		like = like[2:]
	}
	if w := len(strings.ReplaceAll(like, ",", "")); len(h) < w {
		h = strings.Repeat("0", w-len(h)) + h
	}
	if !strings.Contains(like, ",") && len(h) <= 8 {
		return h
	}
	var groups []string
	for len(h) > 8 {
		groups = append([]string{h[len(h)-8:]}, groups...)
		h = h[:len(h)-8]
	}
	h = strings.Repeat("0", 8-len(h)) + h
	return strings.Join(append([]string{h}, groups...), ",")
}

func clip(s string) string {
	if len(s) > 40 {
		return s[:40] + "..."
	}
	return s
}
