package irq

import (
	"encoding/binary"
	"math"
	"strings"
	"testing"
	"unicode/utf16"
)

// pdhBuffer lays out a PdhGetFormattedCounterArrayW result as Windows does
// on amd64: the PDH_FMT_COUNTERVALUE_ITEM_W array, then the instance names
// (UTF-16, NUL-terminated) the items point to, all in one buffer at base.
func pdhBuffer(base uint64, items []pdhItem) []byte { return pdhBufferPtr(base, items, 8) }

// pdhBufferPtr lays it out with pointers of ptrSize bytes: on 32-bit
// Windows the name pointer is 4 bytes and 4 bytes of padding follow it
// (pdh.h under i686 mingw-w64: size 24, CStatus at 8, the value at 16).
func pdhBufferPtr(base uint64, items []pdhItem, ptrSize int) []byte {
	names := []byte{}
	offs := []int{}
	for _, it := range items {
		offs = append(offs, len(items)*pdhItemSize+len(names))
		for _, u := range utf16.Encode([]rune(it.Name)) {
			names = binary.LittleEndian.AppendUint16(names, u)
		}
		names = append(names, 0, 0)
	}
	buf := make([]byte, len(items)*pdhItemSize, len(items)*pdhItemSize+len(names))
	for i, it := range items {
		o := i * pdhItemSize
		if ptrSize == 4 {
			binary.LittleEndian.PutUint32(buf[o:], uint32(base)+uint32(offs[i]))
			binary.LittleEndian.PutUint32(buf[o+4:], 0xcafef00d) // padding: ignored
		} else {
			binary.LittleEndian.PutUint64(buf[o:], base+uint64(offs[i]))
		}
		binary.LittleEndian.PutUint32(buf[o+8:], it.Status)
		binary.LittleEndian.PutUint32(buf[o+12:], 0xdeadbeef) // padding: ignored
		binary.LittleEndian.PutUint64(buf[o+16:], math.Float64bits(it.Value))
	}
	return append(buf, names...)
}

func TestDecodePDHItems(t *testing.T) {
	want := []pdhItem{{"0,0", 0, 1523.5}, {"0,1", 1, 80}, {"0,_Total", 0, 1603.5}, {"_Total", 0, 1603.5}, {"1,2", 0xC0000BC6, 0}}
	const base = 0x1f0000
	got, err := decodePDHItems(pdhBuffer(base, want), base, len(want), 8)
	if err != nil {
		t.Fatal(err)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("item %d: %+v, want %+v", i, got[i], want[i])
		}
	}
	// windows/386: a 4-byte name pointer and padding where amd64 has the
	// pointer's high half.
	got32, err := decodePDHItems(pdhBufferPtr(base, want, 4), base, len(want), 4)
	if err != nil {
		t.Fatal(err)
	}
	for i := range want {
		if got32[i] != want[i] {
			t.Fatalf("32-bit item %d: %+v, want %+v", i, got32[i], want[i])
		}
	}
	if _, err := decodePDHItems(pdhBufferPtr(base, want, 4), base, len(want), 8); err == nil {
		t.Error("a 32-bit array read with 64-bit pointers passed")
	}
	if _, err := decodePDHItems(pdhBuffer(base, want), base, len(want), 2); err == nil {
		t.Error("2-byte pointers accepted")
	}
	// Rows: rates become counts over the interval, invalid data is absent,
	// totals are not CPUs, and "1,2", the third processor of NUMA node 1,
	// is CPU 5 when node 0 holds CPUs 0-2.
	cpus, rows, unmapped := pdhRows(map[string][]pdhItem{"Interrupts/sec": got, "% DPC Time": {{"0,0", 0, 2}, {"0,1", 0, 4}}}, 2, []int{0, 0, 0, 1, 1, 1})
	if len(cpus) != 3 || cpus[0] != 0 || cpus[1] != 1 || cpus[2] != 5 || len(unmapped) != 0 {
		t.Fatalf("cpus %v, unmapped %v", cpus, unmapped)
	}
	if rows[0].Name != "Interrupts/sec" || rows[0].PerCPU[0] != 3047 || rows[0].PerCPU[1] != 160 || !math.IsNaN(rows[0].PerCPU[2]) || rows[0].Total != 3207 {
		t.Fatalf("interrupts row %+v", rows[0])
	}
	if rows[1].Unit != UnitPercent || rows[1].Total != 3 {
		t.Fatalf("percent row %+v", rows[1])
	}
}

