package try

import (
	"github.com/latlab/latlab/internal/knob"
	"github.com/latlab/latlab/internal/knob/journal"
)

// UnfinishedWarning is what knob set says of the experiment record
// before it changes anything (knob.SetOptions.Unfinished): what an
// experiment that did not finish left in place, with undo, the command
// that reverts every change; "" when it left nothing. A record that
// still says running but left nothing is closed, so that the changes
// this set makes are never taken for the experiment's.
func UnfinishedWarning(j *journal.Journal, undo []string) (string, error) {
	r, open, err := Unfinished(j)
	if err != nil {
		return "", err
	}
	if r == nil {
		return "", CloseStale(j)
	}
	return UnfinishedMessage(r, open, knob.CommandLine(undo)), nil
}
