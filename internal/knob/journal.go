package knob

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/latlab/latlab/internal/badinput"
	"github.com/latlab/latlab/internal/knob/backend"
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

// JournalFile is the journal's name in the state directory.
const JournalFile = "journal.json"

// LockFile is the lock's name in the state directory.
const LockFile = "journal.lock"

// journalVersion is the format of journal.json that latlab writes (see
// journal_format.go).
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
	saves  int  // how many times Save wrote it (the tests count)
}

// OpenJournal loads the journal in dir, creating dir (0700) when needed,
// and takes an exclusive lock on it that the OS releases when the process
// dies. Close releases it.
func OpenJournal(dir string) (*Journal, error) {
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

// OpenExistingJournal is OpenJournal for a revert: it creates nothing,
// and a state directory without a journal is an error that says so. A
// mistyped --state-dir (or a link repointed since the set) must not look
// like a journal whose changes are all undone.
func OpenExistingJournal(dir string) (*Journal, error) {
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

// ReadJournal loads the journal in dir without locking it (for history
// and export); a missing journal is empty.
func ReadJournal(dir string) (*Journal, error) {
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
	path := filepath.Join(sd.path, JournalFile)
	b, err := sd.read(JournalFile, maxJournal)
	if errors.Is(err, fs.ErrNotExist) {
		return j, nil
	}
	var tl *tooLargeError
	if errors.As(err, &tl) {
		return nil, fmt.Errorf("journal %s is over %s, the most latlab reads (some 70,000 changes): it is left untouched; check it by hand and move it aside", path, sizeName(tl.limit))
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
		return fmt.Errorf("the journal in %s would grow over %s, the most latlab reads back; revert what is still in place and move journal.json aside", j.dir, sizeName(maxJournal))
	}
	j.saves++
	return j.sd.replace(JournalFile, b)
}

// durable is false only in the in-process crash tests, which simulate
// thousands of crashes and check logic, not the disk; the process tests
// run with it on.
var durable = true

// stateErr is an error opening the state directory at path, with the
// path said once and, for a missing privilege, what to do.
func stateErr(path string, err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	if errors.Is(err, fs.ErrPermission) {
		return fmt.Errorf("state directory %s: %v: %s", path, err, stateDirHint)
	}
	return fmt.Errorf("state directory %s: %w", path, err)
}

// tooLargeError is a file over the size latlab reads.
type tooLargeError struct {
	path  string
	limit int64
}

func (e *tooLargeError) Error() string {
	return fmt.Sprintf("%s is over %s, the most latlab reads", e.path, sizeName(e.limit))
}

// readLimited reads f to its end, refusing more than limit bytes (by its
// size first, so a huge file is not read at all).
func readLimited(f *os.File, path string, limit int64) ([]byte, error) {
	if st, err := f.Stat(); err == nil && st.Size() > limit {
		return nil, &tooLargeError{path, limit}
	}
	b, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	if int64(len(b)) > limit {
		return nil, &tooLargeError{path, limit}
	}
	return b, nil
}

func sizeName(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}

// strictModes is sshd's StrictModes rule for a process running as root
// (euid 0): the state directory and its files must be root's and
// writable by no one else, since whoever can write them decides what
// root's revert writes. uid and mode are the file's owner and permission
// bits.
func strictModes(path string, dir bool, uid, mode uint32, euid int) error {
	if euid != 0 {
		return nil
	}
	q := path
	if strings.ContainsFunc(path, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("/._-+,:@", r))
	}) {
		q = shQuote(path)
	}
	var why, fix []string
	if uid != 0 {
		why = append(why, fmt.Sprintf("owned by uid %d", uid))
		fix = append(fix, "chown root "+q)
	}
	if mode&0o022 != 0 {
		why = append(why, "writable by group or others")
		fix = append(fix, "chmod go-w "+q)
	}
	if len(why) == 0 {
		return nil
	}
	what := "file"
	if dir {
		what = "state directory"
	}
	return fmt.Errorf("refusing %s %s: %s; fix: %s",
		what, path, strings.Join(why, " and "), strings.Join(fix, " && "))
}

// aceInfo is one entry of a Windows ACL.
type aceInfo struct {
	Type, Flags uint8
	Mask        uint32
	SID         string // of an allow or deny entry
}

// Well-known SIDs and ACL bits of the Windows check.
const (
	sidSystem         = "S-1-5-18"
	sidAdministrators = "S-1-5-32-544"
	sidTrustedInstall = "S-1-5-80-956008885-3418522649-1831038044-1853292631-2271478464"
	sidCreatorOwner   = "S-1-3-0"
	aceAllowed        = 0
	aceInheritOnly    = 0x8
	// write data or add a file, append or add a sub-directory, delete a
	// child, DELETE, WRITE_DAC, WRITE_OWNER, GENERIC_ALL, GENERIC_WRITE
	fileWriteAccess = 0x2 | 0x4 | 0x40 | 0x10000 | 0x40000 | 0x80000 | 0x10000000 | 0x40000000
)

// strictACL is the Windows form of strictModes for an elevated process:
// the owner must be SYSTEM, Administrators, TrustedInstaller or this user
// (self), and no entry of the ACL may let anyone else write, delete or
// re-permit the file. A missing ACL grants everyone everything.
func strictACL(path, owner string, aces []aceInfo, nullDACL bool, self string) error {
	trusted := func(sid string) bool {
		return sid == sidSystem || sid == sidAdministrators || sid == sidTrustedInstall || (self != "" && sid == self)
	}
	var why []string
	if !trusted(owner) {
		why = append(why, "owned by "+owner)
	}
	if nullDACL {
		why = append(why, "it has no ACL (everyone may change it)")
	}
	for _, a := range aces {
		if a.Type != aceAllowed || a.Flags&aceInheritOnly != 0 || a.Mask&fileWriteAccess == 0 || trusted(a.SID) || a.SID == sidCreatorOwner {
			continue
		}
		why = append(why, fmt.Sprintf("%s may change it (access 0x%x)", a.SID, a.Mask))
	}
	if len(why) == 0 {
		return nil
	}
	return fmt.Errorf(`refusing %s: %s; fix: icacls "%s" /setowner *S-1-5-32-544, then icacls "%s" /inheritance:r /grant:r *S-1-5-18:(OI)(CI)F *S-1-5-32-544:(OI)(CI)F`,
		path, strings.Join(why, "; "), path, path)
}

// keepClosed is how many closed entries (reverted or gone) a revert keeps
// in the journal for history; older ones are dropped when it saves, so
// the journal, and every save of it, stays the size of what is in place
// plus this. A variable for the tests.
var keepClosed = 1000

// pruneClosed drops all but the newest keep closed entries. Open entries
// are never dropped, nor the counters: ids are never handed out twice.
func (j *Journal) pruneClosed(keep int) {
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
