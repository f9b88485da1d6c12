package etw

import (
	"strings"
	"testing"
)

// systemModules lays out RTL_PROCESS_MODULES as the phnt headers define
// it: a ULONG count, padding to the pointer size, then per module
// Section, MappedBase, ImageBase, ImageSize, Flags, four USHORTs (the last
// the offset of the file name in the path) and FullPathName[256].
func systemModules(ptr int, ms []Module, paths []string) []byte {
	p := &payload{ptr: ptr}
	p.u32(uint32(len(ms)))
	if ptr == 8 {
		p.u32(0)
	}
	for i, m := range ms {
		p.pointer(0).pointer(0).pointer(m.Base).u32(uint32(m.Size)).u32(0)
		off := strings.LastIndex(paths[i], `\`) + 1
		p.u16(uint16(i)).u16(uint16(i)).u16(1).u16(uint16(off))
		name := make([]byte, 256)
		copy(name, paths[i])
		p.b = append(p.b, name...)
	}
	return p.b
}

func TestParseSystemModules(t *testing.T) {
	ms := []Module{
		{Name: "ntoskrnl.exe", Base: 0xfffff80400000000, Size: 0x1046000},
		{Name: "hal.dll", Base: 0xfffff80401046000, Size: 0x6000},
		{Name: "ndis.sys", Base: 0xfffff80450000000, Size: 0x1a000},
	}
	paths := []string{`\SystemRoot\system32\ntoskrnl.exe`, `\SystemRoot\system32\hal.dll`, `\SystemRoot\System32\drivers\ndis.sys`}
	for _, ptr := range []int{8, 4} {
		want := ms
		if ptr == 4 {
			want = []Module{{Name: "ntoskrnl.exe", Base: 0x80400000, Size: 0x1046000}, {Name: "hal.dll", Base: 0x81446000, Size: 0x6000}}
		}
		paths := paths[:len(want)]
		got, err := ParseSystemModules(systemModules(ptr, want, paths), ptr)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != len(want) {
			t.Fatalf("%d-bit: %+v", ptr*8, got)
		}
		for i := range want {
			if got[i] != want[i] {
				t.Errorf("%d-bit: %+v, want %+v", ptr*8, got[i], want[i])
			}
		}
	}
}

// Without the debug privilege recent Windows zeroes the bases: such
// entries say nothing and are dropped.
func TestParseSystemModulesHiddenBases(t *testing.T) {
	b := systemModules(8, []Module{{Name: "a.sys", Base: 0, Size: 0x1000}}, []string{`\SystemRoot\a.sys`})
	got, err := ParseSystemModules(b, 8)
	if err != nil || len(got) != 0 {
		t.Errorf("%+v %v", got, err)
	}
}

func TestParseSystemModulesErrors(t *testing.T) {
	one := systemModules(8, []Module{{Name: "a.sys", Base: 1, Size: 1}}, []string{`a.sys`})
	for name, tc := range map[string]struct {
		b    []byte
		ptr  int
		want string
	}{
		"empty":     {nil, 8, "0 bytes, the count needs 4"},
		"cut":       {one[:100], 8, "100 bytes hold 0 modules, the count says 1"},
		"bad count": {append([]byte{0xff, 0xff, 0xff, 0x7f}, one[4:]...), 8, "the count says 2147483647"},
		"pointer":   {one, 2, "pointer size 2"},
	} {
		if _, err := ParseSystemModules(tc.b, tc.ptr); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", name, err, tc.want)
		}
	}
}

func FuzzParseSystemModules(f *testing.F) {
	f.Add(systemModules(8, []Module{{Name: "a.sys", Base: 1, Size: 1}}, []string{`\x\a.sys`}), true)
	f.Add(systemModules(4, []Module{{Name: "a.sys", Base: 1, Size: 1}}, []string{`a.sys`}), false)
	f.Fuzz(func(t *testing.T, b []byte, wide bool) {
		ptr := 4
		if wide {
			ptr = 8
		}
		ms, err := ParseSystemModules(b, ptr)
		if err != nil && strings.Contains(err.Error(), "\n") {
			t.Fatal(err)
		}
		for _, m := range ms {
			if m.Base == 0 || m.Size == 0 || len(m.Name) > 256 {
				t.Fatalf("%+v", m)
			}
		}
	})
}
