package probe

import "strconv"

// NoiseCounters are what the OS counted per CPU from just before a noise
// run's threads started to just after they stopped (NoiseOptions.Counters
// reads them; the noisecount package knows the OS's counters).
type NoiseCounters struct {
	// Method says where the counts come from.
	Method string
	PerCPU map[int]NoiseCPUCounts
}

// NoiseCPUCounts are one CPU's counts: the hard interrupts, the softirqs
// (Linux) and the DPCs queued (Windows); nil where the OS has no such
// counter.
type NoiseCPUCounts struct {
	Interrupts, Softirqs, DPCs *NoiseCounts
}

// NoiseCounts are what the OS counted of one kind on a CPU.
type NoiseCounts struct {
	Total int64 `json:"total"`
	// Sources are the rows with a count on the CPU, most first; none
	// where the OS gives one total per CPU (Windows' counters).
	Sources []NoiseCount `json:"sources,omitempty"`
}

// NoiseCount is one source's count: a line of /proc/interrupts (Name
// "38", Label its handlers "virtio2-input.0"; Name "LOC", Label "Local
// timer interrupts") or a vector of /proc/softirqs ("TIMER").
type NoiseCount struct {
	Name  string `json:"name"`
	Label string `json:"label,omitempty"`
	Count int64  `json:"count"`
}

// ShortName is how a text line names a source: an architecture line or
// a softirq vector by its name ("LOC", "TIMER"), a numbered interrupt by
// its handlers ("virtio2-input.0"), or "IRQ 38" when it has none.
func (s NoiseCount) ShortName() string {
	if _, err := strconv.Atoi(s.Name); err != nil {
		return s.Name
	}
	if s.Label != "" {
		return s.Label
	}
	return "IRQ " + s.Name
}
