package knob

import (
	"context"
	"strings"

	"github.com/latlab/latlab/internal/knob/journal"

	"github.com/latlab/latlab/internal/knob/backend"
	"github.com/latlab/latlab/internal/regfile"
)

// ExportOptions are the work of `latlab knob export`.
type ExportOptions struct {
	// Undo exports the script that restores the originals of latlab's
	// changes still in place, instead of the current values.
	Undo bool
	// Format is reg, ps1 or sh; "" = this OS's (DefaultFormat).
	Format string
	// Root is the filesystem root of the Linux backends (--root);
	// StateDir the journal's directory ("" = DefaultStateDir(Root)).
	Root     string
	StateDir string
	// Env is what the knobs read through; nil = NewEnv(Root).
	Env *Env
}

// Validate checks, before anything is read, that Format ("" or) names a
// script format. Its errors are badinput.Errors.
func (o ExportOptions) Validate() error {
	if o.Format == "" {
		return nil
	}
	return checkFormat(o.Format)
}

// RunExport renders the current values of every knob of this OS, or the
// undo of latlab's changes, as a script. What cannot go in (a knob that
// cannot be read, a damaged journal entry, a change revert would leave
// alone) is named in Skipped; the script says why in a comment.
func RunExport(ctx context.Context, o ExportOptions) (*Export, error) {
	if err := o.Validate(); err != nil {
		return nil, err
	}
	format := o.Format
	if format == "" {
		format = DefaultFormat(HostOS)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	x := &Export{Undo: o.Undo, Format: format}
	env := envOf(o.Env, o.Root)
	if o.Undo {
		j, err := journal.Read(stateDirOf(o.StateDir, o.Root))
		if err != nil {
			return nil, err
		}
		x.Changes = UndoChanges(env, j)
		for _, d := range j.Damaged {
			x.Skipped = append(x.Skipped, "journal "+d.String()+": damaged: "+d.Why)
		}
		for _, c := range x.Changes {
			if c.Skip != "" {
				x.Skipped = append(x.Skipped, c.Loc.String()+": "+c.Skip)
			}
		}
	} else {
		for _, k := range Native() {
			r, err := k.Get(env, Selector{})
			if err != nil {
				x.Skipped = append(x.Skipped, k.Name()+": "+err.Error())
				continue
			}
			for _, it := range r.Items {
				// latlab's own timer slack (proc/self) is no setting of
				// the machine's: a script cannot set it for anyone.
				if it.Loc != nil && it.Raw != nil && !it.Raw.IsAbsent() && !strings.HasPrefix(it.Loc.Path, "proc/self/") {
					x.Changes = append(x.Changes, Change{Loc: *it.Loc, Old: backend.Absent, New: *it.Raw})
				}
				x.Changes = append(x.Changes, it.Extra...)
			}
		}
	}
	lines, err := Script(x.Changes, format)
	if err != nil {
		return nil, err
	}
	x.Script = lines
	return x, nil
}

// Text is the script as printed: one line each, ending in a newline.
func (x *Export) Text() string { return strings.Join(x.Script, "\n") + "\n" }

// File is the script as a file holds it: a .reg file as regedit writes
// them (UTF-16LE with a BOM, CRLF), the others as Text.
func (x *Export) File() []byte {
	if x.Format == FormatReg {
		return regfile.Encode(x.Text())
	}
	return []byte(x.Text())
}
