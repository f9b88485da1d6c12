package journal

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"

	"github.com/latlab/latlab/internal/knob/internal/safefile"
	"github.com/latlab/latlab/internal/safedir"
)

// stateDir is an open state directory. Every file in it is opened
// relative to the directory's descriptor, with O_NOFOLLOW: a path swapped
// after the directory was checked, or a symbolic link planted in it, is
// never followed.
type stateDir struct {
	path string
	fd   int
}

// openStateDir opens (with create, first creates: 0700, and 0755 for
// what is missing above it) the state directory and checks it as
// StrictModes would. The path is walked from / one directory at a time
// without following a link (internal/safedir): as root every directory
// above the state directory is checked before anything is created in it,
// so a link or a directory another user controls on the way is refused
// before root creates a thing there.
func openStateDir(path string, create bool) (*stateDir, error) {
	// The state directory itself is never a link, which whoever owns
	// the link could repoint at another journal (or none) between a set
	// and its revert.
	if isLink(path) {
		return nil, fmt.Errorf("refusing state directory %s: it is a symbolic link, which latlab never follows there; give the directory itself", path)
	}
	fd, err := safedir.Open(path, safedir.Options{Create: create, Perm: 0o755, LastPerm: 0o700, Strict: os.Geteuid() == 0})
	var r *safedir.Refusal
	switch {
	case errors.As(err, &r):
		return nil, parentRefusal(path, r)
	case errors.Is(err, unix.ELOOP) || errors.Is(err, unix.ENOTDIR) && isLink(path):
		return nil, fmt.Errorf("refusing state directory %s: it is a symbolic link, which latlab never follows there; give the directory itself", path)
	case err != nil:
		return nil, stateErr(path, err)
	}
	d := &stateDir{path: path, fd: fd}
	if err := d.check(fd, path, true); err != nil {
		d.close()
		return nil, err
	}
	return d, nil
}

func isLink(path string) bool {
	st, err := os.Lstat(path)
	return err == nil && st.Mode()&fs.ModeSymlink != 0
}

// parentRefusal says why a directory (or link) above the state directory
// is refused. The rule is sshd's StrictModes for what lies above
// authorized_keys (safe_path(): every directory up to / owned by root and
// not writable by group or others), as whoever could rename a directory
// above it could swap in a journal of their own; with one exception, safe
// for this use: a sticky directory owned by root (/tmp), where others may
// add entries but cannot rename or remove root's. A link on the path must
// be root's, since a link's owner can repoint it.
func parentRefusal(path string, r *safedir.Refusal) error {
	switch {
	case r.Link:
		return fmt.Errorf("refusing state directory %s: %s is a symbolic link owned by uid %d, who can repoint it; give a path without it", path, r.Dir, r.Uid)
	case r.Uid != 0:
		return fmt.Errorf("refusing state directory %s: the directory above it, %s, is owned by uid %d, who could swap the journal; fix: chown root %s, or use a state directory under root's", path, r.Dir, r.Uid, r.Dir)
	}
	return fmt.Errorf("refusing state directory %s: the directory above it, %s, is writable by group or others, who could swap the journal; fix: chmod go-w %s", path, r.Dir, r.Dir)
}

// stateDirHint is what a permission error on the state directory needs.
const stateDirHint = "it is root's: run latlab with sudo"

func (d *stateDir) close() {
	if d.fd >= 0 {
		unix.Close(d.fd)
		d.fd = -1
	}
}

func (d *stateDir) check(fd int, path string, dir bool) error {
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if !dir && st.Mode&unix.S_IFMT != unix.S_IFREG {
		return fmt.Errorf("%s is not a regular file: latlab refuses it (remove it)", path)
	}
	return strictModes(path, dir, st.Uid, st.Mode&0o7777, os.Geteuid())
}

// openat opens name in the directory without following a symbolic link.
func (d *stateDir) openat(name string, flags int, perm uint32) (*os.File, error) {
	path := filepath.Join(d.path, name)
	fd, err := unix.Openat(d.fd, name, flags|unix.O_NOFOLLOW|unix.O_CLOEXEC|unix.O_NONBLOCK, perm)
	switch {
	case errors.Is(err, unix.ELOOP):
		return nil, fmt.Errorf("%s is a symbolic link: latlab never follows one in its state directory (remove it)", path)
	case errors.Is(err, unix.ENOENT):
		return nil, &fs.PathError{Op: "open", Path: path, Err: fs.ErrNotExist}
	case errors.Is(err, fs.ErrPermission):
		return nil, fmt.Errorf("open %s: %v: %s", path, err, stateDirHint)
	case err != nil:
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	if err := d.check(fd, path, false); err != nil {
		unix.Close(fd)
		return nil, err
	}
	return os.NewFile(uintptr(fd), path), nil
}

// read returns the content of name, at most limit bytes.
func (d *stateDir) read(name string, limit int64) ([]byte, error) {
	f, err := d.openat(name, unix.O_RDONLY, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return safefile.ReadLimited(f, f.Name(), limit)
}

// lock takes an exclusive flock on journal.lock; the kernel drops it when
// the process dies, so a crash never leaves a stale lock.
func (d *stateDir) lock() (func(), error) {
	f, err := d.openat(LockFile, unix.O_RDWR|unix.O_CREAT, 0o600)
	if err != nil {
		return nil, err
	}
	if err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB); err != nil {
		f.Close()
		return nil, errLocked(err)
	}
	return func() { unix.Flock(int(f.Fd()), unix.LOCK_UN); f.Close() }, nil
}

// replace puts data in name atomically: a new file, synced, renamed over
// the old one, the directory synced.
func (d *stateDir) replace(name string, data []byte) error {
	var rnd [8]byte
	rand.Read(rnd[:])
	tmp := name + ".tmp-" + hex.EncodeToString(rnd[:])
	f, err := d.openat(tmp, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL, 0o600)
	if err != nil {
		return fmt.Errorf("journal: %w", err)
	}
	ok := false
	defer func() {
		if !ok {
			f.Close()
			unix.Unlinkat(d.fd, tmp, 0)
		}
	}()
	if _, err := f.Write(data); err != nil {
		return fmt.Errorf("journal: write %s: %w", f.Name(), err)
	}
	if err := safefile.Sync(f); err != nil {
		return fmt.Errorf("journal: sync %s: %w", f.Name(), err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("journal: close %s: %w", f.Name(), err)
	}
	if err := unix.Renameat(d.fd, tmp, d.fd, name); err != nil {
		return fmt.Errorf("journal: rename %s: %w", tmp, err)
	}
	ok = true
	if !safefile.Durable {
		return nil
	}
	if err := unix.Fsync(d.fd); err != nil {
		return fmt.Errorf("journal: sync directory %s: %w", d.path, err)
	}
	return nil
}
