package etw

import "sort"

// Module is a loaded driver or kernel image: its name and address range.
type Module struct {
	Name string `json:"name"`
	Base uint64 `json:"base"`
	Size uint64 `json:"size"`
}

// Contains reports whether addr lies in [Base, Base+Size).
func (m Module) Contains(addr uint64) bool {
	return addr >= m.Base && addr-m.Base < m.Size
}

// Modules maps routine addresses to modules. The zero value is empty.
type Modules struct {
	list []Module // sorted by Base
}

// NewModules builds a table; modules of size 0 are dropped (they cover no
// address).
func NewModules(ms []Module) *Modules {
	t := &Modules{}
	for _, m := range ms {
		t.Add(m)
	}
	return t
}

// Len is the number of modules.
func (t *Modules) Len() int { return len(t.list) }

// Add inserts m, replacing a module at the same base (a driver unloaded
// and another loaded there).
func (t *Modules) Add(m Module) {
	if m.Size == 0 {
		return
	}
	i := sort.Search(len(t.list), func(i int) bool { return t.list[i].Base >= m.Base })
	if i < len(t.list) && t.list[i].Base == m.Base {
		t.list[i] = m
		return
	}
	t.list = append(t.list, Module{})
	copy(t.list[i+1:], t.list[i:])
	t.list[i] = m
}

// Remove drops the module loaded at base, if any.
func (t *Modules) Remove(base uint64) {
	i := sort.Search(len(t.list), func(i int) bool { return t.list[i].Base >= base })
	if i < len(t.list) && t.list[i].Base == base {
		t.list = append(t.list[:i], t.list[i+1:]...)
	}
}

// Lookup returns the module whose range holds addr: the module with the
// highest base at or below addr, if addr is inside it. Kernel modules do
// not overlap, so no other module can hold it.
func (t *Modules) Lookup(addr uint64) (Module, bool) {
	i := sort.Search(len(t.list), func(i int) bool { return t.list[i].Base > addr })
	if i > 0 && t.list[i-1].Contains(addr) {
		return t.list[i-1], true
	}
	return Module{}, false
}
