package sched

import (
	"runtime"
	"testing"
)

func TestParseCPUList(t *testing.T) {
	cases := []struct {
		in   string
		n    int
		want []int
		ok   bool
	}{
		{"0", 4, []int{0}, true},
		{"0,2-3", 4, []int{0, 2, 3}, true},
		{"1-1,1", 2, []int{1}, true},
		{"4", 4, nil, false},
		{"3-1", 4, nil, false},
		{"x", 4, nil, false},
		{"", 4, nil, false},
		{"-1", 4, nil, false},
	}
	for _, c := range cases {
		got, err := ParseCPUList(c.in, c.n)
		if (err == nil) != c.ok {
			t.Errorf("ParseCPUList(%q) err=%v", c.in, err)
			continue
		}
		if c.ok && len(got) != len(c.want) {
			t.Errorf("ParseCPUList(%q) = %v, want %v", c.in, got, c.want)
		}
		for i := range c.want {
			if c.ok && got[i] != c.want[i] {
				t.Errorf("ParseCPUList(%q) = %v, want %v", c.in, got, c.want)
			}
		}
	}
}

func TestParsePriority(t *testing.T) {
	for s, want := range map[string]Priority{"normal": Normal, "HIGH": High, "realtime": Realtime} {
		if p, err := ParsePriority(s); err != nil || p != want {
			t.Errorf("%s: %v %v", s, p, err)
		}
	}
	if _, err := ParsePriority("urgent"); err == nil {
		t.Error("accepted urgent")
	}
}

func TestPinAndPriority(t *testing.T) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	undo, err := PinThread(0)
	if err != nil {
		t.Fatal(err)
	}
	undo()
	if _, err := PinThread(NumCPU()); err == nil {
		t.Fatal("pinned to a CPU that does not exist")
	}
	got, undo, err := ApplyThread(High, 0)
	if err != nil {
		t.Fatal(err)
	}
	undo()
	if got != High {
		t.Errorf("asked for high priority, obtained %s", got)
	}
	if got, undo, err := ApplyThread(Normal, 0); err != nil || got != Normal {
		t.Errorf("normal priority: obtained %s, %v", got, err)
	} else {
		undo()
	}
	if _, _, err := ApplyThread(Realtime, 0); err == nil {
		t.Fatal("rtprio 0 accepted")
	}
}
