package sched

import (
	"fmt"
	"strings"
)

// Windows numbers a machine's logical processors within processor groups
// of at most 64: a thread's affinity is one group and a 64-bit mask within
// it (SetThreadGroupAffinity), so CPU 64 is not bit 64 of any mask. latlab
// numbers CPUs across the groups in group order, group 0's first, as Task
// Manager and the per-processor counters do.

// maxGroupSize is the most processors one group holds (a KAFFINITY mask).
const maxGroupSize = 64

// GroupOf returns the processor group of cpu and its mask within the
// group, given the number of active processors of each group in order.
func GroupOf(cpu int, perGroup []int) (group int, mask uint64, err error) {
	if cpu < 0 {
		return 0, 0, fmt.Errorf("cpu %d does not exist: %s", cpu, DescribeGroups(perGroup))
	}
	first := 0
	for g, n := range perGroup {
		if n < 0 || n > maxGroupSize {
			return 0, 0, fmt.Errorf("processor group %d reports %d processors (at most %d)", g, n, maxGroupSize)
		}
		if cpu < first+n {
			return g, uint64(1) << uint(cpu-first), nil
		}
		first += n
	}
	return 0, 0, fmt.Errorf("cpu %d does not exist: %s", cpu, DescribeGroups(perGroup))
}

// DescribeGroups says which CPU numbers exist, and in which group when
// there is more than one.
func DescribeGroups(perGroup []int) string {
	total := 0
	var parts []string
	for g, n := range perGroup {
		if n > 0 {
			parts = append(parts, fmt.Sprintf("%d-%d in group %d", total, total+n-1, g))
		}
		total += n
	}
	if total == 0 {
		return "this machine reports no processors"
	}
	if len(parts) == 1 {
		return fmt.Sprintf("this machine has CPUs 0-%d", total-1)
	}
	return fmt.Sprintf("this machine has CPUs 0-%d, numbered across its processor groups (%s)", total-1, strings.Join(parts, ", "))
}
