package tracefs

import (
	"errors"
	"fmt"
	"strings"
)

// ErrUnsupported: kernel tracing is Linux-only.
var ErrUnsupported = errors.New("kernel tracing through tracefs is Linux-only")

// AccessError: the session needs root (or CAP_SYS_ADMIN and CAP_PERFMON).
type AccessError struct{ Err error }

func (e *AccessError) Error() string {
	return fmt.Sprintf("kernel tracing needs root (tracefs: %v)", e.Err)
}
func (e *AccessError) Unwrap() error { return e.Err }

// Options of a session.
type Options struct {
	// Events are "system/name" patterns (path.Match syntax within a
	// system: "irq_vectors/*_entry"). Each must match at least one event.
	Events []string
	// Optional are patterns enabled where the kernel has them: a group
	// it lacks, or a pattern matching nothing, is no error.
	Optional []string
	// CPUs restricts tracing to these CPUs (tracing_cpumask); nil traces
	// every CPU.
	CPUs []int
	// BufferKB is the ring buffer per CPU; 0 is 4096.
	BufferKB int
	// PrivateMount mounts tracefs at a private directory even when it is
	// mounted elsewhere (a session mounts it privately anyway when it is
	// not mounted); Close unmounts it.
	PrivateMount bool
	// Yield makes Drain give up its CPU (sched_yield) after each page it
	// reads (of the first yieldPages of a CPU): a traced thread woken
	// meanwhile on the reader's CPU then waits for one page's parsing
	// (tens of µs), not for the rest of the drain, which the scheduler
	// lets a thread of equal priority finish up to its slice
	// (milliseconds).
	Yield bool
}

// InstancePrefix begins the name of every instance a session creates:
// latlab-PID-START-N (START: the process's start time, so a reused pid is
// not taken for it). Open removes those whose process is gone.
const InstancePrefix = "latlab-"

// CPUMask is tracing_cpumask's form of cpus on a machine of n CPUs:
// comma-separated 32-bit hex words, the highest first.
func CPUMask(cpus []int, n int) string {
	words := make([]uint32, (n+31)/32)
	if len(words) == 0 {
		words = []uint32{0}
	}
	for _, c := range cpus {
		if c >= 0 && c/32 < len(words) {
			words[c/32] |= 1 << (c % 32)
		}
	}
	parts := make([]string, len(words))
	for i, w := range words {
		parts[len(words)-1-i] = fmt.Sprintf("%08x", w)
	}
	return strings.Join(parts, ",")
}
