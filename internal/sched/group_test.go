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

// latlab's number of processor n of group g counts the active processors
// of the groups before g, which is g*64+n only when they are full.
func TestCPUOf(t *testing.T) {
	tests := []struct {
		name          string
		groups        []int
		group, number int
		cpu           int
		errMatch      string
	}{
		{"40+40: group 1 first", []int{40, 40}, 1, 0, 40, ""},
		{"40+40: group 1 last", []int{40, 40}, 1, 39, 79, ""},
		{"40+40: past group 1", []int{40, 40}, 1, 40, 0, "group 1 has 40 active processors"},
		{"64+16", []int{64, 16}, 1, 15, 79, ""},
		{"64+16: group 0 last", []int{64, 16}, 0, 63, 63, ""},
		{"64+16: past group 1", []int{64, 16}, 1, 16, 0, "group 1 has 16 active processors"},
		{"empty second group", []int{40, 0}, 0, 39, 39, ""},
		{"empty second group: none there", []int{40, 0}, 1, 0, 0, "group 1 has 0 active processors"},
		{"empty first group", []int{0, 40}, 1, 0, 0, ""},
		{"empty middle group", []int{64, 0, 8}, 2, 7, 71, ""},
		{"no such group", []int{64}, 1, 0, 0, "there is no processor group 1"},
		{"negative group", []int{64}, -1, 0, 0, "there is no processor group -1"},
		{"negative number", []int{64}, 0, -1, 0, "group 0 has 64 active processors"},
		{"group too big", []int{65, 1}, 1, 0, 0, "processor group 0 reports 65 processors"},
	}
	for _, tt := range tests {
		cpu, err := CPUOf(tt.group, tt.number, tt.groups)
		if tt.errMatch != "" {
			if err == nil || !strings.Contains(err.Error(), tt.errMatch) {
				t.Errorf("%s: %d,%d of %v: %d %v, want error %q", tt.name, tt.group, tt.number, tt.groups, cpu, err, tt.errMatch)
			}
			continue
		}
		if err != nil || cpu != tt.cpu {
			t.Errorf("%s: %d,%d of %v: %d %v, want %d", tt.name, tt.group, tt.number, tt.groups, cpu, err, tt.cpu)
		}
	}
}

// ProcessorOf and CPUOf are inverses over every CPU of each arrangement,
// and GroupLabel writes the pair.
func TestProcessorOfRoundTrip(t *testing.T) {
	for _, groups := range [][]int{{8}, {64, 64}, {40, 40}, {64, 16}, {40, 0}, {0, 40}, {64, 0, 8}, {36, 36, 36, 36}} {
		total := 0
		for _, n := range groups {
			total += n
		}
		for cpu := range total {
			g, n, err := ProcessorOf(cpu, groups)
			if err != nil {
				t.Fatalf("%v: cpu %d: %v", groups, cpu, err)
			}
			back, err := CPUOf(g, n, groups)
			if err != nil || back != cpu {
				t.Fatalf("%v: cpu %d -> %d,%d -> %d %v", groups, cpu, g, n, back, err)
			}
		}
		if _, _, err := ProcessorOf(total, groups); err == nil {
			t.Errorf("%v: cpu %d accepted", groups, total)
		}
	}
	if l := GroupLabel(45, []int{40, 40}); l != "1,5" {
		t.Errorf("label of 45 on 40+40: %q", l)
	}
	if l := GroupLabel(80, []int{40, 40}); l != "" {
		t.Errorf("label of a CPU beyond the machine: %q", l)
	}
}

func TestNodeCPU(t *testing.T) {
	tests := []struct {
		name        string
		nodeOf      []int
		node, index int
		cpu         int
		fails       bool
	}{
		{"one node", []int{0, 0, 0, 0}, 0, 3, 3, false},
		{"two nodes in one group", []int{0, 0, 1, 1}, 1, 0, 2, false},
		{"node = group, 40+40", append(make([]int, 40), []int{1, 1, 1}...), 1, 2, 42, false},
		{"interleaved", []int{0, 1, 0, 1}, 1, 1, 3, false},
		{"past the node", []int{0, 0, 1, 1}, 1, 2, 0, true},
		{"no such node", []int{0, 0}, 1, 0, 0, true},
		{"negative index", []int{0, 0}, 0, -1, 0, true},
		{"no nodes", nil, 0, 0, 0, true},
	}
	for _, tt := range tests {
		cpu, err := NodeCPU(tt.node, tt.index, tt.nodeOf)
		if (err != nil) != tt.fails || err == nil && cpu != tt.cpu {
			t.Errorf("%s: %d,%d: %d %v, want %d fails %v", tt.name, tt.node, tt.index, cpu, err, tt.cpu, tt.fails)
		}
	}
}

func TestNumberingNote(t *testing.T) {
	tests := []struct {
		groups []int
		want   string
	}{
		{[]int{8}, ""},
		{[]int{64, 0}, ""},
		{[]int{40, 40}, "CPUs 0-39 are 0,0-0,39; CPUs 40-79 are 1,0-1,39 (Windows' group,number)"},
		{[]int{64, 1}, "CPUs 0-63 are 0,0-0,63; CPU 64 is 1,0 (Windows' group,number)"},
		{[]int{64, 0, 16}, "CPUs 0-63 are 0,0-0,63; CPUs 64-79 are 2,0-2,15"},
	}
	for _, tt := range tests {
		got := NumberingNote(tt.groups)
		if tt.want == "" && got != "" || tt.want != "" && !strings.Contains(got, tt.want) {
			t.Errorf("%v: %q, want %q", tt.groups, got, tt.want)
		}
	}
}
