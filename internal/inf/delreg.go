package inf

import "strings"

// Flags of DelReg lines (Microsoft, "INF DelReg directive",
// https://learn.microsoft.com/windows-hardware/drivers/install/inf-delreg-directive;
// FLG_DELREG_* in setupapi.h).
const (
	// (FLG_DELREG_32BITKEY, 0x4000, makes the change in the 32-bit
	// registry; the adapter's key is the same in both, so it is ignored.)

	// flgDelRegKeyOnly deletes the entire subkey, whatever value name
	// the line gives (FLG_DELREG_KEYONLY_COMMON).
	flgDelRegKeyOnly = 0x00002000
	// flgDelRegMultiSzDelString deletes the strings equal to the line's
	// value from a REG_MULTI_SZ value (FLG_DELREG_MULTI_SZ_DELSTRING).
	flgDelRegMultiSzDelString = 0x00018002
)

// delreg applies one DelReg section's HKR lines to what the install
// section has written so far. Each line is reg-root, subkey[,
// value-entry-name][, flags][, value]: without a value name (or with
// FLG_DELREG_KEYONLY_COMMON) it deletes the subkey and everything under
// it, with one it deletes that value. latlab keeps only the keys it reads
// (Ndi, Ndi\Params\<keyword>, its Enum, and the key's own values), so
// deleting any other subkey changes nothing it reports.
func (r *resolver) delreg(f *File, s *Section) error {
	return r.hkrEntries(f, s, "delete", "root, subkey[, value name][, flags][, value]", func(l Line, subkey, name string, flags uint32) {
		if flags&flgDelRegMultiSzDelString == flgDelRegMultiSzDelString {
			r.notef(f, l.Num, "[%s] entry deletes strings from a REG_MULTI_SZ value (FLG_DELREG_MULTI_SZ_DELSTRING), which latlab does not apply; skipped", s.Name)
			return
		}
		wholeKey := name == "" || flags&flgDelRegKeyOnly != 0
		low := strings.ToLower(subkey)
		switch {
		case low == "" && wholeKey:
			// HKR itself is the adapter's key: deleting it would take the
			// driver's settings with it, which no INF means to do.
			why := "no value name"
			if name != "" {
				why = "FLG_DELREG_KEYONLY_COMMON" // whatever value it names
			}
			r.notef(f, l.Num, "[%s] HKR entry with no subkey and %s would delete the adapter's key itself; skipped", s.Name, why)
		case low == "":
			r.deleteValue(name)
			if i, ok := r.in.byName[strings.ToLower(name)]; ok && r.in.Keywords[i].bare() {
				r.deleteParam(i) // a keyword that was only this value
			}
		case low == "ndi" && wholeKey:
			r.in.ndiService = ""
			r.deleteParams()
		case low == "ndi":
			if strings.EqualFold(name, "Service") {
				r.in.ndiService = ""
			}
		case low == `ndi\params`:
			if wholeKey {
				r.deleteParams()
			}
		case strings.HasPrefix(low, `ndi\params\`):
			kw, sub, _ := strings.Cut(subkey[len(`ndi\params\`):], `\`)
			i, ok := r.in.byName[strings.ToLower(kw)]
			if kw == "" || !ok {
				return // nothing written there yet
			}
			k := &r.in.Keywords[i]
			switch {
			case sub == "" && wholeKey:
				r.deleteParam(i)
			case sub == "":
				r.setParam(k, name, "", true)
			case strings.EqualFold(sub, "enum") && wholeKey:
				for _, e := range k.Values {
					if e.Value != "" {
						r.setEnum(k, e.Value, "", true)
					}
				}
			case strings.EqualFold(sub, "enum"):
				r.setEnum(k, name, "", true)
			}
		}
	})
}

// deleteParams deletes every keyword's Ndi\Params key.
func (r *resolver) deleteParams() {
	for i := range r.in.Keywords {
		if r.in.Keywords[i].Name != "" {
			r.deleteParam(i)
		}
	}
}

// deleteParam deletes the Ndi\Params\<keyword> key of keyword i: its
// definition goes, the HKR,,<keyword> value stays (a keyword that keeps
// only its value, as when an INF writes the value alone). A keyword left
// with nothing is blanked (Name "") for finish to remove, and a later
// AddReg line that defines it again starts afresh.
func (r *resolver) deleteParam(i int) {
	k := &r.in.Keywords[i]
	key := strings.ToLower(k.Name)
	for _, e := range k.Values {
		delete(r.enums, key+"\x00"+e.Value)
	}
	if k.Value != nil {
		*k = Keyword{Name: k.Name, Value: k.Value, Sections: k.Sections, Line: k.Value.Line}
		return
	}
	for _, s := range k.Sections {
		delete(r.kwSections, key+"\x00"+s)
	}
	delete(r.in.byName, key)
	*k = Keyword{}
}

// bare reports whether a keyword has neither a definition nor a value.
func (k *Keyword) bare() bool {
	for _, e := range k.Values {
		if e.Value != "" {
			return false
		}
	}
	return k.Value == nil && k.ParamDesc == "" && k.Type == "" && k.Default == "" && k.Min == "" && k.Max == "" &&
		k.Step == "" && k.Base == "" && k.Optional == "" && len(k.Other) == 0
}
