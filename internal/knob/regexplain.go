package knob

import (
	"context"
	"fmt"
	"regexp"
	"strings"

	"github.com/latlab/latlab/internal/badinput"
	"github.com/latlab/latlab/internal/knob/backend"
	"github.com/latlab/latlab/internal/regfile"
)

// What a .reg file of tweaks would change, decoded without touching the
// system: the work of `latlab knob explain FILE.reg`. Each value (and
// each deleted key) is offered to the Windows knobs' Vet, the catalogue's
// word on where each knob writes: a value one of them writes is decoded
// by that knob, as `knob explain` decodes it, and every other value is
// listed as one latlab has no evidence on, never guessed at.

// RegExplanation is the payload of a knob-explain-reg document.
type RegExplanation struct {
	File     string `json:"file"`
	Header   string `json:"header"`
	Encoding string `json:"encoding"`
	Keys     int    `json:"keys"`   // key lines read ([KEY] and [-KEY]), or reg or registry commands
	Values   int    `json:"values"` // value lines read
	// Batch: the file is a batch file, read for its reg add and reg
	// delete commands; OtherLines counts its lines that hold none.
	Batch      bool `json:"batch,omitempty"`
	OtherLines int  `json:"other_lines,omitempty"`
	// PowerShell: the file is a PowerShell script, read for its registry
	// commands; OtherLines counts its other commands.
	PowerShell bool `json:"powershell,omitempty"`
	// Known are the values (and deleted keys) a latlab knob writes, in
	// the file's order; Unknown the rest.
	Known   []RegEntry `json:"known"`
	Unknown []RegEntry `json:"unknown"`
	Notes   []string   `json:"notes,omitempty"` // the lines skipped, and why
	// Current: each entry's Now was read from this machine's registry
	// (knob explain --current); Changes counts the entries an import
	// would change, Same those already as the file writes them.
	Current bool `json:"current,omitempty"`
	Changes int  `json:"changes,omitempty"`
	Same    int  `json:"same,omitempty"`
	// Kept counts the entries written only where no value exists
	// (RegEntry.NewOnly) whose value exists: an import leaves them as
	// they are, neither a change nor the same.
	Kept int `json:"kept,omitempty"`
	// Asked counts the entries written by a reg add or deleted by a reg
	// delete without /f (RegEntry.Asks) whose value exists and differs:
	// reg asks before overwriting or deleting it, so whether an import
	// changes it depends on the answer.
	Asked int `json:"asked,omitempty"`
}

// NewOnlyNote is the note on a value New-ItemProperty writes without
// -Force (RegEntry.NewOnly).
const NewOnlyNote = "New-ItemProperty without -Force writes only a value that does not exist yet: an existing value is left as it is"

// AnsweredNoNote is the note on a value a reg add without /f writes
// whose question the script answers no (echo n | reg add ...:
// RegEntry.NewOnly).
const AnsweredNoNote = "reg add without /f, its question answered no (echo n |), writes only a value that does not exist yet: an existing value is left as it is"

// AsksNote is the note on a value reg add writes without /f
// (RegEntry.Asks).
const AsksNote = "reg add without /f asks before overwriting a value that exists (a new value is written without asking): whether an existing one is overwritten depends on the answer, and a script run unattended waits for it"

// DeleteAsksNote is the note on a value or key reg delete deletes
// without /f (RegEntry.Asks).
const DeleteAsksNote = "reg delete without /f asks before deleting: whether it is deleted depends on the answer, and a script run unattended waits for it"

// RegEntry is one value of the file, or one key it deletes.
type RegEntry struct {
	Line int         `json:"line"`
	Loc  backend.Loc `json:"loc"` // Name "" for a deleted key
	// Value is what the file writes there: absent when it deletes it.
	Value      backend.Value `json:"value"`
	KeyDeleted bool          `json:"key_deleted,omitempty"` // [-KEY]
	// Path is the note on how the key was read, when not as written
	// (ControlSet001 as CurrentControlSet).
	Path string `json:"path_note,omitempty"`
	// Note says what the file leaves to the machine: the type of a value
	// a PowerShell Set-ItemProperty writes without -Type (the entry is
	// then not decoded), or that New-Item -Force deletes an existing key.
	Note string `json:"note,omitempty"`
	// NewOnly: the value is written only if it does not exist yet
	// (PowerShell's New-ItemProperty without -Force, or a reg add
	// without /f answered no; Note says so). With
	// --current, Kept says it exists, so an import leaves it as it is.
	NewOnly bool `json:"new_only,omitempty"`
	Kept    bool `json:"kept,omitempty"`
	// Asks: reg add without /f writes the value, asking first when it
	// exists (Note says so). With --current, Asked says it exists and
	// differs, so an import changes it only if the answer is yes.
	Asks  bool `json:"asks,omitempty"`
	Asked bool `json:"asked,omitempty"`
	// clearedBefore: an earlier line of the file deletes the value or its
	// key, so when this one runs the value does not exist, whatever the
	// machine holds now.
	clearedBefore bool
	Knob          string `json:"knob,omitempty"`
	// Text is the knob's explanation of the value; Refused, why latlab
	// would not write this value there (the knob's Vet, or its Explain
	// refusing the value).
	Text    []string `json:"text,omitempty"`
	Refused string   `json:"refused,omitempty"`
	// Now is the value at Loc on this machine (ReadCurrent), and
	// NowError why it could not be read.
	Now      *backend.Value `json:"now,omitempty"`
	NowError string         `json:"now_error,omitempty"`
}

