package journal

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/latlab/latlab/internal/knob/internal/safefile"
)

// stateDir is an open state directory. Every file in it is opened
// relative to the directory's descriptor, with O_NOFOLLOW: a path swapped
// after the directory was checked, or a symbolic link planted in it, is
// never followed.
type stateDir struct {
	path string
	fd   int
}

// openStateDir opens (with create, first creates: 0700) the state
// directory and checks it as StrictModes would.
func openStateDir(path string, create bool) (*stateDir, error) {
	if create {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return nil, stateErr(path, err)
		}
		if err := os.Mkdir(path, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
			return nil, stateErr(path, err)
		}
	}
	// O_NOFOLLOW: the directory itself is never a link, which whoever
	// owns the link could repoint at another journal (or none) between
	// a set and its revert.
	fd, err := unix.Open(path, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if errors.Is(err, unix.ELOOP) || errors.Is(err, unix.ENOTDIR) && isLink(path) {
		return nil, fmt.Errorf("refusing state directory %s: it is a symbolic link, which latlab never follows there; give the directory itself", path)
	}
	if err != nil {
		return nil, stateErr(path, err)
	}
	d := &stateDir{path: path, fd: fd}
	if err := d.check(fd, path, true); err != nil {
		d.close()
		return nil, err
	}
	if os.Geteuid() == 0 {
		if err := checkStatePath(path, fd); err != nil {
			d.close()
			return nil, err
		}
	}
	return d, nil
}

func isLink(path string) bool {
	st, err := os.Lstat(path)
	return err == nil && st.Mode()&fs.ModeSymlink != 0
}

// checkStatePath applies sshd's StrictModes rule to what lies above the
// state directory, as sshd's safe_path() does for authorized_keys (every
// directory from the file up to / must be owned by root or the user and
// not writable by group or others): whoever could rename a directory
// above it could swap in a journal of their own. One exception, safe
// for this use: a sticky directory owned by root (/tmp), where others may
// add entries but cannot rename or remove root's. Running as root, "root
// or the user" is root.
//
// The directories checked are the ones above the opened directory (each
// ".." in turn up to /), so a path that changes meanwhile changes nothing;
// and every link on the path as given must be root's, since a link's
// owner can repoint it.
func checkStatePath(path string, fd int) error {
	for p := filepath.Dir(filepath.Clean(path)); ; p = filepath.Dir(p) {
		if st, err := os.Lstat(p); err == nil && st.Mode()&fs.ModeSymlink != 0 {
			if sys, _ := st.Sys().(*syscall.Stat_t); sys != nil && sys.Uid != 0 {
				return fmt.Errorf("refusing state directory %s: %s is a symbolic link owned by uid %d, who can repoint it; give a path without it", path, p, sys.Uid)
			}
		}
		if p == filepath.Dir(p) {
			break
		}
	}
	cur := fd
	defer func() {
		if cur != fd {
			unix.Close(cur)
		}
	}()
	name := filepath.Clean(path)
	for {
		var here, up unix.Stat_t
		if err := unix.Fstat(cur, &here); err != nil {
			return fmt.Errorf("state directory %s: %w", path, err)
		}
		pfd, err := unix.Openat(cur, "..", unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
		if err != nil {
			return fmt.Errorf("state directory %s: the directory above %s: %w", path, name, err)
		}
		if err := unix.Fstat(pfd, &up); err != nil {
			unix.Close(pfd)
			return fmt.Errorf("state directory %s: %w", path, err)
		}
		if up.Dev == here.Dev && up.Ino == here.Ino { // at /
			unix.Close(pfd)
			return nil
		}
		if cur != fd {
			unix.Close(cur)
		}
		cur = pfd
		name = filepath.Dir(name)
		if err := parentModes(path, name, up.Uid, up.Mode); err != nil {
			return err
		}
	}
}

// parentModes is the rule of checkStatePath for one directory above the
// state directory.
func parentModes(path, parent string, uid, mode uint32) error {
	switch {
	case uid != 0:
		return fmt.Errorf("refusing state directory %s: the directory above it, %s, is owned by uid %d, who could swap the journal; fix: chown root %s, or use a state directory under root's", path, parent, uid, parent)
	case mode&0o022 != 0 && mode&unix.S_ISVTX == 0:
		return fmt.Errorf("refusing state directory %s: the directory above it, %s, is writable by group or others, who could swap the journal; fix: chmod go-w %s", path, parent, parent)
	}
	return nil
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