// A processor whose name maps to no CPU (a NUMA node this machine does
// not have) is reported and left out of the columns and the total, not
// put on some other CPU.
func TestPDHRowsUnmapped(t *testing.T) {
	items := []pdhItem{{"0,0", 0, 10}, {"0,1", 0, 20}, {"2,0", 0, 400}, {"_Total", 0, 430}}
	cpus, rows, unmapped := pdhRows(map[string][]pdhItem{"Interrupts/sec": items}, 1, []int{0, 0})
	if len(cpus) != 2 || len(unmapped) != 1 || unmapped[0] != "2,0" {
		t.Fatalf("cpus %v, unmapped %v", cpus, unmapped)
	}
	if rows[0].Total != 30 {
		t.Fatalf("total %v, want 30 (the unmapped processor's 400 left out)", rows[0].Total)
	}
	// Without the NUMA nodes no "node,index" maps; plain numbers still do.
	cpus, _, unmapped = pdhRows(map[string][]pdhItem{"Interrupts/sec": items, "DPCs Queued/sec": {{"3", 0, 1}}}, 1, nil)
	if len(cpus) != 1 || cpus[0] != 3 || len(unmapped) != 3 {
		t.Fatalf("without nodes: cpus %v, unmapped %v", cpus, unmapped)
	}
}

func TestDecodePDHItemsRejectsBadPointers(t *testing.T) {
	buf := pdhBuffer(0x1000, []pdhItem{{"0,0", 0, 1}})
	if _, err := decodePDHItems(buf, 0x9000, 1, 8); err == nil || !strings.Contains(err.Error(), "outside the buffer") {
		t.Fatalf("err %v", err)
	}
	if _, err := decodePDHItems(buf[:10], 0x1000, 1, 8); err == nil {
		t.Fatal("short buffer accepted")
	}
	cut := pdhBuffer(0x1000, []pdhItem{{"0,0", 0, 1}})
	if _, err := decodePDHItems(cut[:len(cut)-2], 0x1000, 1, 8); err == nil || !strings.Contains(err.Error(), "NUL") {
		t.Fatalf("unterminated name: %v", err)
	}
}

func TestParseProcessorInstance(t *testing.T) {
	tests := []struct {
		in          string
		node, index int
		pair, ok    bool
	}{
		{"0,3", 0, 3, true, true},
		{"1,15", 1, 15, true, true},
		{"1,0", 1, 0, true, true},
		{"7", 0, 7, false, true}, // the Processor object
		{"_Total", 0, 0, false, false},
		{"0,_Total", 0, 0, false, false},
		{"1,_Total", 0, 0, false, false},
		{"", 0, 0, false, false},
		{"x", 0, 0, false, false},
		{"-1,2", 0, 0, false, false},
		{"1,-2", 0, 0, false, false},
		{"1,2,3", 0, 0, false, false},
	}
	for _, tt := range tests {
		node, index, pair, ok := parseProcessorInstance(tt.in)
		if ok != tt.ok || ok && (node != tt.node || index != tt.index || pair != tt.pair) {
			t.Errorf("%q: node %d index %d pair %v ok %v, want %d %d %v %v", tt.in, node, index, pair, ok, tt.node, tt.index, tt.pair, tt.ok)
		}
	}
}

