package sched

import (
	"strings"
	"testing"
)

// CPU 64 and above are in the second group and later: the old mask
// 1<<cpu was 0 (or another CPU) for them.
func TestGroupOf(t *testing.T) {
	two := []int{64, 64}
	uneven := []int{40, 40, 8} // groups are not always full
	tests := []struct {
		cpu      int
		groups   []int
		group    int
		mask     uint64
		errMatch string
	}{
		{0, two, 0, 1, ""},
		{63, two, 0, 1 << 63, ""},
		{64, two, 1, 1, ""},
		{65, two, 1, 2, ""},
		{127, two, 1, 1 << 63, ""},
		{128, two, 0, 0, "cpu 128 does not exist: this machine has CPUs 0-127, numbered across its processor groups (0-63 in group 0, 64-127 in group 1)"},
		{39, uneven, 0, 1 << 39, ""},
		{40, uneven, 1, 1, ""},
		{80, uneven, 2, 1, ""},
		{87, uneven, 2, 1 << 7, ""},
		{88, uneven, 0, 0, "0-39 in group 0, 40-79 in group 1, 80-87 in group 2"},
		{-1, two, 0, 0, "cpu -1 does not exist"},
		{5, []int{8}, 0, 1 << 5, ""},
		{8, []int{8}, 0, 0, "cpu 8 does not exist: this machine has CPUs 0-7"},
		{0, []int{65}, 0, 0, "processor group 0 reports 65 processors (at most 64)"},
	}
	for _, tt := range tests {
		g, m, err := GroupOf(tt.cpu, tt.groups)
		if tt.errMatch != "" {
			if err == nil || !strings.Contains(err.Error(), tt.errMatch) {
				t.Errorf("cpu %d of %v: %v, want error %q", tt.cpu, tt.groups, err, tt.errMatch)
			}
			continue
		}
		if err != nil || g != tt.group || m != tt.mask {
			t.Errorf("cpu %d of %v: group %d mask %#x (%v), want group %d mask %#x", tt.cpu, tt.groups, g, m, err, tt.group, tt.mask)
		}
	}
}
