package knob

import (
	"fmt"
	"math/big"
	"sort"
	"strconv"
	"strings"
)

// ParseCPUList reads a kernel CPU list ("0-3,8,10-11"); duplicates and
// order do not matter.
func ParseCPUList(s string) ([]int, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return nil, nil
	}
	set := map[int]bool{}
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		lo, hi, isRange := strings.Cut(part, "-")
		a, err := strconv.Atoi(lo)
		if err != nil || a < 0 {
			return nil, fmt.Errorf("%q is not a CPU list: accepted e.g. 0-3,8", s)
		}
		b := a
		if isRange {
			b, err = strconv.Atoi(hi)
			if err != nil || b < a {
				return nil, fmt.Errorf("%q is not a CPU list: accepted e.g. 0-3,8", s)
			}
		}
		if b > 8191 {
			return nil, fmt.Errorf("CPU %d in %q is beyond any machine (max 8191)", b, s)
		}
		for c := a; c <= b; c++ {
			set[c] = true
		}
	}
	cpus := make([]int, 0, len(set))
	for c := range set {
		cpus = append(cpus, c)
	}
	sort.Ints(cpus)
	return cpus, nil
}

// FormatCPUList writes cpus in the kernel's form: ranges, ascending.
func FormatCPUList(cpus []int) string {
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

// ParseCPUMask reads a kernel hex CPU mask ("3", "00000000,0000000f").
func ParseCPUMask(s string) ([]int, error) {
	h := strings.ReplaceAll(strings.TrimPrefix(strings.TrimSpace(s), "0x"), ",", "")
	if h == "" {
		return nil, fmt.Errorf("empty CPU mask")
	}
	n, ok := new(big.Int).SetString(h, 16)
	if !ok {
		return nil, fmt.Errorf("%q is not a hex CPU mask", s)
	}
	var cpus []int
	for i := 0; i < n.BitLen(); i++ {
		if n.Bit(i) == 1 {
			cpus = append(cpus, i)
		}
	}
	return cpus, nil
}

// FormatCPUMask writes cpus as a hex mask laid out like like (the same
// number of digits and comma-separated 32-bit groups the kernel printed),
// so that the file reads back exactly as written.
func FormatCPUMask(cpus []int, like string) string {
	n := new(big.Int)
	for _, c := range cpus {
		n.SetBit(n, c, 1)
	}
	h := n.Text(16)
	like = strings.TrimSpace(like)
	digits := len(strings.ReplaceAll(like, ",", ""))
	for len(h) < digits {
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
