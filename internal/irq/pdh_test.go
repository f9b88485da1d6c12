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
	// totals are not CPUs, group 1 processor 2 is CPU 66.
	cpus, rows := pdhRows(map[string][]pdhItem{"Interrupts/sec": got, "% DPC Time": {{"0,0", 0, 2}, {"0,1", 0, 4}}}, 2)
	if len(cpus) != 3 || cpus[2] != 66 {
		t.Fatalf("cpus %v", cpus)
	}
	if rows[0].Name != "Interrupts/sec" || rows[0].PerCPU[0] != 3047 || rows[0].PerCPU[1] != 160 || !math.IsNaN(rows[0].PerCPU[2]) || rows[0].Total != 3207 {
		t.Fatalf("interrupts row %+v", rows[0])
	}
	if rows[1].Unit != UnitPercent || rows[1].Total != 3 {
		t.Fatalf("percent row %+v", rows[1])
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

func TestProcessorInstancesAndProfiles(t *testing.T) {
	for in, want := range map[string]int{"0,3": 3, "1,0": 64, "7": 7} {
		if c, ok := parseProcessorInstance(in); !ok || c != want {
			t.Errorf("%q -> %d %v", in, c, ok)
		}
	}
	for _, in := range []string{"_Total", "0,_Total", "x", "0,64"} {
		if _, ok := parseProcessorInstance(in); ok {
			t.Errorf("%q accepted", in)
		}
	}
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
