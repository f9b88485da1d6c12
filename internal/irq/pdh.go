package irq

import (
	"encoding/binary"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"unicode/utf16"

	"github.com/latlab/latlab/internal/sched"
)

// PDH counters read on Windows, per processor. The "Processor Information"
// object names its instances "node,index": the NUMA node and the
// processor's place among that node's processors (the object's own
// explanation text in Windows, and how OSHI and netdata read it), which
// is not the processor group and number. The "Processor" object (the
// fallback) names them "3". Rates are turned into counts over the
// interval.
var pdhCounters = []struct {
	Name, Label, Unit, Role string
	Rate                    bool
}{
	{"Interrupts/sec", "interrupts", UnitCount, "", true},
	{"DPCs Queued/sec", "DPCs queued", UnitCount, RoleDPC, true},
	{"% DPC Time", "% DPC time", UnitPercent, "", false},
	{"% Interrupt Time", "% interrupt time", UnitPercent, "", false},
}

// pdhItem is one decoded PDH_FMT_COUNTERVALUE_ITEM_W.
type pdhItem struct {
	Name   string
	Status uint32
	Value  float64
}

// pdhItemSize is sizeof(PDH_FMT_COUNTERVALUE_ITEM_W), on 64-bit and on
// 32-bit Windows alike: szName (a pointer: 8 bytes, or 4 and 4 of
// padding), FmtValue.CStatus (4), padding (4), the value union (8; a double
// with PDH_FMT_DOUBLE), the union aligned to 8 on both (its double and
// LONGLONG). Only the pointer's width differs between the two.
const pdhItemSize = 24

// The offsets of FmtValue.CStatus and of the value union in an item
// (scripts/windows-abi checks both layouts against pdh.h).
const (
	pdhItemStatusOffset = 8
	pdhItemValueOffset  = 16
)

// decodePDHItems decodes the buffer PdhGetFormattedCounterArrayW filled:
// count items, whose name pointers (ptrSize bytes: 8 on 64-bit Windows, 4
// on 32-bit) point into the same buffer, which starts at address base.
func decodePDHItems(buf []byte, base uint64, count, ptrSize int) ([]pdhItem, error) {
	if ptrSize != 4 && ptrSize != 8 {
		return nil, fmt.Errorf("PDH array: pointers of %d bytes, want 4 or 8", ptrSize)
	}
	if count < 0 || count*pdhItemSize > len(buf) {
		return nil, fmt.Errorf("PDH array: %d items do not fit in %d bytes", count, len(buf))
	}
	le := binary.LittleEndian
	items := make([]pdhItem, count)
	for i := range items {
		off := i * pdhItemSize
		ptr := le.Uint64(buf[off:])
		if ptrSize == 4 {
			ptr = uint64(le.Uint32(buf[off:])) // the next 4 bytes are padding
		}
		items[i].Status = le.Uint32(buf[off+pdhItemStatusOffset:])
		items[i].Value = math.Float64frombits(le.Uint64(buf[off+pdhItemValueOffset:]))
		if ptr < base || ptr-base >= uint64(len(buf)) {
			return nil, fmt.Errorf("PDH array: item %d (byte %d): name pointer %#x is outside the buffer [%#x, %#x)", i, off, ptr, base, base+uint64(len(buf)))
		}
		start := int(ptr - base)
		var u []uint16
		for p := start; ; p += 2 {
			if p+1 >= len(buf) {
				return nil, fmt.Errorf("PDH array: item %d: name at byte %d is not NUL-terminated", i, start)
			}
			c := le.Uint16(buf[p:])
			if c == 0 {
				break
			}
			u = append(u, c)
		}
		items[i].Name = string(utf16.Decode(u))
	}
	return items, nil
}

// pdhValid reports PDH_CSTATUS_VALID_DATA (0) or PDH_CSTATUS_NEW_DATA (1).
func pdhValid(status uint32) bool { return status <= 1 }

