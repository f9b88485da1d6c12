// Package prisep decodes Win32PrioritySeparation, the DWORD under
// HKLM\SYSTEM\CurrentControlSet\Control\PriorityControl that sets the
// length of thread quanta and how much longer the foreground process's
// threads run. Pure functions: it works on any OS.
//
// Only the low 6 bits count (0x40 and above repeat the first 64 classes),
// as three 2-bit fields AABBCC:
//
//	AA interval:  01 long, 10 short, 00/11 platform default (short on client, long on server)
//	BB length:    01 variable, 10 fixed, 00/11 platform default (variable on client, fixed on server)
//	CC PsPrioritySeparation: 0, 1, 2 (3 acts as 2)
//
// A quantum is counted in units, 3 per clock tick. The kernel's quantum
// table (PspVariableQuantums / PspFixedQuantums) is
//
//	short variable  6 12 18     long variable 12 24 36
//	short fixed    18 18 18     long fixed    36 36 36
//
// Foreground threads get table[CC], background threads table[0]. This is
// what the measured table of values 0..271 (testdata) shows row by row.
//
// PsPrioritySeparation is also a priority boost, and that part does not
// depend on the quantum type: "whenever a thread in the foreground process
// completes a wait operation on a kernel object, the kernel boosts its
// current priority by the current value of PsPrioritySeparation" (Windows
// Internals). So with fixed quanta, where the quanta are equal whatever CC
// says, CC still decides the foreground wait boost: 0x1A (long, fixed, 3:1)
// is not 0x18 (long, fixed, 1:1).
package prisep

import (
	"fmt"
	"sort"
	"strings"

	"github.com/latlab/latlab/internal/units"
)

// DefaultTickMs is Windows' default clock interval: 64 Hz.
const DefaultTickMs = 15.625

// UnitsPerTick is how many quantum units one clock tick consumes.
const UnitsPerTick = 3

// Decoded is one Win32PrioritySeparation value explained.
type Decoded struct {
	Value     uint32 `json:"value"`
	Effective uint32 `json:"effective"` // low 6 bits: the value the kernel acts on
	Hex       string `json:"hex"`
	Binary    string `json:"binary"` // the 6 effective bits, AABBCC

	Interval        string `json:"interval"` // "short" | "long"
	IntervalDefault bool   `json:"interval_is_platform_default"`
	Length          string `json:"length"` // "fixed" | "variable"
	LengthDefault   bool   `json:"length_is_platform_default"`

	PsPrioritySeparation int `json:"ps_priority_separation"` // 0..2
	// ForegroundBoost is the priority boost, in levels, that a thread of
	// the foreground process gets when it completes a wait: the value of
	// PsPrioritySeparation, for fixed and variable quanta alike.
	ForegroundBoost int `json:"foreground_boost"`
	// QuantumRatio is the foreground:background quantum ratio ("3:1");
	// always "1:1" with fixed quanta.
	QuantumRatio string `json:"quantum_ratio"`

	ForegroundUnits int     `json:"foreground_quantum_units"`
	BackgroundUnits int     `json:"background_quantum_units"`
	ForegroundMs    float64 `json:"foreground_quantum_ms"`
	BackgroundMs    float64 `json:"background_quantum_ms"`
	TickMs          float64 `json:"clock_interval_ms"`
	Server          bool    `json:"server"` // platform defaults of Windows Server were applied
}

// Options select the platform defaults and the clock interval used for the
// millisecond figures.
type Options struct {
	Server bool    // Windows Server: default interval long, default length fixed
	TickMs float64 // clock interval; 0 = DefaultTickMs
}

var quantum = map[[2]string][3]int{
	{"short", "variable"}: {6, 12, 18},
	{"long", "variable"}:  {12, 24, 36},
	{"short", "fixed"}:    {18, 18, 18},
	{"long", "fixed"}:     {36, 36, 36},
}

// Decode explains any 32-bit value.
func Decode(v uint32, o Options) Decoded {
	tick := o.TickMs
	if tick <= 0 {
		tick = DefaultTickMs
	}
	e := v & 0x3F
	d := Decoded{Value: v, Effective: e, Hex: fmt.Sprintf("0x%X", v), Binary: fmt.Sprintf("%06b", e), TickMs: tick, Server: o.Server}
	switch (e >> 4) & 3 {
	case 1:
		d.Interval = "long"
	case 2:
		d.Interval = "short"
	default:
		d.IntervalDefault = true
		d.Interval = "short"
		if o.Server {
			d.Interval = "long"
		}
	}
	switch (e >> 2) & 3 {
	case 1:
		d.Length = "variable"
	case 2:
		d.Length = "fixed"
	default:
		d.LengthDefault = true
		d.Length = "variable"
		if o.Server {
			d.Length = "fixed"
		}
	}
	d.PsPrioritySeparation = int(e & 3)
	if d.PsPrioritySeparation == 3 {
		d.PsPrioritySeparation = 2
	}
	t := quantum[[2]string{d.Interval, d.Length}]
	d.ForegroundUnits = t[d.PsPrioritySeparation]
	d.BackgroundUnits = t[0]
	d.ForegroundBoost = d.PsPrioritySeparation
	d.QuantumRatio = fmt.Sprintf("%d:1", d.ForegroundUnits/d.BackgroundUnits)
	d.ForegroundMs = float64(d.ForegroundUnits) / UnitsPerTick * tick
	d.BackgroundMs = float64(d.BackgroundUnits) / UnitsPerTick * tick
	return d
}

