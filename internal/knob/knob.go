// Package knob decodes, reads, changes and reverts the settings people tune
// for latency ("knobs"): Win32PrioritySeparation, NDIS RSS keywords, BCD
// tscsyncpolicy, net.ipv4.tcp_recovery, IRQ affinity and so on.
//
// A knob turns a user's value into a Plan: the stored values (Locs) to
// change, read through a Backend (the registry, bcdedit, files under the
// --root directory, ethtool; package backend). Apply records every
// original value in the journal (package journal) durably before it
// writes anything, and Revert puts them back byte for byte, also after a
// crash at any point. Decoding (Explain) is pure and works on any OS.
// Only the backends are OS-specific.
//
// A knob is one file (winknob_*.go, linknob_*.go) and its test: the file
// spells the knob's name once and holds its decoding, planning and Vet,
// what the check-up knows of it (Checkup: its default and verdict rules)
// and how a change of it takes effect for latlab try (Experiment). The
// check-up, try and the exporter ask the catalogue; none keeps a table of
// knobs of its own.
package knob

import (
	"sort"
	"strings"
	"sync"

	"github.com/latlab/latlab/internal/badinput"
	"github.com/latlab/latlab/internal/knob/backend"
	"github.com/latlab/latlab/internal/knob/journal"
	"github.com/latlab/latlab/internal/suggest"
)

// Knob is one setting.
type Knob interface {
	Name() string
	OS() string      // "windows" or "linux": where it can be read and set
	Summary() string // one line: what it is
	// Explain decodes a value without touching the system; value "" gives
	// the general explanation (the defaults, the accepted values).
	Explain(value string, o ExplainOptions) (*Explanation, error)
	// Get reads the current state.
	Get(env *Env, sel Selector) (*Reading, error)
	// Plan computes the writes that would set value; nothing is written.
	Plan(env *Env, sel Selector, value string) (*Plan, error)
	// Vet returns nil when l is a value Plan writes (or reads as a guard)
	// for target, the Plan's Target, and v a value the knob can find or
	// leave there; otherwise it says why not. Apply vets every change and
	// Revert every journal entry: the journal names places and bytes, and
	// only the catalogue decides which of them latlab may write. Vet sees
	// the location alone; a knob whose target only the machine ties to a
	// location (an adapter named by its DriverDesc) also has VetLive
	// (liveVetter), which Apply and Revert call after Vet.
	Vet(target string, l backend.Loc, v backend.Value) error
	// Checkup is what the check-up (latlab doctor) knows of the knob.
	Checkup() Checkup
	// Experiment is how a change takes effect, for latlab try.
	Experiment() Experiment
}

// Selector picks the instance of a per-instance knob (an adapter, an IRQ,
// a process) and carries the extra fields some knobs need.
type Selector struct {
	Adapter string // Windows network adapter: name, class index (0007) or interface GUID
	Iface   string // Linux network interface
	Queue   string // Linux rx queue, e.g. rx-0
	IRQ     string // Linux IRQ number
	PID     string // Linux process id
	CPU     string // Linux CPU list for the per-CPU knobs (0-3,8); "" = every CPU
	Config  string // Windows display configuration id (GraphicsDrivers\Configuration\<id>)

	// qos-dscp policy fields.
	Policy     string
	App        string
	Protocol   string
	LocalPort  string
	RemotePort string
	LocalIP    string
	RemoteIP   string
	NoNLA      bool // also set "Do not use NLA" (needed off a domain)
}

// ExplainOptions tune decoding.
type ExplainOptions struct {
	Server bool    // Windows Server platform defaults
	TickMs float64 // clock interval for quantum lengths; 0 = 15.625
	Table  bool    // print the full table of a value space
	Find   string  // reverse lookup (win32-priority-separation)
}

// Explanation is a decoded value.
type Explanation struct {
	Knob string   `json:"knob"`
	Text []string `json:"-"`
	Data any      `json:"decoded,omitempty"`
}

// Reading is the current state of a knob: one item per instance.
type Reading struct {
	Knob  string   `json:"knob"`
	Items []Item   `json:"items"`
	Notes []string `json:"notes,omitempty"`
}