// nodes lays out NUMA nodes of the given sizes one after the other.
func nodes(sizes ...int) []int {
	var out []int
	for n, k := range sizes {
		for range k {
			out = append(out, n)
		}
	}
	return out
}

// Processor Information names a processor by NUMA node and place in the
// node; latlab numbers it in the order of the processor groups. The old
// reading, group*64+index, put "1,0" of a 40+40 machine on CPU 64.
func TestInstanceCPU(t *testing.T) {
	tests := []struct {
		name   string
		in     string
		nodeOf []int
		cpu    int
		isCPU  bool
		fails  bool
	}{
		{"40+40: node 1 first", "1,0", nodes(40, 40), 40, true, false},
		{"40+40: node 1 last", "1,39", nodes(40, 40), 79, true, false},
		{"40+40: beyond node 1", "1,40", nodes(40, 40), 0, true, true},
		{"40+40: node 0", "0,39", nodes(40, 40), 39, true, false},
		{"64+16", "1,15", nodes(64, 16), 79, true, false},
		{"64+16: beyond", "1,16", nodes(64, 16), 0, true, true},
		{"one group, two nodes", "1,0", nodes(16, 16), 16, true, false},
		{"interleaved nodes", "1,1", []int{0, 1, 0, 1}, 3, true, false},
		{"no such node", "2,0", nodes(8, 8), 0, true, true},
		{"nodes unknown", "0,3", nil, 0, true, true},
		{"Processor object", "3", nil, 3, true, false},
		{"total", "_Total", nodes(4), 0, false, false},
		{"node total", "0,_Total", nodes(4), 0, false, false},
	}
	for _, tt := range tests {
		cpu, isCPU, err := instanceCPU(tt.in, tt.nodeOf)
		if isCPU != tt.isCPU || (err != nil) != tt.fails || err == nil && cpu != tt.cpu {
			t.Errorf("%s: %q -> cpu %d isCPU %v err %v; want cpu %d isCPU %v fails %v", tt.name, tt.in, cpu, isCPU, err, tt.cpu, tt.isCPU, tt.fails)
		}
	}
}

func TestRSSProfileName(t *testing.T) {
	if RSSProfileName("3") != "NUMAScaling" || RSSProfileName("9") != "9" {
		t.Fatal("profile names")
	}
}

func FuzzDecodePDHItems(f *testing.F) {
	f.Add(pdhBuffer(0x1000, []pdhItem{{"0,0", 0, 1}, {"_Total", 0, 2}}), 2)
	f.Fuzz(func(t *testing.T, b []byte, n int) {
		if n > 1000 {
			return
		}
		_, _ = decodePDHItems(b, 0x1000, n, 8)
		_, _ = decodePDHItems(b, 0x1000, n, 4)
	})
}

// Registry value names are case-insensitive: a name listed twice in two
// spellings (*RssBaseProcNumber and *RSSBaseProcNumber) is one value read
// twice.
func TestRSSRegistryValuesOnce(t *testing.T) {
	seen := map[string]string{}
	for _, v := range RSSRegistryValues {
		if prev, ok := seen[strings.ToLower(v)]; ok {
			t.Errorf("%s and %s are one registry value", prev, v)
		}
		seen[strings.ToLower(v)] = v
	}
}

// Instance names come from the counters of whatever Windows runs: any
// name parses without a panic, and a processor's numbers are never
// negative.
func FuzzParseProcessorInstance(f *testing.F) {
	for _, s := range []string{"0,3", "1,15", "_Total", "0,_Total", "7", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		node, index, _, ok := parseProcessorInstance(s)
		if ok && (node < 0 || index < 0) {
			t.Fatalf("%q: node %d index %d", s, node, index)
		}
		if cpu, isCPU, err := instanceCPU(s, []int{0, 0, 1, 1}); isCPU && err == nil && (cpu < 0 || cpu > 3 && strings.Contains(s, ",")) {
			t.Fatalf("%q: cpu %d", s, cpu)
		}
	})
}