// Setting is the CC field as a ratio, the way the query (and the
// documentation of the value) spells it: PsPrioritySeparation 0, 1, 2 is
// "1:1", "2:1", "3:1". It is the quantum ratio only with variable quanta.
func (d Decoded) Setting() string {
	return fmt.Sprintf("%d:1", d.PsPrioritySeparation+1)
}

// Class is the description of d that ParseQuery reads back.
func (d Decoded) Class() string {
	return d.Interval + "," + d.Length + "," + d.Setting()
}

// Summary is a one-line reading of d.
func (d Decoded) Summary() string {
	return fmt.Sprintf("%s (%d): %s; foreground wait boost +%d", d.Hex, d.Value, d.Quanta(), d.ForegroundBoost)
}

// Quanta says what the quanta are: the interval, the length and the units
// and milliseconds of the foreground and background quantum.
func (d Decoded) Quanta() string {
	if d.ForegroundUnits == d.BackgroundUnits {
		return fmt.Sprintf("%s, %s quanta, equal: %d units (%s ms) foreground and background",
			d.Interval, d.Length, d.ForegroundUnits, FmtMs(d.ForegroundMs))
	}
	return fmt.Sprintf("%s, %s quanta, %s: foreground %d units (%s ms), background %d units (%s ms)",
		d.Interval, d.Length, d.QuantumRatio, d.ForegroundUnits, FmtMs(d.ForegroundMs), d.BackgroundUnits, FmtMs(d.BackgroundMs))
}

// FmtMs formats milliseconds without trailing zeros (93.75, 31.25, 125).
func FmtMs(ms float64) string {
	return units.Trim(ms, 3)
}

// Table decodes the 64 classes 0x00..0x3F.
func Table(o Options) []Decoded {
	out := make([]Decoded, 64)
	for v := range uint32(64) {
		out[v] = Decode(v, o)
	}
	return out
}

// Query is a reverse lookup: the wanted interval, length and CC setting;
// an empty field matches anything.
type Query struct {
	Interval string // short | long
	Length   string // fixed | variable
	// Setting is the CC field: 1:1, 2:1, 3:1 are PsPrioritySeparation 0,
	// 1, 2, the quantum ratio with variable quanta and the foreground
	// wait boost (+0, +1, +2) with either length.
	Setting string
}

// ParseQuery reads "short,variable,3:1" (any order, any subset).
func ParseQuery(s string) (Query, error) {
	var q Query
	for _, f := range strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return r == ',' || r == ' ' || r == '/' }) {
		switch f {
		case "short", "shorter":
			q.Interval = "short"
		case "long", "longer":
			q.Interval = "long"
		case "fixed":
			q.Length = "fixed"
		case "variable":
			q.Length = "variable"
		case "1:1", "2:1", "3:1":
			q.Setting = f
		default:
			return q, fmt.Errorf("unknown term %q in %q: accepted short|long, fixed|variable, 1:1|2:1|3:1, e.g. short,variable,3:1", f, s)
		}
	}
	if q == (Query{}) {
		return q, fmt.Errorf("empty query: accepted e.g. short,variable,3:1")
	}
	return q, nil
}

// Find returns the classes 0x00..0x3F matching q, the recommended value
// first: one that states interval and length explicitly (so it means the
// same on client and server) with the smallest PsPrioritySeparation field
// that gives the boost.
func Find(q Query, o Options) []Decoded {
	var out []Decoded
	for _, d := range Table(o) {
		if (q.Interval == "" || d.Interval == q.Interval) && (q.Length == "" || d.Length == q.Length) && (q.Setting == "" || d.Setting() == q.Setting) {
			out = append(out, d)
		}
	}
	rank := func(d Decoded) int {
		r := 0
		if d.IntervalDefault {
			r += 2
		}
		if d.LengthDefault {
			r += 2
		}
		if d.Effective&3 == 3 {
			r++
		}
		return r
	}
	sort.SliceStable(out, func(i, j int) bool { return rank(out[i]) < rank(out[j]) })
	return out
}
