package sched

import (
	"fmt"
	"strings"
)

// Windows numbers a machine's logical processors within processor groups
// of at most 64 (PROCESSOR_NUMBER: a group and a number within it): a
// thread's affinity is one group and a 64-bit mask within it
// (SetThreadGroupAffinity), so CPU 64 is not bit 64 of any mask. Groups
// need not be full: Windows may make two groups of 40 of an 80-processor
// machine, or leave room in one for processors added while it runs.
//
// latlab has one numbering for every command: a CPU's number is its place
// in the order of the groups, counting each group's active processors, so
// processor n of group g is the sum of the active processors of groups 0
// to g-1, plus n. That equals g*64+n only when every earlier group holds
// 64. The functions below convert between the two, given the number of
// active processors of each group in group order (GetActiveProcessorCount
// on Windows); they are pure, so the arrangements of machines with several
// groups are tested on any machine.

// maxGroupSize is the most processors one group holds (a KAFFINITY mask).
const maxGroupSize = 64

// ProcessorOf returns the processor group of latlab's CPU cpu and its
// number within the group.
func ProcessorOf(cpu int, perGroup []int) (group, number int, err error) {
	if cpu < 0 {
		return 0, 0, fmt.Errorf("cpu %d does not exist: %s", cpu, DescribeGroups(perGroup))
	}
	first := 0
	for g, n := range perGroup {
		if n < 0 || n > maxGroupSize {
			return 0, 0, fmt.Errorf("processor group %d reports %d processors (at most %d)", g, n, maxGroupSize)
		}
		if cpu < first+n {
			return g, cpu - first, nil
		}
		first += n
	}
	return 0, 0, fmt.Errorf("cpu %d does not exist: %s", cpu, DescribeGroups(perGroup))
}

// GroupOf returns the processor group of cpu and its mask within the
// group, given the number of active processors of each group in order.
func GroupOf(cpu int, perGroup []int) (group int, mask uint64, err error) {
	g, n, err := ProcessorOf(cpu, perGroup)
	if err != nil {
		return 0, 0, err
	}
	return g, uint64(1) << uint(n), nil
}

// CPUOf returns latlab's number of processor number of group group: the
// inverse of ProcessorOf.
func CPUOf(group, number int, perGroup []int) (int, error) {
	if group < 0 || group >= len(perGroup) {
		return 0, fmt.Errorf("processor %d,%d: there is no processor group %d (%d groups)", group, number, group, len(perGroup))
	}
	first := 0
	for g, n := range perGroup[:group+1] {
		if n < 0 || n > maxGroupSize {
			return 0, fmt.Errorf("processor group %d reports %d processors (at most %d)", g, n, maxGroupSize)
		}
		if g < group {
			first += n
		}
	}
	if number < 0 || number >= perGroup[group] {
		return 0, fmt.Errorf("processor %d,%d: group %d has %d active processors", group, number, group, perGroup[group])
	}
	return first + number, nil
}

// GroupLabel is Windows' "group,number" of latlab's CPU cpu ("1,3"), or
// "" when cpu does not exist.
func GroupLabel(cpu int, perGroup []int) string {
	g, n, err := ProcessorOf(cpu, perGroup)
	if err != nil {
		return ""
	}
	return fmt.Sprintf("%d,%d", g, n)
}

// NodeCPU returns the CPU that is processor index of NUMA node node,
// counting the node's processors from 0 in latlab's order; nodeOf holds
// the NUMA node of each CPU. This is how the "Processor Information"
// performance counters name a processor: "node,index" ("1,0": the first
// processor of NUMA node 1), not "group,number".
func NodeCPU(node, index int, nodeOf []int) (int, error) {
	if index >= 0 {
		k := 0
		for cpu, nd := range nodeOf {
			if nd != node {
				continue
			}
			if k == index {
				return cpu, nil
			}
			k++
		}
	}
	return 0, fmt.Errorf("processor %d,%d: NUMA node %d has no processor %d", node, index, node, index)
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

// NumberingNote says, for a result document, how latlab's CPU numbers
// map to Windows' "group,number" on a machine of several processor
// groups; "" with one group, where the two agree.
func NumberingNote(perGroup []int) string {
	total, used := 0, 0
	for _, n := range perGroup {
		if n > 0 {
			used++
		}
	}
	if used < 2 {
		return ""
	}
	var parts []string
	for g, n := range perGroup {
		switch {
		case n == 1:
			parts = append(parts, fmt.Sprintf("CPU %d is %d,0", total, g))
		case n > 1:
			parts = append(parts, fmt.Sprintf("CPUs %d-%d are %d,0-%d,%d", total, total+n-1, g, g, n-1))
		}
		total += n
	}
	return "CPU numbers count the active processors of each processor group in turn, not group*64+number: " +
		strings.Join(parts, "; ") + " (Windows' group,number)"
}
