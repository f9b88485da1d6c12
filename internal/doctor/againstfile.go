package doctor

import (
	"fmt"
	"slices"
	"strings"

	"github.com/latlab/latlab/internal/knob"
)

// auditedKey is a setting of a tuned profile as the catalogue's
// references name it: the section's plugin type and the key. The
// bootloader plugin joins every key that starts with "cmdline" into the
// kernel command line (plugin_bootloader.py), so those are one key,
// "cmdline*", whatever their suffix.
func auditedKey(typ, key string) string {
	if typ == "bootloader" && strings.HasPrefix(key, "cmdline") {
		key = "cmdline*"
	}
	return typ + "\x00" + key
}

// auditedKeys maps each setting some knob's tuned references name to
// those knobs: the union over the catalogue, so a profile read from a
// file is compared on exactly what the cited profiles are.
func auditedKeys(osName string) map[string][]knob.Knob {
	m := map[string][]knob.Knob{}
	for _, k := range knob.All() {
		if k.OS() != osName {
			continue
		}
		for _, r := range k.Checkup().References {
			if r.Source != "tuned" {
				continue
			}
			key := auditedKey(r.Section, r.Key)
			if !slices.ContainsFunc(m[key], func(x knob.Knob) bool { return x.Name() == k.Name() }) {
				m[key] = append(m[key], k)
			}
		}
	}
	return m
}

// CompareTuned sets the audit's settings beside a profile read from
// files (LoadTuned): each setting of the merged profile that a knob's
// references name goes through the comparison of a cited profile's
// reference, with the merged variables put in; the settings latlab does
// not audit are listed.
func CompareTuned(env *knob.Env, osName string, settings []Setting, set *TunedSet, cmdline string) *Against {
	a := &Against{Profile: set.Name, Source: "tuned profile file", File: set.File, Items: []AgainstItem{}, Notes: append([]string(nil), set.Notes...)}
	for i := len(set.Loaded) - 1; i >= 0; i-- {
		a.Profiles = append(a.Profiles, set.Loaded[i].Name)
		a.From = append(a.From, set.Loaded[i].From)
	}
	current := currentValues(settings)
	audited := auditedKeys(osName)
	for _, u := range set.Merged.Units {
		if !u.Enabled {
			if u.CPUInfo == "" && u.Uname == "" {
				a.Notes = append(a.Notes, fmt.Sprintf("[%s] is disabled (enabled=false): tuned does not apply it; not compared", u.Name))
			}
			continue
		}
		for _, key := range u.Keys {
			if audited[auditedKey(u.Type, key)] == nil {
				a.NotAudited = append(a.NotAudited, "["+u.Name+"] "+key)
			}
		}
	}
	for _, k := range knob.All() {
		if k.OS() != osName {
			continue
		}
		seen := map[string]bool{}
		for _, u := range set.Merged.Units {
			if !u.Enabled {
				continue
			}
			for _, key := range u.Keys {
				if !slices.ContainsFunc(audited[auditedKey(u.Type, key)], func(x knob.Knob) bool { return x.Name() == k.Name() }) {
					continue
				}
				o := u.Opts[key]
				v := set.fx.expand(o.Value, set.Vars)
				r := knob.Reference{Source: "tuned", Profile: o.Profile, Section: u.Name, Key: key, Value: set.fx.render(v, 0)}
				if u.Type != u.Name {
					r.Section = u.Type
				}
				if set.fromEmbedded(o.Profile) {
					r.Version = knob.TunedVersion
				}
				why := func(string) string { return set.unresolvedNote(v) }
				it := compareOne(env, k, r, cmdline, why)
				if old := set.fx.render(v, 1); old != r.Value && it.State != Same {
					// tuned before 2.26 writes it otherwise: the profile's
					// either way, the newer form shown.
					r.Value = old
					if it2 := compareOne(env, k, r, cmdline, why); it2.State == Same {
						it = it2
						it.Note = joinNote(it.Note, "as tuned before 2.26 writes it (its calc_isolated_cores joined the CPUs; 2.26 on packs them)")
					} else {
						it.Note = joinNote(it.Note, "tuned before 2.26 writes it "+old+" (its calc_isolated_cores joined the CPUs)")
					}
				}
				it.Current = current[k.Name()]
				if u.Name != u.Type {
					it.Note = joinNote(it.Note, fmt.Sprintf("set in [%s], a %s section", u.Name, u.Type))
				}
				if u.Devices != "*" && u.Devices != "" {
					it.Note = joinNote(it.Note, "tuned applies it to devices="+u.Devices+" only")
				}
				if it.Command != "" && seen[it.Command] {
					continue
				}
				seen[it.Command] = it.Command != ""
				if it.State == Differs {
					a.Differ++
				}
				a.Items = append(a.Items, it)
			}
		}
	}
	// Expanding the settings may have met an assertion too.
	a.Refused = append([]string(nil), set.fx.refusals...)
	return a
}

// unresolvedNote says why a value of the profile, as expanded (calls
// latlab left unevaluated standing as tokens), is not compared: the
// reasons of those calls, and the variables no file sets, which tuned
// leaves as written.
func (s *TunedSet) unresolvedNote(v string) string {
	parts := s.fx.whys(v)
	funcs, vars := unresolved(v)
	if len(vars) > 0 {
		var refs []string
		for _, n := range vars {
			refs = append(refs, "${"+n+"}")
		}
		if len(s.fx.unreadVars) > 0 {
			parts = append(parts, fmt.Sprintf("%s, which %s, which latlab cannot read, may set", strings.Join(vars, ", "), strings.Join(s.fx.unreadVars, " or ")))
		} else {
			parts = append(parts, fmt.Sprintf("%s, which neither the profile nor a variables file sets: tuned leaves %s as written", strings.Join(vars, ", "), strings.Join(refs, ", ")))
		}
	}
	if len(funcs) > 0 {
		parts = append(parts, fmt.Sprintf("tuned's %s, which tuned leaves as written here (it logs an error)", strings.Join(funcs, ", ")))
	}
	if len(parts) == 0 {
		return unresolvedNote(s.fx.restore(v))
	}
	return "the profile sets it from what latlab cannot work out here: " + strings.Join(parts, "; ")
}

func (s *TunedSet) fromEmbedded(profile string) bool {
	for _, l := range s.Loaded {
		if l.Name == profile {
			return l.From == embeddedFrom
		}
	}
	return false
}

func joinNote(a, b string) string {
	if a == "" {
		return b
	}
	return a + "; " + b
}

// currentValues is each knob's value as the audit read it (its first
// target's), with the target named.
func currentValues(settings []Setting) map[string]string {
	current := map[string]string{}
	for _, s := range settings {
		if _, ok := current[s.Knob]; !ok {
			v := s.Value
			if s.Target != "" {
				v += " (" + s.Target + ")"
			}
			current[s.Knob] = v
		}
	}
	return current
}
