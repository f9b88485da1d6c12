package try

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/latlab/latlab/internal/knob/journal"
)

// Record is what try keeps in the state directory while it runs
// (journal.ExperimentFile). The journal holds the original values; the
// record only tells which of its entries an experiment made, so that the
// next try or knob set can say that one did not finish.
type Record struct {
	State   string    `json:"state"` // "running" or "finished"
	Command string    `json:"command"`
	PID     int       `json:"pid"`
	Started time.Time `json:"started"`
	Knob    string    `json:"knob"`
	// FirstEntry is the journal's next entry id when the experiment
	// started: its entries are this one and later (it holds the journal's
	// lock throughout, so no other command adds any meanwhile).
	FirstEntry int `json:"first_entry"`
}

// Record states.
const (
	StateRunning  = "running"
	StateFinished = "finished"
)

func writeRecord(j *journal.Journal, r Record) error {
	b, err := json.Marshal(r)
	if err != nil {
		return err
	}
	if err := j.WriteExperiment(append(b, '\n')); err != nil {
		return fmt.Errorf("experiment record: %w", err)
	}
	return nil
}

// Unfinished looks for an experiment that did not finish and left changes
// in place: its record still says running and journal entries it made are
// open. It returns nil when there is none.
func Unfinished(j *journal.Journal) (*Record, []journal.Entry, error) {
	b, err := j.ReadExperiment()
	if err != nil || b == nil {
		return nil, nil, err
	}
	var r Record
	if err := json.Unmarshal(b, &r); err != nil {
		// Never trusted for a write, so a damaged record is only named.
		return &Record{State: StateRunning, Command: "(the experiment record is damaged: " + err.Error() + ")"}, openEntries(j, 1, ""), nil
	}
	if r.State != StateRunning {
		return nil, nil, nil
	}
	open := openEntries(j, r.FirstEntry, r.Knob)
	if len(open) == 0 {
		return nil, nil, nil
	}
	return &r, open, nil
}

// CloseStale marks the record of an experiment that did not finish, but
// left nothing in place, finished: the changes made after it (a knob set
// of the same knob) are not its. It needs the journal's lock; a journal
// read without it is left alone.
func CloseStale(j *journal.Journal) error {
	b, err := j.ReadExperiment()
	if err != nil || b == nil {
		return err
	}
	var r Record
	if json.Unmarshal(b, &r) != nil || r.State != StateRunning || len(openEntries(j, r.FirstEntry, r.Knob)) > 0 {
		return nil
	}
	r.State = StateFinished
	return writeRecord(j, r)
}

// openEntries are the open entries of knob name (every knob when "") from
// id first on.
func openEntries(j *journal.Journal, first int, name string) []journal.Entry {
	var out []journal.Entry
	for _, e := range j.Entries {
		if e.ID >= first && e.Open() && (name == "" || e.Knob == name) {
			out = append(out, e)
		}
	}
	return out
}

// UnfinishedMessage says what an unfinished experiment left and how to
// undo it; undo is the revert command (with the flags that chose the
// journal).
func UnfinishedMessage(r *Record, open []journal.Entry, undo string) string {
	what := r.Command
	if r.PID > 0 {
		what = fmt.Sprintf("\"%s\" (pid %d, started %s)", r.Command, r.PID, r.Started.Local().Format("2006-01-02 15:04:05"))
	}
	ids := fmt.Sprintf("entry %d", open[0].ID)
	if len(open) > 1 {
		ids = fmt.Sprintf("entries %d-%d", open[0].ID, open[len(open)-1].ID)
	}
	return fmt.Sprintf("an experiment did not finish: %s left %d change(s) of %s in place (journal %s); %s restores the original values",
		what, len(open), open[0].Knob, ids, undo)
}