// parseProcessorInstance splits a per-processor instance name:
// "node,index" (Processor Information) gives pair, "n" (Processor) gives
// index n alone. Totals ("_Total", "0,_Total") and anything else return
// ok=false.
func parseProcessorInstance(s string) (node, index int, pair, ok bool) {
	a, b, pair := strings.Cut(s, ",")
	if !pair {
		a, b = "0", a
	}
	nv, err1 := strconv.Atoi(a)
	iv, err2 := strconv.Atoi(b)
	if err1 != nil || err2 != nil || nv < 0 || iv < 0 {
		return 0, 0, false, false
	}
	return nv, iv, pair, true
}

// instanceCPU maps a per-processor instance name to latlab's CPU number,
// given the NUMA node of each CPU (sched.NUMANodes). isCPU is false for
// totals; err says why a processor's name did not map (nodeOf unknown or
// out of date). A plain "n" (the Processor object) is taken as latlab's
// CPU n: that object counts the processors in one run.
func instanceCPU(name string, nodeOf []int) (cpu int, isCPU bool, err error) {
	node, index, pair, ok := parseProcessorInstance(name)
	if !ok {
		return 0, false, nil
	}
	if !pair {
		return index, true, nil
	}
	if nodeOf == nil {
		return 0, true, fmt.Errorf("processor %s: the NUMA nodes of the processors are not known", name)
	}
	cpu, err = sched.NodeCPU(node, index, nodeOf)
	return cpu, true, err
}

// pdhRows turns one collection of every counter into rows over the CPUs
// seen; seconds converts rates to counts, nodeOf maps instance names to
// CPUs (instanceCPU). unmapped lists the processors' instance names that
// did not map, whose values are left out rather than put on a wrong CPU.
func pdhRows(values map[string][]pdhItem, seconds float64, nodeOf []int) (cpus []int, rows []Row, unmapped []string) {
	cpuOf := map[string]int{}
	seen := map[string]bool{}
	for _, items := range values {
		for _, it := range items {
			if seen[it.Name] {
				continue
			}
			seen[it.Name] = true
			c, isCPU, err := instanceCPU(it.Name, nodeOf)
			switch {
			case !isCPU:
			case err != nil:
				unmapped = append(unmapped, it.Name)
			default:
				cpuOf[it.Name] = c
				cpus = append(cpus, c)
			}
		}
	}
	sort.Strings(unmapped)
	cpus = unionCPUs(cpus)
	idx := cpuIndex(cpus)
	for _, c := range pdhCounters {
		items, ok := values[c.Name]
		if !ok {
			continue
		}
		row := Row{Source: "pdh", Name: c.Name, Label: c.Label, Unit: c.Unit, Role: c.Role, PerCPU: nanValues(len(cpus))}
		n := 0
		for _, it := range items {
			cpu, ok := cpuOf[it.Name]
			if !ok || !pdhValid(it.Status) {
				continue
			}
			v := it.Value
			if c.Rate {
				v *= seconds
			}
			row.PerCPU[idx[cpu]] = v
			row.Total += v
			n++
		}
		if c.Unit == UnitPercent && n > 0 {
			row.Total /= float64(n) // the mean over processors
		}
		rows = append(rows, row)
	}
	return cpus, rows, unmapped
}

// RSSProfileName names the *RSSProfile registry values (NDIS).
func RSSProfileName(v string) string {
	switch strings.TrimSpace(v) {
	case "1":
		return "ClosestProcessor"
	case "2":
		return "ClosestProcessorStatic"
	case "3":
		return "NUMAScaling"
	case "4":
		return "NUMAScalingStatic"
	case "5":
		return "ConservativeScaling"
	}
	return v
}

// RSSRegistryValues are the adapter values Get-NetAdapterRss reports, in
// the spelling of Microsoft's "Standardized INF Keywords for RSS". Registry
// value names are case-insensitive: each name is here once, whatever case
// a driver's INF writes it in.
var RSSRegistryValues = []string{"*RSS", "*NumRssQueues", "*RSSProfile", "*RssBaseProcGroup", "*RssBaseProcNumber",
	"*MaxRssProcessors", "*RssMaxProcGroup", "*RssMaxProcNumber", "*NumaNodeId"}