// ReadCurrent reads, with read (the registry backend), what each entry's
// location holds now, and counts the entries an import of the file would
// change: a deleted key or value that exists, a value that differs.
// Nothing is written.
func (x *RegExplanation) ReadCurrent(read func(backend.Loc) (backend.Value, error)) {
	x.Current = true
	for _, list := range [][]RegEntry{x.Known, x.Unknown} {
		for i := range list {
			e := &list[i]
			v, err := read(e.Loc)
			if err != nil {
				e.NowError = err.Error()
				continue
			}
			e.Now = &v
			if e.NewOnly && !e.clearedBefore && !v.IsAbsent() {
				e.Kept = true
				x.Kept++
				continue
			}
			same := backend.Same(v, e.Value)
			if e.KeyDeleted {
				same = v.IsAbsent()
			}
			switch {
			case same:
				x.Same++
			case e.Asks && !e.clearedBefore && !v.IsAbsent():
				e.Asked = true
				x.Asked++
			default:
				x.Changes++
			}
		}
	}
}

// controlSet matches ControlSet001, which an export of an offline hive
// names where a live one says CurrentControlSet: Windows boots the
// control set HKLM\SYSTEM\Select\Current names, 1 on a machine that has
// not fallen back to its last known good set. The others (002, a backup)
// are left as written.
var controlSet = regexp.MustCompile(`(?i)^HKLM\\SYSTEM\\ControlSet(001)(\\|$)`)

// RegFileOptions are the work of `latlab knob explain FILE.reg`.
type RegFileOptions struct {
	Name    string        // the file's name, as shown
	File    *regfile.File // as read (regfile.Read, ReadBatch)
	Explain ExplainOptions
	// Current reads each location as this machine has it now (Windows:
	// the registry backend of Env, or of this machine); nothing is
	// written.
	Current bool
	Env     *Env
	Root    string
}

