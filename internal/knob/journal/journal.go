// Package journal is the crash-safe record of every setting latlab
// changed: each original value is written here durably before the
// setting is, so a revert restores exactly. It keeps the journal file
// and the state directory that holds it (owned and locked, never
// through a link), and nothing of the knobs: the knob package applies
// and reverts through it.
package journal

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"time"

	"github.com/latlab/latlab/internal/badinput"
	"github.com/latlab/latlab/internal/knob/backend"
	"github.com/latlab/latlab/internal/knob/internal/safefile"
)

// Entry states.
const (
	// StatePending: the original value is recorded; the write may or may
	// not have happened (a crash between the two leaves this).
	StatePending = "pending"
	// StateApplied: the new value was written.
	StateApplied = "applied"
	// StateReverted: the original value is back.
	StateReverted = "reverted"
	// StateGone: the setting no longer exists (the process whose timer
	// slack was set has exited); nothing to revert.
	StateGone = "gone"
)

// Guard is a value that identifies what a change was made to; a revert
// writes only while it still reads the same (the process whose timer
// slack was set, by its start time).
type Guard struct {
	Loc   backend.Loc   `json:"loc"`
	Value backend.Value `json:"value"`
	What  string        `json:"what"` // said when the guard no longer matches
}

// Entry is one value latlab changed: where, what it was (type and bytes,
// or absent), what latlab wrote, and how far the change got.
type Entry struct {
	ID         int           `json:"id"`
	Set        int           `json:"set"` // the entries of one `knob set` share it
	Time       time.Time     `json:"time"`
	Knob       string        `json:"knob"`
	Target     string        `json:"target,omitempty"`
	Request    string        `json:"request"` // the value as the user gave it
	Loc        backend.Loc   `json:"loc"`
	Original   backend.Value `json:"original"`
	New        backend.Value `json:"new"`
	Guard      *Guard        `json:"guard,omitempty"`
	State      string        `json:"state"`
	RevertedAt *time.Time    `json:"reverted_at,omitempty"`
	Note       string        `json:"note,omitempty"`
}

// Open reports whether the entry may still differ from the original.
func (e *Entry) Open() bool { return e.State == StatePending || e.State == StateApplied }

// File is the journal's name in the state directory.
const File = "journal.json"

// LockFile is the lock's name in the state directory.
const LockFile = "journal.lock"

// journalVersion is the format of journal.json that latlab writes (see
// format.go).
const journalVersion = 2

// maxJournal bounds what latlab reads and writes of a journal: some
// 70,000 changes. A variable for the tests.
var maxJournal int64 = 32 << 20

// Journal is the record of every change latlab made, kept in one JSON
// file that is replaced atomically on every update: written to a
// temporary file, synced, renamed over the old one, and the directory
// synced, so that after a crash at any point the file is either the old
// or the new journal, never a mix.
type Journal struct {
	Version int     `json:"version"`
	NextID  int     `json:"next_id"`
	NextSet int     `json:"next_set"`
	Entries []Entry `json:"entries"`
	// Damaged are the lines that fail their checksum or do not decode to
	// an entry: left alone, kept in the file as they are, and a revert
	// fails while there are any.
	Damaged []Damage `json:"damaged,omitempty"`
	// FileDamage says what is wrong with the file beyond its entries (its
	// checksum, its header); "" when nothing is.
	FileDamage string `json:"file_damage,omitempty"`

	dir    string
	sd     *stateDir // nil when read without the lock
	unlock func()
	found  bool // journal.json existed when read
	saves  int  // how many times Save wrote it
}

// Saves is how many times Save wrote the journal since it was opened: a
// revert of many entries saves once, not once per entry.
func (j *Journal) Saves() int { return j.saves }

// Open loads the journal in dir, creating dir (0700) when needed,
// and takes an exclusive lock on it that the OS releases when the process
// dies. Close releases it.
func Open(dir string) (*Journal, error) {
	sd, err := openStateDir(dir, true)
	if err != nil {
		return nil, err
	}
	return lockAndRead(sd, dir, false)
}

// lockAndRead locks the opened state directory and reads its journal;
// with mustExist a directory that holds none is an error (noJournal).
// On error the lock and the directory are released.
func lockAndRead(sd *stateDir, dir string, mustExist bool) (*Journal, error) {
	unlock, err := sd.lock()
	if err != nil {
		sd.close()
		return nil, fmt.Errorf("lock the journal in %s: %w", dir, err)
	}
	j, err := readJournal(sd)
	if err == nil && mustExist && !j.found {
		err = noJournal(dir)
	}
	if err != nil {
		unlock()
		sd.close()
		return nil, err
	}
	j.sd, j.unlock = sd, unlock
	return j, nil
}

