package noisecount

import (
	"fmt"
	"unsafe"

	"github.com/latlab/latlab/internal/probe"
	"github.com/latlab/latlab/internal/sched"
	"github.com/latlab/latlab/internal/winapi"
)

const method = "NtQuerySystemInformation: each processor's InterruptCount (SystemProcessorPerformanceInformation) and DpcCount " +
	"(SystemInterruptInformation), read just before the threads start and just after they stop; " +
	"CPUs numbered as --cpus takes them (the active processors of each processor group in turn)"

// The information classes (winternl.h's SYSTEM_INFORMATION_CLASS).
const (
	systemProcessorPerformanceInformation = 8
	systemInterruptInformation            = 23
)

// processorPerformance is SYSTEM_PROCESSOR_PERFORMANCE_INFORMATION, 48
// bytes. winternl.h names the last three fields Reserved1[2] and
// Reserved2; Microsoft's own ntttcp (microsoft/ntttcp, src/ntttcp.c)
// declares them DpcTime, InterruptTime and InterruptCount, as phnt does.
type processorPerformance struct {
	IdleTime, KernelTime, UserTime int64 // LARGE_INTEGER, 100 ns
	DpcTime, InterruptTime         int64
	InterruptCount                 uint32
	// The C struct's tail padding (LARGE_INTEGER aligns it to 8),
	// spelt out: windows/386 aligns a Go int64 to 4 only, and would
	// otherwise make the record 44 bytes.
	_ uint32
}

// interruptInformation is SYSTEM_INTERRUPT_INFORMATION, 24 bytes, which
// winternl.h leaves opaque (BYTE Reserved1[24]) and Microsoft's
// NtQuerySystemInformation page offers only as a seed for a random
// number generator; its fields are ntttcp's (src/ntttcp.c) and phnt's.
type interruptInformation struct {
	ContextSwitches, DpcCount, DpcRate, TimeIncrement, DpcBypassCount, ApcBypassCount uint32
}

// Reader is probe.NoiseOptions.Counters: each processor's interrupt and
// DPC counts now, and again when the returned function is called. root
// is Linux's fixture tree, unused here.
func Reader(string) func() (func() (*probe.NoiseCounters, error), error) {
	return func() (func() (*probe.NoiseCounters, error), error) {
		a, err := read()
		if err != nil {
			return nil, err
		}
		return func() (*probe.NoiseCounters, error) {
			b, err := read()
			if err != nil {
				return nil, err
			}
			m := method
			if n := sched.NumberingNote(sched.ProcessorGroups()); n != "" {
				m += "; " + n
			}
			c, err := diff(a, b, m)
			if err == nil && winapi.UnderWine() {
				dropDPCs(c)
			}
			return c, err
		}, nil
	}
}

// dropDPCs leaves the DPC counts out: Wine answers SystemInterruptInformation
// with random bytes (the one use Microsoft documents for it), and a
// difference of random numbers is no count.
func dropDPCs(c *probe.NoiseCounters) {
	for cpu, n := range c.PerCPU {
		n.DPCs = nil
		c.PerCPU[cpu] = n
	}
	c.Method += "; no DPC counts under Wine, whose SystemInterruptInformation is random bytes"
}

// read reads both classes for every processor group, appending each
// group's processors in turn: latlab's CPU numbers (sched.ProcessorOf),
// which --cpus and the probes' pinning use. With one group the plain call
// answers for it; with several, each group is asked for by number (the Ex
// form), since the plain call answers for the caller's group alone.
func read() (counts, error) {
	groups := sched.ProcessorGroups()
	many := len(groups) > 1
	var c counts
	for g, n := range groups {
		if n == 0 {
			continue
		}
		pp := make([]processorPerformance, n)
		if err := query(systemProcessorPerformanceInformation, uint16(g), many, unsafe.Pointer(&pp[0]), n, int(unsafe.Sizeof(pp[0]))); err != nil {
			return counts{}, fmt.Errorf("group %d: SystemProcessorPerformanceInformation: %w", g, err)
		}
		ii := make([]interruptInformation, n)
		if err := query(systemInterruptInformation, uint16(g), many, unsafe.Pointer(&ii[0]), n, int(unsafe.Sizeof(ii[0]))); err != nil {
			return counts{}, fmt.Errorf("group %d: SystemInterruptInformation: %w", g, err)
		}
		for i := range n {
			c.interrupts = append(c.interrupts, pp[i].InterruptCount)
			c.dpcs = append(c.dpcs, ii[i].DpcCount)
		}
	}
	if len(c.interrupts) == 0 {
		return counts{}, fmt.Errorf("no active processor (processor groups %v)", groups)
	}
	return c, nil
}

// query fills buf with n records of size bytes of class, for group g
// when byGroup, and checks that it got n: a count that differs from the
// processors GetActiveProcessorCount reports would put the counts on the
// wrong CPUs.
func query(class uint32, g uint16, byGroup bool, buf unsafe.Pointer, n, size int) error {
	var need uint32
	var err error
	if byGroup {
		err = winapi.NtQuerySystemInformationEx(class, unsafe.Pointer(&g), uint32(unsafe.Sizeof(g)), buf, uint32(n*size), &need)
	} else {
		err = winapi.NtQuerySystemInformation(class, buf, uint32(n*size), &need)
	}
	if err != nil {
		return err
	}
	if int(need) != n*size {
		return fmt.Errorf("%d bytes for %d processors of %d bytes each", need, n, size)
	}
	return nil
}
