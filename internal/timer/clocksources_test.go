package timer

import (
	"slices"
	"testing"
)

func TestClocksourceTable(t *testing.T) {
	var names []string
	for _, c := range Clocksources {
		if c.Desc == "" {
			t.Errorf("%s: no description", c.Name)
		}
		names = append(names, c.Name)
	}
	if !slices.IsSorted(names) || len(slices.Compact(slices.Clone(names))) != len(names) {
		t.Errorf("names not sorted and unique: %v", names)
	}
	for name, fast := range map[string]bool{"tsc": true, "kvm-clock": true, "arch_sys_counter": true, "hyperv_clocksource_tsc_page": true,
		"hpet": false, "acpi_pm": false, "jiffies": false, "xen": false, "no-such-source": false} {
		if ClocksourceFast(name) != fast {
			t.Errorf("ClocksourceFast(%q) = %v, want %v", name, !fast, fast)
		}
	}
}
