package dpcisr

import (
	"fmt"
	"math"
)

// HardFaults is LatencyMon's third table: the hard page faults of an .etl
// trace (PageFault HardFault events) per process. A thread that faults
// waits for the disk; the wait is a latency spike as surely as a long
// DPC. Only an .etl trace recorded with the HARD_FAULTS kernel flag has
// them.
type HardFaults struct {
	// Events is the HardFault events read; 0 with Missing set when the
	// trace holds none.
	Events int64 `json:"events"`
	// Bytes is the data read to satisfy them (ByteCount summed).
	Bytes uint64 `json:"bytes"`
	// TotalUs and LongestUs are the time the faults took: the event's
	// time stamp (the read completed) minus its InitialTime (the fault),
	// in microseconds.
	TotalUs   float64 `json:"total_us"`
	LongestUs float64 `json:"longest_us"`
	// Processes are the faults per process, the longest total wait
	// first. A thread no Thread event names is its own row, with no PID.
	Processes []ProcessFaults `json:"processes"`
	// Missing says why there are no events (the trace was not recorded
	// with HARD_FAULTS).
	Missing string `json:"missing,omitempty"`
	// Bad counts HardFault events that could not be decoded.
	Bad int64 `json:"bad,omitempty"`
	// CountsOnly says the table counts faults only (a Linux watch: each
	// process's major faults, majflt of /proc/PID/stat, at the start and
	// end): bytes and times are not known and are 0.
	CountsOnly bool `json:"counts_only,omitempty"`
}

// ProcessFaults is the hard page faults of one process (or of one thread
// whose process the trace never names).
type ProcessFaults struct {
	// Image is the process's ImageFileName from its Process events; ""
	// when the trace names no such process.
	Image string `json:"image,omitempty"`
	// PID is the process, from the faulting thread's Thread events; nil
	// when the trace never names the thread.
	PID *uint32 `json:"pid,omitempty"`
	// TID is the thread, set only when its process is unknown.
	TID       *uint32 `json:"tid,omitempty"`
	Faults    int64   `json:"faults"`
	Bytes     uint64  `json:"bytes"`
	TotalUs   float64 `json:"total_us"`
	LongestUs float64 `json:"longest_us"`
}

// Name is how the report names the row: "svchost.exe (pid 1234)",
// "process 1234 (image unknown)" or "thread 1234, process unknown".
func (p ProcessFaults) Name() string {
	switch {
	case p.PID == nil && p.TID != nil:
		return fmt.Sprintf("thread %d, process unknown", *p.TID)
	case p.PID == nil:
		return "process unknown"
	case p.Image == "":
		return fmt.Sprintf("process %d (image unknown)", *p.PID)
	}
	return fmt.Sprintf("%s (pid %d)", p.Image, *p.PID)
}

// HardFaultFlag is how xperf names the kernel flag that records hard
// page faults (learn.microsoft.com/previous-versions/windows/desktop/
// xperf/hard-faults: "Required Flags: HARD_FAULTS"); StartTrace's is
// EVENT_TRACE_FLAG_MEMORY_HARD_FAULTS.
const HardFaultFlag = "HARD_FAULTS"

// check refuses a document's hard faults that no trace gives.
func (h *HardFaults) check() error {
	bad := func(v float64) bool { return v < 0 || math.IsNaN(v) || math.IsInf(v, 0) }
	if h.Events < 0 || h.Events > maxCount || h.Bad < 0 || bad(h.TotalUs) || bad(h.LongestUs) {
		return docErrorf("hard_faults: counts and times must be finite and not negative")
	}
	var n int64
	for _, p := range h.Processes {
		if p.Faults < 0 || bad(p.TotalUs) || bad(p.LongestUs) {
			return docErrorf("hard_faults: %s: counts and times must be finite and not negative", p.Name())
		}
		if n += p.Faults; n > maxCount {
			return docErrorf("hard_faults: more than 2^53 faults")
		}
	}
	return nil
}
