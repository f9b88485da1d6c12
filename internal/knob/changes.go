package knob

import (
	"github.com/latlab/latlab/internal/knob/backend"
	"github.com/latlab/latlab/internal/knob/journal"
)

// ReadJournal reads, without locking, the journal of this machine's state
// directory, or the one under a fixture root: what the check-up consults
// to tell latlab's own changes from others'. Nil when there is none or it
// cannot be read.
func ReadJournal(env *Env) *journal.Journal {
	dir := DefaultStateDir("/")
	if fb, ok := env.Backends[backend.BackendFile].(backend.Files); ok && fb.Root != "" && fb.Root != "/" {
		dir = linuxStateDir(fb.Root)
	}
	j, err := journal.Read(dir)
	if err != nil {
		return nil
	}
	return j
}
