package doctor

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/latlab/latlab/internal/badinput"
	"github.com/latlab/latlab/internal/knob"
)

// Against is the audited settings set beside a tuning profile latlab
// cites, as `tuned-adm verify` sets the system beside the active profile:
// every setting of the profile that latlab audits, whether it differs,
// and the `latlab knob set` command that makes it the profile's.
type Against struct {
	Profile string `json:"profile"`
	// Source is the profile set and its version ("tuned 2.20.0").
	Source string `json:"source"`
	// Profiles are the profile and those it includes, nearest first (a
	// value of a nearer one wins, as tuned merges them).
	Profiles []string      `json:"profiles"`
	Items    []AgainstItem `json:"items"`
	Differ   int           `json:"differ"`
	// File is the tuned.conf read (--against PATH), or the file naming
	// the active profiles (--against active); empty for a profile latlab
	// cites, compared on its references.
	File string `json:"file,omitempty"`
	// From is, beside Profiles, where each was read: its tuned.conf, or
	// latlab's references of a profile it cites that is not on disk.
	From []string `json:"from,omitempty"`
	// NotAudited are the settings of the profile latlab does not audit,
	// each as "[section] key".
	NotAudited []string `json:"not_audited,omitempty"`
	// Notes say what of the profile was not read or not applied: an
	// include tuned works out on the machine, a missing variables file,
	// a disabled section.
	Notes []string `json:"notes,omitempty"`
	// Refused says why tuned would refuse the profile here (one of its
	// assertions fails), or that latlab cannot tell whether it would.
	Refused []string `json:"refused,omitempty"`
}

// The states of an item.
const (
	Same       = "same"
	Differs    = "differs"
	CannotSet  = "cannot-set"   // the profile's value cannot be set here (no cpufreq)
	NotCompare = "not-compared" // the value depends on the profile's variables
)

// AgainstItem is one setting of the profile.
type AgainstItem struct {
	Knob      string         `json:"knob"`
	Reference knob.Reference `json:"reference"`
	// Current is the value the audit read.
	Current string `json:"current"`
	State   string `json:"state"`
	// Command makes the setting the profile's (a differing one).
	Command string `json:"command,omitempty"`
	Note    string `json:"note,omitempty"`
}

// tunedIncludes is each profile latlab cites with the profile its [main]
// include= names in tuned 2.20.0 ("" none); a test reads the profiles
// themselves (LATLAB_TUNED_PROFILES).
var tunedIncludes = map[string]string{
	"accelerator-performance": "",
	"balanced":                "",
	"cpu-partitioning":        "network-latency",
	"desktop":                 "balanced",
	"hpc-compute":             "latency-performance",
	"latency-performance":     "",
	"network-latency":         "latency-performance",
	"postgresql":              "throughput-performance",
	"powersave":               "",
	"realtime":                "network-latency",
	"realtime-virtual-host":   "realtime",
	"throughput-performance":  "",
}

// CitedProfiles are the tuned profiles the knob catalogue cites, sorted.
func CitedProfiles() []string {
	seen := map[string]bool{}
	for _, k := range knob.All() {
		for _, r := range k.Checkup().References {
			if r.Source == "tuned" {
				seen[r.Profile] = true
			}
		}
	}
	out := make([]string, 0, len(seen))
	for p := range seen {
		out = append(out, p)
	}
	sort.Strings(out)
	return out
}

// CheckProfile accepts a profile latlab cites; anything else is bad input
// that lists them.
func CheckProfile(profile string) error {
	cited := CitedProfiles()
	if !containsStr(cited, profile) {
		return badinput.Errorf("unknown profile %q: latlab compares against the tuned %s profiles it cites (%s), a tuned.conf or its directory given by path (with a /), or active",
			profile, knob.TunedVersion, strings.Join(cited, ", "))
	}
	return nil
}

// profileChain is the profile and those it includes, nearest first.
func profileChain(p string) []string {
	var out []string
	for p != "" && len(out) < 8 {
		out = append(out, p)
		p = tunedIncludes[p]
	}
	return out
}

// CompareAgainst sets the audit's settings beside profile: each reference
// of the knobs of osName in the profile or the profiles it includes, the
// nearest winning. Whether a settable value differs is the knob's own
// Plan: a plan with nothing to change is the profile's value. cmdline is
// the kernel command line (for the profile's boot parameters). An unknown
// profile is bad input that lists the profiles.
func CompareAgainst(env *knob.Env, osName string, settings []Setting, profile, cmdline string) (*Against, error) {
	if err := CheckProfile(profile); err != nil {
		return nil, err
	}
	a := &Against{Profile: profile, Source: "tuned " + knob.TunedVersion, Profiles: profileChain(profile), Items: []AgainstItem{}}
	current := currentValues(settings)
	for _, k := range knob.All() {
		if k.OS() != osName {
			continue
		}
		// The nearest profile's value of each key.
		refs := map[string]knob.Reference{}
		var keys []string
		for depth := len(a.Profiles) - 1; depth >= 0; depth-- {
			for _, r := range k.Checkup().References {
				if r.Source != "tuned" || r.Profile != a.Profiles[depth] {
					continue
				}
				key := r.Section + "\x00" + r.Key
				if _, ok := refs[key]; !ok {
					keys = append(keys, key)
				}
				refs[key] = r
			}
		}
		seen := map[string]bool{}
		for _, key := range keys {
			it := compareOne(env, k, refs[key], cmdline, citedNote)
			it.Current = current[k.Name()]
			if it.Command != "" && seen[it.Command] {
				continue // busy_read and busy_poll: one knob, one command
			}
			seen[it.Command] = it.Command != ""
			if it.State == Differs {
				a.Differ++
			}
			a.Items = append(a.Items, it)
		}
	}
	return a, nil
}

