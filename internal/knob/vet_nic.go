package knob

import (
	"fmt"
	"strings"
)

// The Vets of the test bench's adapter knobs (msi-mode, nic-buffers,
// nic-power-saving), kept beside vet.go's: the same rules, that a journal
// entry names only a place the knob writes and a value it could have
// found there.

func (k nicBuffers) Vet(target string, l Loc, v Value) error {
	var names []string
	for _, b := range bufferKeywords {
		names = append(names, b.name)
	}
	if target == "" || !adapterValue(l, names) {
		return notMine(k.Name(), target, l)
	}
	return regNumber(v)
}

func (k nicPowerSaving) Vet(target string, l Loc, v Value) error {
	var names []string
	for _, p := range powerKeywords {
		names = append(names, p.Name)
	}
	if target == "" || !adapterValue(l, names) {
		return notMine(k.Name(), target, l)
	}
	return regNumber(v)
}

// msiKeyLevels are the keys below a device instance that msi-mode may
// create on the way to MSISupported.
var msiKeyLevels = strings.Split(msiSubkey, `\`)

func (k msiMode) Vet(target string, l Loc, v Value) error {
	if target == "" || l.Backend != BackendRegistry {
		return notMine(k.Name(), target, l)
	}
	rest, ok := cutKey(l.Path, EnumKey)
	if !ok {
		return notMine(k.Name(), target, l)
	}
	parts := strings.Split(rest, `\`)
	if len(parts) < 4 || !validInstance(strings.Join(parts[:3], `\`)) {
		return notMine(k.Name(), target, l)
	}
	below := parts[3:]
	if len(below) > len(msiKeyLevels) {
		return notMine(k.Name(), target, l)
	}
	for i, p := range below {
		if !strings.EqualFold(p, msiKeyLevels[i]) {
			return notMine(k.Name(), target, l)
		}
	}
	if l.Name == "" {
		// A key ensureKey adds on the way: created and deleted, no data.
		if !(v.IsAbsent() || v.Type == TypeKey) || len(v.Data) > 0 {
			return fmt.Errorf("%s: a key, not a %s value", l, v.Type)
		}
		return nil
	}
	if len(below) != len(msiKeyLevels) || !strings.EqualFold(l.Name, "MSISupported") {
		return notMine(k.Name(), target, l)
	}
	return regNumber(v)
}