// OpenExisting is Open for a revert: it creates nothing,
// and a state directory without a journal is an error that says so. A
// mistyped --state-dir (or a link repointed since the set) must not look
// like a journal whose changes are all undone.
func OpenExisting(dir string) (*Journal, error) {
	sd, err := openStateDir(dir, false)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, noJournal(dir)
	}
	if err != nil {
		return nil, err
	}
	return lockAndRead(sd, dir, true)
}

func noJournal(dir string) error {
	return badinput.Errorf("no journal in %s: latlab recorded no change there (is the --state-dir right?); nothing was reverted", dir)
}

// Read loads the journal in dir without locking it (for history
// and export); a missing journal is empty.
func Read(dir string) (*Journal, error) {
	sd, err := openStateDir(dir, false)
	if errors.Is(err, fs.ErrNotExist) {
		return &Journal{Version: journalVersion, NextID: 1, NextSet: 1, dir: dir}, nil
	}
	if err != nil {
		return nil, err
	}
	defer sd.close()
	return readJournal(sd)
}

func readJournal(sd *stateDir) (*Journal, error) {
	j := &Journal{Version: journalVersion, NextID: 1, NextSet: 1, dir: sd.path}
	path := filepath.Join(sd.path, File)
	b, err := sd.read(File, maxJournal)
	if errors.Is(err, fs.ErrNotExist) {
		return j, nil
	}
	var tl *safefile.TooLargeError
	if errors.As(err, &tl) {
		return nil, fmt.Errorf("journal %s is over %s, the most latlab reads (some 70,000 changes): it is left untouched; check it by hand and move it aside", path, safefile.SizeName(tl.Limit))
	}
	if err != nil {
		return nil, fmt.Errorf("read journal: %w", err)
	}
	j.found = true
	if err := decodeJournal(j, b); err != nil {
		// Never start afresh over a journal that cannot be read: it holds
		// the only record of the original values.
		return nil, fmt.Errorf("journal %s is damaged: %v; it is left untouched", path, err)
	}
	j.Version = journalVersion
	return j, nil
}

// Dir is the state directory.
func (j *Journal) Dir() string { return j.dir }

// Close releases the lock.
func (j *Journal) Close() {
	if j.unlock != nil {
		j.unlock()
		j.unlock = nil
	}
	if j.sd != nil {
		j.sd.close()
		j.sd = nil
	}
}

// Save writes the journal durably.
func (j *Journal) Save() error {
	if j.sd == nil {
		return errors.New("internal: the journal was read without its lock and cannot be saved")
	}
	b, err := j.encode()
	if err != nil {
		return err
	}
	if int64(len(b)) > maxJournal {
		return fmt.Errorf("the journal in %s would grow over %s, the most latlab reads back; revert what is still in place and move journal.json aside", j.dir, safefile.SizeName(maxJournal))
	}
	j.saves++
	return j.sd.replace(File, b)
}

// PruneClosed drops all but the newest keep closed entries (reverted or
// gone), so the journal stays the size of what is in place plus keep. Open entries
// are never dropped, nor the counters: ids are never handed out twice.
func (j *Journal) PruneClosed(keep int) {
	closed := 0
	for i := range j.Entries {
		if !j.Entries[i].Open() {
			closed++
		}
	}
	drop := closed - keep
	if drop <= 0 {
		return
	}
	out := j.Entries[:0]
	for _, e := range j.Entries {
		if !e.Open() && drop > 0 {
			drop--
			continue
		}
		out = append(out, e)
	}
	clear(j.Entries[len(out):])
	j.Entries = out
}

// Add appends entries with fresh ids under one new set number and
// returns their indexes in Entries; Save records them.
func (j *Journal) Add(es []Entry) []int {
	set := j.NextSet
	j.NextSet++
	idx := make([]int, len(es))
	for i := range es {
		es[i].ID = j.NextID
		es[i].Set = set
		j.NextID++
		j.Entries = append(j.Entries, es[i])
		idx[i] = len(j.Entries) - 1
	}
	return idx
}

func errLocked(err error) error {
	return fmt.Errorf("another latlab is changing settings right now (%v); try again when it has finished", err)
}
