package sched

import "testing"

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
