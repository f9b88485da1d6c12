package knob

import (
	"context"

	"github.com/latlab/latlab/internal/knob/journal"
)

// HistoryOptions are the work of `latlab knob history`.
type HistoryOptions struct {
	// Root is the filesystem root (--root) the default state directory
	// is under; StateDir the journal's directory ("" = the default).
	Root     string
	StateDir string
}

// RunHistory reads every change in the journal, without its lock: a
// missing journal has none.
func RunHistory(ctx context.Context, o HistoryOptions) (*History, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	j, err := journal.Read(stateDirOf(o.StateDir, o.Root))
	if err != nil {
		return nil, err
	}
	return &History{Journal: j.Dir(), Entries: j.Entries, Damaged: j.Damaged, FileDamage: j.FileDamage}, nil
}

// Warnings say what is damaged in the journal: the history shows the
// rest.
func (h *History) Warnings() []string { return journalWarnings(h.Journal, h.FileDamage, h.Damaged) }
