package sched

import (
	"errors"
	"runtime"
	"strings"
	"testing"

	"github.com/latlab/latlab/internal/testutil"
	"github.com/latlab/latlab/internal/winapi"
	"golang.org/x/sys/windows"
)

func TestPriorityOfClass(t *testing.T) {
	for cls, want := range map[uint32]Priority{
		realtimePriorityClass: Realtime,
		highPriorityClass:     High,
		0x20:                  Normal, // NORMAL_PRIORITY_CLASS
		0x8000:                Normal, // ABOVE_NORMAL_PRIORITY_CLASS
		0x40:                  Normal, // IDLE_PRIORITY_CLASS
	} {
		if got := priorityOfClass(cls); got != want {
			t.Errorf("class 0x%x: %s, want %s", cls, got, want)
		}
	}
}

// Pinning goes through SetThreadGroupAffinity: the thread lands on the
// CPU asked for and the undo restores its previous group affinity.
func TestPinThreadGroup(t *testing.T) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	groups := processorGroups()
	if len(groups) == 0 || groups[0] < 1 {
		t.Fatalf("processor groups %v", groups)
	}
	cpu := NumCPU() - 1
	undo, err := PinThread(cpu)
	if err != nil {
		t.Fatal(err)
	}
	g, mask, _ := GroupOf(cpu, groups)
	var now winapi.GroupAffinity
	if err := winapi.SetThreadGroupAffinity(windows.CurrentThread(), &winapi.GroupAffinity{Mask: uintptr(mask), Group: uint16(g)}, &now); err != nil {
		t.Fatal(err)
	}
	if now.Group != uint16(g) || now.Mask != uintptr(mask) {
		t.Errorf("pinned to group %d mask %#x, want group %d mask %#x", now.Group, now.Mask, g, mask)
	}
	undo()
	if _, err := PinThread(NumCPU()); err == nil || !strings.Contains(err.Error(), "does not exist: this machine has CPUs 0-") {
		t.Errorf("pin beyond the machine: %v", err)
	}
}

// Every active processor has a NUMA node, one per CPU in latlab's order,
// and a processor past its group's active count has none.
func TestNUMANodes(t *testing.T) {
	groups := ProcessorGroups()
	nodes, err := NUMANodes(groups)
	if err != nil {
		// Wine stubs GetNumaProcessorNodeEx; Windows has it since 7.
		if testutil.UnderWine() && errors.Is(err, windows.ERROR_CALL_NOT_IMPLEMENTED) {
			t.Logf("Wine has no NUMA nodes: %v", err)
			return
		}
		t.Fatal(err)
	}
	total := 0
	for _, n := range groups {
		total += n
	}
	if len(nodes) != total || total == 0 {
		t.Fatalf("%d nodes for groups %v", len(nodes), groups)
	}
	for cpu, nd := range nodes {
		if nd < 0 {
			t.Fatalf("cpu %d: node %d", cpu, nd)
		}
	}
	if groups[0] < maxGroupSize {
		if _, err := NUMANodes([]int{groups[0] + 1}); err == nil {
			t.Errorf("processor %d of group 0 (of %d) has a NUMA node", groups[0], groups[0])
		}
	}
}