// RunExplainRegFile decodes a file of tweaks, and with o.Current reads
// what each of its values is now.
func RunExplainRegFile(ctx context.Context, o RegFileOptions) (*RegExplanation, error) {
	if o.Current && o.Env == nil && HostOS != "windows" {
		return nil, badinput.Errorf("--current reads this machine's registry: on Windows only (the file is decoded without it)")
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if !o.Current {
		return ExplainRegFile(o.Name, o.File, o.Explain), nil
	}
	reg, ok := envOf(o.Env, o.Root).Backends[backend.BackendRegistry]
	if !ok {
		return nil, badinput.Errorf("--current reads this machine's registry, which this environment has none of")
	}
	x := ExplainRegFile(o.Name, typedByMachine(o.File, reg.Read), o.Explain)
	x.ReadCurrent(reg.Read)
	return x, nil
}

// typedByMachine is f with the type of each value the script leaves to
// the machine (Value.TypeNote) read from it: what PowerShell writes when
// the value does not exist, or the data converted to the type of the one
// there. A value it cannot read, or whose data latlab does not convert,
// keeps its note. f itself is not changed.
func typedByMachine(f *regfile.File, read func(backend.Loc) (backend.Value, error)) *regfile.File {
	g := *f
	g.Sections = append([]regfile.Section{}, f.Sections...)
	for i := range g.Sections {
		s := &g.Sections[i]
		s.Values = append([]regfile.Value{}, s.Values...)
		for j := range s.Values {
			v := &s.Values[j]
			if v.TypeNote == "" || v.Literal == nil {
				continue
			}
			now, err := read(regLoc(s.Path, v.Name))
			if err != nil {
				continue
			}
			if now.IsAbsent() {
				v.TypeNote = ""
				continue
			}
			typ, ok := backend.RegTypeNumber(now.Type)
			if !ok {
				continue
			}
			if t, b, ok := v.Literal.AsKind(typ); ok {
				v.Type, v.Data, v.TypeNote = t, b, ""
			}
		}
	}
	return &g
}

// ExplainRegFile decodes what the .reg file f (read from name) writes.
func ExplainRegFile(name string, f *regfile.File, o ExplainOptions) *RegExplanation {
	x := &RegExplanation{File: name, Header: f.Header, Encoding: string(f.Encoding), Keys: len(f.Sections),
		Values: f.Values, Batch: f.Batch, PowerShell: f.PowerShell, OtherLines: f.Other, Known: []RegEntry{}, Unknown: []RegEntry{}, Notes: f.Notes}
	if f.PowerShell {
		x.Keys = f.Commands
	}
	ks := windowsKnobs()
	var cleared []deletion // the keys and values deleted so far
	for _, s := range f.Sections {
		path, note := s.Path, s.PathNote
		if m := controlSet.FindStringSubmatch(path); m != nil {
			path = `HKLM\SYSTEM\CurrentControlSet` + path[len(m[0])-len(m[2]):]
			note = fmt.Sprintf("ControlSet%s read as CurrentControlSet, the control set Windows boots unless HKLM\\SYSTEM\\Select\\Current says otherwise", m[1])
		}
		if s.Delete {
			e := RegEntry{Line: s.Line, Loc: regLoc(path, ""), Value: backend.Absent, KeyDeleted: true, Path: note, Note: s.Note}
			if s.Asks {
				e.Asks, e.clearedBefore = true, clearedBy(cleared, e.Loc)
				e.Note = strings.TrimPrefix(e.Note+"; "+DeleteAsksNote, "; ")
			}
			x.add(explainDeletedKey(ks, e))
			cleared = append(cleared, deletion{e.Loc, true})
			continue
		}
		for _, v := range s.Values {
			e := RegEntry{Line: v.Line, Loc: regLoc(path, v.Name), Path: note, Note: v.TypeNote}
			if v.NewOnly {
				e.NewOnly, e.clearedBefore = true, clearedBy(cleared, e.Loc)
				note := NewOnlyNote
				if v.AnsweredNo {
					note = AnsweredNoNote
				}
				e.Note = strings.TrimPrefix(e.Note+"; "+note, "; ")
			}
			if v.Asks {
				e.Asks, e.clearedBefore = true, clearedBy(cleared, e.Loc)
				asks := AsksNote
				if v.Delete {
					asks = DeleteAsksNote
				}
				e.Note = strings.TrimPrefix(e.Note+"; "+asks, "; ")
			}
			if v.Delete {
				cleared = append(cleared, deletion{e.Loc, false})
			}
			e.Value = backend.Value{Type: backend.RegTypeName(v.Type), Data: v.Data}
			if v.Delete {
				e.Value = backend.Absent
			}
			switch {
			case v.TypeNote != "":
				// the type is the machine's: not decoded
				e = explainUntyped(ks, e)
			case !v.Default: // no knob writes a key's default value
				e = explainRegValue(ks, e, o)
			}
			x.add(e)
		}
	}
	return x
}

// deletion is a key or a value a file deletes.
type deletion struct {
	backend.Loc
	key bool
}

// clearedBy says whether one of the deletions removes the value at l: its
// key or a parent key, or the value.
func clearedBy(deleted []deletion, l backend.Loc) bool {
	for _, d := range deleted {
		if d.key {
			if strings.EqualFold(d.Path, l.Path) || len(l.Path) > len(d.Path) && strings.EqualFold(l.Path[:len(d.Path)+1], d.Path+`\`) {
				return true
			}
			continue
		}
		if strings.EqualFold(d.Path, l.Path) && strings.EqualFold(d.Name, l.Name) {
			return true
		}
	}
	return false
}

// explainUntyped names the knob that writes a value whose type the file
// leaves to the machine, without decoding the value.
func explainUntyped(ks []Knob, e RegEntry) RegEntry {
	w := owner(ks, e.Loc, e.Value)
	if w == nil {
		return e
	}
	e.Knob = w.knob.Name()
	e.Text = []string{"not decoded: its type is the machine's (on Windows, --current reads it)", w.knob.Summary()}
	return e
}

func (x *RegExplanation) add(e RegEntry) {
	if e.Knob != "" {
		x.Known = append(x.Known, e)
	} else {
		x.Unknown = append(x.Unknown, e)
	}
}

// windowsKnobs are the catalogue's Windows knobs, by name (All's order).
func windowsKnobs() []Knob {
	var ks []Knob
	for _, k := range All() {
		if k.OS() == "windows" {
			ks = append(ks, k)
		}
	}
	return ks
}

// regTargets are the targets a knob's Vet may need to own l: none (the
// machine-wide knobs), the adapter's class index (the NIC keywords), a
// QoS policy's name, a device instance (msi-mode).
func regTargets(l backend.Loc) []string {
	ts := []string{""}
	if key, ok := adapterKeyOf(l); ok {
		ts = append(ts, key[len(key)-4:])
	}
	if rest, ok := cutKey(l.Path, QoSKey); ok {
		ts = append(ts, strings.SplitN(rest, `\`, 2)[0])
	}
	if rest, ok := cutKey(l.Path, EnumKey); ok {
		if parts := strings.Split(rest, `\`); len(parts) >= 3 {
			ts = append(ts, strings.Join(parts[:3], `\`))
		}
	}
	return ts
}

// regOwner is the knob that writes a location, the target its Vet owned
// it for, and, when not nil, why it would not write the value there.
type regOwner struct {
	knob    Knob
	target  string
	refusal error
}

// owner finds the knob of ks that writes l; nil when none does.
func owner(ks []Knob, l backend.Loc, v backend.Value) *regOwner {
	for _, k := range ks {
		for _, t := range regTargets(l) {
			if err := k.Vet(t, l, v); err == nil || !isNotMine(err) {
				return &regOwner{knob: k, target: t, refusal: err}
			}
		}
	}
	return nil
}

// regInputer is a registry knob that decodes a value a .reg file writes
// at l: regInput is what its Explain takes for v, or why it decodes no
// such value ("" and a reason), or neither when the knob decodes no
// single value there (a QoS policy's match conditions). Each knob's
// file holds its own.
type regInputer interface {
	regInput(l backend.Loc, v backend.Value) (in, why string)
}

// dwordInput is regInput of a value Windows keeps as a REG_DWORD at want.
func dwordInput(l backend.Loc, v backend.Value, want backend.Loc) (string, string) {
	if !sameRegLoc(l, want) {
		return "", ""
	}
	if v.Type != backend.TypeDWORD {
		return "", fmt.Sprintf("a %s where Windows keeps a REG_DWORD: what Windows makes of it is documented nowhere latlab knows of, so latlab does not decode it", v.Type)
	}
	n, err := v.Uint()
	if err != nil {
		return "", err.Error()
	}
	return fmt.Sprint(n), ""
}

func explainRegValue(ks []Knob, e RegEntry, o ExplainOptions) RegEntry {
	w := owner(ks, e.Loc, e.Value)
	if w == nil {
		return e
	}
	k := w.knob
	e.Knob = k.Name()
	switch {
	case w.refusal != nil:
		e.Refused = w.refusal.Error()
		e.Text = []string{k.Summary()}
		return e
	case e.Value.IsAbsent():
		e.Text = []string{"deleted: " + defaultOf(k), k.Summary()}
		return e
	}
	_, isAdapter := adapterKeyOf(e.Loc)
	if ri, ok := k.(regInputer); ok {
		switch in, why := ri.regInput(e.Loc, e.Value); {
		case why != "":
			e.Text = []string{why, k.Summary()}
			return e
		case in != "":
			ex, err := k.Explain(in, o)
			if err != nil {
				e.Refused = err.Error()
				break
			}
			e.Text = ex.Text
			if isAdapter && w.target != "" {
				e.Text = append(append([]string{}, ex.Text...), fmt.Sprintf("(the network adapter at class index %s; latlab inf shows what its driver's INF accepts)", w.target))
			}
			return e
		}
	}
	e.Text = []string{k.Summary()}
	if e.Refused != "" { // the knob's Explain refused the value: its reason says it
		return e
	}
	if isAdapter && w.target != "" {
		e.Text = append(e.Text, fmt.Sprintf("the keyword %s of the network adapter at class index %s: what a value means is its driver's (latlab inf shows the INF's values and default)", e.Loc.Name, w.target))
		return e
	}
	e.Text = append(e.Text, fmt.Sprintf("a value latlab knob set %s writes; latlab knob explain %s decodes the knob's values", k.Name(), k.Name()))
	return e
}

// explainDeletedKey says which knob's value a deleted key holds: Vet
// owns a key that is a knob's key or one of its parents (the keys Plan
// may create).
func explainDeletedKey(ks []Knob, e RegEntry) RegEntry {
	w := owner(ks, e.Loc, backend.Absent)
	if w == nil || w.refusal != nil {
		return e
	}
	k := w.knob
	e.Knob = k.Name()
	e.Text = []string{"the key holds the value of " + k.Name() + ", which its deletion deletes: " + defaultOf(k), k.Summary()}
	return e
}

// defaultOf states a knob's OS default, as the check-up does.
func defaultOf(k Knob) string {
	if d := k.Checkup().Default; d != nil {
		return "the default applies (" + d(&Case{Knob: k.Name(), Raw: backend.Absent}) + ")"
	}
	return "the default applies"
}
