package knob

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"
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

// Entry is one value latlab changed: where, what it was (type and bytes,
// or absent), what latlab wrote, and how far the change got.
type Entry struct {
	ID         int        `json:"id"`
	Set        int        `json:"set"` // the entries of one `knob set` share it
	Time       time.Time  `json:"time"`
	Knob       string     `json:"knob"`
	Target     string     `json:"target,omitempty"`
	Request    string     `json:"request"` // the value as the user gave it
	Loc        Loc        `json:"loc"`
	Original   Value      `json:"original"`
	New        Value      `json:"new"`
	Guard      *Guard     `json:"guard,omitempty"`
	State      string     `json:"state"`
	RevertedAt *time.Time `json:"reverted_at,omitempty"`
	Note       string     `json:"note,omitempty"`
}

// Open reports whether the entry may still differ from the original.
func (e *Entry) Open() bool { return e.State == StatePending || e.State == StateApplied }

// JournalFile is the journal's name in the state directory.
const JournalFile = "journal.json"

// journalVersion is the format of journal.json.
const journalVersion = 1

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

	dir    string
	unlock func()
}

// OpenJournal loads the journal in dir, creating dir when needed, and
// takes an exclusive lock on it that the OS releases when the process
// dies. Close releases it.
func OpenJournal(dir string) (*Journal, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("state directory %s: %w", dir, err)
	}
	unlock, err := lockDir(dir)
	if err != nil {
		return nil, fmt.Errorf("lock the journal in %s: %w", dir, err)
	}
	j, err := ReadJournal(dir)
	if err != nil {
		unlock()
		return nil, err
	}
	j.unlock = unlock
	return j, nil
}

// ReadJournal loads the journal in dir without locking it (for history
// and export); a missing journal is empty.
func ReadJournal(dir string) (*Journal, error) {
	j := &Journal{Version: journalVersion, NextID: 1, NextSet: 1, dir: dir}
	b, err := os.ReadFile(filepath.Join(dir, JournalFile))
	if errors.Is(err, fs.ErrNotExist) {
		return j, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read journal: %w", err)
	}
	if err := json.Unmarshal(b, j); err != nil {
		// Never start afresh over a journal that cannot be read: it holds
		// the only record of the original values.
		return nil, fmt.Errorf("journal %s is damaged (%v); it is left untouched", filepath.Join(dir, JournalFile), err)
	}
	if j.Version != journalVersion {
		return nil, fmt.Errorf("journal %s has format %d; this latlab reads %d", filepath.Join(dir, JournalFile), j.Version, journalVersion)
	}
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
}

// Save writes the journal durably.
func (j *Journal) Save() error {
	b, err := json.MarshalIndent(j, "", "  ")
	if err != nil {
		return err
	}
	return writeDurable(j.dir, JournalFile, append(b, '\n'))
}

// durable is false only in the in-process crash tests, which simulate
// thousands of crashes and check logic, not the disk; the process tests
// run with it on.
var durable = true

// writeDurable replaces dir/name with data: temp file, fsync, rename,
// fsync of the directory.
func writeDurable(dir, name string, data []byte) error {
	tmp, err := os.CreateTemp(dir, name+".tmp-*")
	if err != nil {
		return fmt.Errorf("journal: %w", err)
	}
	ok := false
	defer func() {
		if !ok {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	if _, err := tmp.Write(data); err != nil {
		return fmt.Errorf("journal: write %s: %w", tmp.Name(), err)
	}
	if err := syncFile(tmp); err != nil {
		return fmt.Errorf("journal: sync %s: %w", tmp.Name(), err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("journal: close %s: %w", tmp.Name(), err)
	}
	if err := replaceFile(tmp.Name(), filepath.Join(dir, name)); err != nil {
		return fmt.Errorf("journal: rename: %w", err)
	}
	ok = true
	if !durable {
		return nil
	}
	if err := syncDir(dir); err != nil {
		return fmt.Errorf("journal: sync directory %s: %w", dir, err)
	}
	return nil
}

// add appends entries with fresh ids under one new set number.
func (j *Journal) add(es []Entry) []int {
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

func syncFile(f *os.File) error {
	if !durable {
		return nil
	}
	return f.Sync()
}
