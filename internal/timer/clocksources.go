package timer

// Clocksource is a Linux clock source (current_clocksource) latlab knows.
type Clocksource struct {
	Name string
	Desc string
	// Fast: clock_gettime reads it in user space (vDSO), without a system
	// call; timestamps through any other source cost far more.
	Fast bool
}

// Clocksources are the clock sources latlab knows, by name. The one table
// behind `timer status`'s slow-clocksource warning and the clocksource
// knob's explanations.
var Clocksources = []Clocksource{
	{"acpi_pm", "the ACPI PM timer: slow I/O-port reads (~1 µs), 24/32-bit, a fallback", false},
	{"arch_sys_counter", "the ARM generic timer: read in user space", true},
	{"hpet", "the HPET chipset timer: a slow uncached MMIO read (~0.5-1 µs) and a system call per clock_gettime", false},
	{"hyperv_clocksource_tsc_page", "Hyper-V's reference TSC page: read in user space", true},
	{"jiffies", "the tick counter: resolution of one tick (1-10 ms); never use", false},
	{"kvm-clock", "KVM's paravirtual clock: read in user space; the hypervisor keeps it in step", true},
	{"tsc", "the CPU's time-stamp counter: read in user space (vDSO) in ~20 ns; the best choice when invariant and synchronised", true},
	{"xen", "Xen's paravirtual clock", false},
}

// LookupClocksource finds a clock source by name.
func LookupClocksource(name string) (Clocksource, bool) {
	for _, c := range Clocksources {
		if c.Name == name {
			return c, true
		}
	}
	return Clocksource{}, false
}

// ClocksourceFast reports whether name is a clock source read in user
// space; an unknown one is not.
func ClocksourceFast(name string) bool {
	c, ok := LookupClocksource(name)
	return ok && c.Fast
}
