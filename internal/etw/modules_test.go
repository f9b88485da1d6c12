package etw

import "testing"

// A synthetic driver table: three modules with a gap between the first two
// and the last two adjacent.
func testTable() *Modules {
	return NewModules([]Module{
		{Name: "storport.sys", Base: 0xfffff80400200000, Size: 0x10000},
		{Name: "ntoskrnl.exe", Base: 0xfffff80400000000, Size: 0x100000},
		{Name: "ndis.sys", Base: 0xfffff80400300000, Size: 0x2000},
		{Name: "empty.sys", Base: 0xfffff80400500000, Size: 0},
		{Name: "last.sys", Base: 0xfffff80400302000, Size: 0x1000},
	})
}

func TestModulesLookup(t *testing.T) {
	tab := testTable()
	tests := []struct {
		name string
		addr uint64
		want string // "" = in no module
	}{
		{"below the first module", 0xfffff803ffffffff, ""},
		{"the first byte of the first module", 0xfffff80400000000, "ntoskrnl.exe"},
		{"inside the first module", 0xfffff80400012345, "ntoskrnl.exe"},
		{"the last byte of the first module", 0xfffff804000fffff, "ntoskrnl.exe"},
		{"one past the first module: a gap", 0xfffff80400100000, ""},
		{"in the gap", 0xfffff80400150000, ""},
		{"the base of storport", 0xfffff80400200000, "storport.sys"},
		{"one past storport", 0xfffff80400210000, ""},
		{"the last byte of ndis", 0xfffff80400301fff, "ndis.sys"},
		{"ndis's end is the next module's base", 0xfffff80400302000, "last.sys"},
		{"in the last module", 0xfffff80400302800, "last.sys"},
		{"the last byte of the last module", 0xfffff80400302fff, "last.sys"},
		{"one past the last module", 0xfffff80400303000, ""},
		{"where a zero-size module was listed", 0xfffff80400500000, ""},
		{"address 0", 0, ""},
		{"the highest address", ^uint64(0), ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, ok := tab.Lookup(tt.addr)
			if ok != (tt.want != "") || m.Name != tt.want {
				t.Errorf("%#x: %q %v, want %q", tt.addr, m.Name, ok, tt.want)
			}
		})
	}
	if tab.Len() != 4 {
		t.Errorf("%d modules, want 4 (the zero-size one dropped)", tab.Len())
	}
}

// A module at the very top of the address space: Base+Size overflows
// uint64, and the addresses below the top must still be found.
func TestModulesLookupTopOfAddressSpace(t *testing.T) {
	tab := NewModules([]Module{{Name: "top.sys", Base: 0xffffffffffff0000, Size: 0x10000}})
	if m, ok := tab.Lookup(^uint64(0)); !ok || m.Name != "top.sys" {
		t.Errorf("%+v %v", m, ok)
	}
}

func TestModulesEmptyAndChanges(t *testing.T) {
	var tab Modules
	if _, ok := tab.Lookup(1); ok {
		t.Error("empty table found a module")
	}
	tab.Add(Module{Name: "a.sys", Base: 0x1000, Size: 0x100})
	tab.Add(Module{Name: "b.sys", Base: 0x1000, Size: 0x200}) // reloaded at the same base
	if m, ok := tab.Lookup(0x11ff); !ok || m.Name != "b.sys" {
		t.Errorf("%+v %v", m, ok)
	}
	tab.Remove(0x1000)
	if _, ok := tab.Lookup(0x1000); ok || tab.Len() != 0 {
		t.Error("removed module still found")
	}
}
