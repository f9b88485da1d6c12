package knob

import (
	"github.com/latlab/latlab/internal/knob/journal"
	"github.com/latlab/latlab/internal/result"
)

// The kinds of the knob commands' documents, one per subcommand. Before
// they were latlab.result/1 documents they carried "schema":
// "latlab.knob/1" in shapes of their own; those are not read back (no
// command reads them).
var (
	KindList       = result.Register[List]("knob-list", "every knob with its current value and meaning (latlab knob list)")
	KindGet        = result.Register[Reading]("knob-get", "one knob's current value, decoded, per instance (latlab knob get)")
	KindExplain    = result.Register[ExplainResult]("knob-explain", "a knob value decoded without touching the system (latlab knob explain)")
	KindExplainReg = result.Register[RegExplanation]("knob-explain-reg", "what a .reg file of tweaks changes, decoded without touching the system (latlab knob explain FILE.reg)")
	KindSet        = result.Register[SetResult]("knob-set", "a knob change, or what it would change (latlab knob set)")
	KindRevert     = result.Register[RevertResult]("knob-revert", "the restore steps of a revert (latlab knob revert)")
	KindHistory    = result.Register[History]("knob-history", "every change in the journal and whether it is still in place (latlab knob history)")
	KindExport     = result.Register[Export]("knob-export", "current values, or the undo of latlab's changes, as a script (latlab knob export)")
)

// List is the payload of a knob-list document.
type List struct {
	OS    string      `json:"os"` // the OS latlab runs on
	Knobs []ListEntry `json:"knobs"`
}

// ListEntry is one knob of a list: the reading of a knob of this OS, or
// only the summary of one of the other OS's (--all).
type ListEntry struct {
	Name    string   `json:"name"`
	OS      string   `json:"os"`
	Summary string   `json:"summary"`
	Reading *Reading `json:"reading,omitempty"`
	Error   string   `json:"error,omitempty"`
}

// ExplainResult is the payload of a knob-explain document.
type ExplainResult struct {
	Knob  string   `json:"knob"`
	Input string   `json:"input"` // the value explained; "" when none was given
	Text  []string `json:"text"`  // the explanation, as printed
	// Decoded is the knob's own decoding of the value (its fields
	// differ per knob); absent when the knob has none.
	Decoded any `json:"decoded,omitempty"`
}

// SetResult is the payload of a knob-set document.
type SetResult struct {
	DryRun  bool     `json:"dry_run"`
	Applied bool     `json:"applied"`
	Plan    *Plan    `json:"plan"`
	Script  []string `json:"script,omitempty"` // --dry-run: the equivalent script
	Format  string   `json:"script_format,omitempty"`
	Journal string   `json:"journal,omitempty"`
	Entries []int    `json:"journal_entries,omitempty"`
	Undo    []string `json:"undo,omitempty"` // the command that reverts it
	Changes []Delta  `json:"changes"`
}

// Delta is one value a set changed (or would change), as printed.
type Delta struct {
	Where string `json:"where"`
	From  string `json:"from"`
	To    string `json:"to"`
}

// RevertResult is the payload of a knob-revert document.
type RevertResult struct {
	DryRun bool   `json:"dry_run"`
	Steps  []Step `json:"steps"`
	Error  string `json:"error,omitempty"` // why the revert stopped, as the exit status says

	// For the text: the target asked for, and the damaged journal
	// entries, which were left alone.
	Target  string           `json:"-"`
	Damaged []journal.Damage `json:"-"`
}

// History is the payload of a knob-history document.
type History struct {
	Journal    string           `json:"journal"` // the state directory
	Entries    []journal.Entry  `json:"entries"`
	Damaged    []journal.Damage `json:"damaged,omitempty"`
	FileDamage string           `json:"file_damage,omitempty"`
}

// Export is the payload of a knob-export document.
type Export struct {
	Undo    bool     `json:"undo"`
	Format  string   `json:"format"`
	Changes []Change `json:"changes"`
	Script  []string `json:"script"`
	Skipped []string `json:"skipped"`
}