// Item is one instance's current value.
type Item struct {
	Target   string         `json:"target,omitempty"`
	Loc      *backend.Loc   `json:"loc,omitempty"`
	Raw      *backend.Value `json:"raw,omitempty"` // as stored, for export
	Value    string         `json:"value"`
	Meaning  string         `json:"meaning"`
	Detail   any            `json:"detail,omitempty"`
	Warnings []string       `json:"warnings,omitempty"`
	// NotShown, set when Value is "absent", is the directory every
	// kernel has above the setting file ("/sys/kernel/mm"), missing from
	// the tree (a partial copy under --root) or the system too: the
	// file's absence then says nothing of the kernel, and whether it has
	// the setting cannot be told. Empty when that directory is there
	// and the absence is the kernel's.
	NotShown string `json:"not_shown,omitempty"`
	// Extra are further stored values of the same instance (all RSS
	// keywords of an adapter) for export.
	Extra []Change `json:"-"`
}

// Change is one write: Loc from Old to New.
type Change struct {
	Loc backend.Loc   `json:"loc"`
	Old backend.Value `json:"old"`
	New backend.Value `json:"new"`
	// Guard, when set, must still read the same for a revert to write:
	// it tells the process whose timer slack was set from a later one
	// that got the same PID.
	Guard *Guard `json:"guard,omitempty"`
	// Skip, when set, says why the change must not be made: a script
	// writes it as a comment instead of the write.
	Skip string `json:"skip,omitempty"`
}

// Guard is the journal's: a plan's change carries it into the entry that
// records it. The knob files name it here.
type Guard = journal.Guard

// Plan is what `knob set` would do.
type Plan struct {
	Knob    string   `json:"knob"`
	Target  string   `json:"target,omitempty"`
	Request string   `json:"request"`
	Changes []Change `json:"changes"`
	Notes   []string `json:"notes,omitempty"`
	// Warnings are risks of the change the user must weigh before it is
	// made (a BCD change under BitLocker without Secure Boot).
	Warnings []string `json:"warnings,omitempty"`
	// Manual are the steps of a change latlab does not make itself (a
	// kernel boot parameter: edit the boot loader's configuration,
	// regenerate it, reboot), in order; such a plan has no Changes.
	Manual []ManualStep `json:"manual,omitempty"`
}

// ManualStep is one step of a change latlab does not make itself: what
// to do and, when there is one, the exact line to write or run.
type ManualStep struct {
	Do   string `json:"do"`
	Line string `json:"line,omitempty"`
}

// registered holds the knobs in the order their files' init functions
// ran; catalogue indexes them by name on first use. Indexing calls every
// knob's Name, code spread over the binary: done in init it paged that in
// on every start, `latlab version` and each shell completion included.
var registered []Knob

var catalogue = sync.OnceValue(func() map[string]Knob {
	m := make(map[string]Knob, len(registered))
	for _, k := range registered {
		m[k.Name()] = k
	}
	return m
})

// register adds k to the catalogue; only init functions call it, before
// the first use of catalogue.
func register(k Knob) { registered = append(registered, k) }

// All returns every knob, sorted by OS then name.
func All() []Knob {
	ks := make([]Knob, 0, len(catalogue()))
	for _, k := range catalogue() {
		ks = append(ks, k)
	}
	sort.Slice(ks, func(i, j int) bool {
		if ks[i].OS() != ks[j].OS() {
			return ks[i].OS() < ks[j].OS()
		}
		return ks[i].Name() < ks[j].Name()
	})
	return ks
}

// Native returns the knobs of the OS latlab runs on.
func Native() []Knob {
	var ks []Knob
	for _, k := range All() {
		if k.OS() == HostOS {
			ks = append(ks, k)
		}
	}
	return ks
}

// Lookup finds a knob by name; an unknown name is a badinput.Error that
// suggests the nearest.
func Lookup(name string) (Knob, error) {
	if k, ok := catalogue()[strings.ToLower(name)]; ok {
		return k, nil
	}
	best, bestD := "", 1<<30
	for n := range catalogue() {
		d := suggest.Distance(strings.ToLower(name), n)
		if strings.Contains(n, strings.ToLower(name)) && len(name) >= 3 {
			d = min(d, 2)
		}
		if d < bestD || (d == bestD && n < best) {
			best, bestD = n, d
		}
	}
	if best != "" && bestD <= max(3, len(name)/2) {
		return nil, badinput.Errorf("unknown knob %q: did you mean %s? (latlab knob list shows them all)", name, best)
	}
	return nil, badinput.Errorf("unknown knob %q: accepted %s", name, strings.Join(names(), ", "))
}

// IsNative reports whether k can be read and set on this OS.
func IsNative(k Knob) bool { return k.OS() == HostOS }

func names() []string {
	var ns []string
	for _, k := range All() {
		ns = append(ns, k.Name())
	}
	return ns
}