func containsStr(l []string, s string) bool {
	for _, x := range l {
		if x == s {
			return true
		}
	}
	return false
}

// compareOne judges one reference against this system; why says why a
// value with ${...} left in it is not compared.
func compareOne(env *knob.Env, k knob.Knob, r knob.Reference, cmdline string, why func(string) string) AgainstItem {
	it := AgainstItem{Knob: k.Name(), Reference: r}
	if r.Section == "bootloader" {
		return compareCmdline(it, r.Value, cmdline, why)
	}
	if strings.Contains(r.Value, "${") {
		it.State = NotCompare
		it.Note = why(r.Value)
		return it
	}
	if len(r.Value) > 1 && (r.Value[0] == '>' || r.Value[0] == '<') {
		// tuned's assignment modifiers (plugins/base.py): >N sets N only
		// over a smaller value, <N only over a larger one.
		it.State = NotCompare
		it.Note = fmt.Sprintf("tuned sets %s only where the value now is %s than that: latlab does not judge a bound", r.Value[1:], map[byte]string{'>': "lower", '<': "higher"}[r.Value[0]])
		return it
	}
	// tuned's "a|b": the first alternative this system takes.
	var firstErr error
	for _, alt := range strings.Split(r.Value, "|") {
		v, ok := knobValue(r, alt)
		if !ok {
			continue
		}
		p, err := k.Plan(env, knob.Selector{}, v)
		if err != nil {
			if firstErr == nil {
				firstErr = err
			}
			continue
		}
		if len(p.Changes) == 0 && len(p.Manual) == 0 {
			it.State = Same
			return it
		}
		it.State = Differs
		args := []string{"latlab", "knob", "set", k.Name(), v}
		if strings.HasPrefix(v, "-") {
			args = []string{"latlab", "knob", "set", k.Name(), "--", v}
		}
		it.Command = knob.CommandLine(args)
		if v != alt {
			it.Note = fmt.Sprintf("%s in latlab's terms", v)
		}
		return it
	}
	it.State = CannotSet
	if firstErr != nil {
		it.Note = firstErr.Error()
	} else {
		it.Note = fmt.Sprintf("latlab has no value for %s=%s", r.Key, r.Value)
	}
	return it
}

// knobValue is a profile's value in the knob's terms: force_latency in µs
// with its unit (a cstate.* form has none), energy_perf_bias as epb=NAME,
// the rest as written.
func knobValue(r knob.Reference, v string) (string, bool) {
	switch r.Key {
	case "force_latency":
		if _, err := strconv.Atoi(v); err != nil {
			return "", false
		}
		return v + "us", true
	case "energy_perf_bias":
		return "epb=" + v, true
	}
	return v, v != ""
}

// compareCmdline checks the profile's boot parameters on the kernel
// command line: the ones without variables.
func compareCmdline(it AgainstItem, value, cmdline string, why func(string) string) AgainstItem {
	have := map[string]bool{}
	for _, f := range strings.Fields(cmdline) {
		have[f] = true
	}
	if rest, ok := strings.CutPrefix(value, "-"); ok {
		// tuned's cmdlineSUFFIX=-ARGS takes ARGS off the command line
		// the other cmdline options make.
		var there []string
		for _, f := range strings.Fields(rest) {
			if have[f] {
				there = append(there, f)
			}
		}
		if len(there) > 0 {
			it.State = Differs
			it.Note = "a boot parameter the profile removes: take " + strings.Join(there, " ") + " off the kernel command line (latlab knob explain " + it.Knob + ")"
		} else {
			it.State = Same
		}
		return it
	}
	var missing []string
	vars := false
	for _, f := range strings.Fields(strings.TrimPrefix(value, "+")) {
		f = strings.TrimPrefix(f, "+")
		if strings.Contains(f, "${") {
			vars = true
			continue
		}
		if !have[f] {
			missing = append(missing, f)
		}
	}
	switch {
	case len(missing) > 0:
		it.State = Differs
		it.Note = "a boot parameter: add " + strings.Join(missing, " ") + " to the kernel command line (latlab knob explain " + it.Knob + ")"
	case vars:
		it.State = NotCompare
		it.Note = "the rest comes " + strings.TrimPrefix(why(value), "the profile sets it ")
	default:
		it.State = Same
	}
	return it
}

// citedNote is unresolvedNote for a cited profile, whose references
// hold none of its [variables]: read from its file, they are worked out.
func citedNote(v string) string {
	return unresolvedNote(v) + " from latlab's references, which hold no [variables] (give the profile's tuned.conf path to have them worked out)"
}

// unresolvedNote says why a value with ${...} left in it is not compared:
// the variables it needs (isolated_cores) or tuned's functions it calls.
func unresolvedNote(v string) string {
	funcs, vars := unresolved(v)
	var parts []string
	if len(vars) > 0 {
		parts = append(parts, "from its variables ("+strings.Join(vars, ", ")+")")
	}
	if len(funcs) > 0 {
		parts = append(parts, "from tuned's functions ("+strings.Join(funcs, ", ")+"), which tuned works out on the machine")
	}
	if len(parts) == 0 {
		parts = append(parts, "from its variables")
	}
	return "the profile sets it " + strings.Join(parts, " and ") + ": latlab cannot tell what it would be here"
}
