package knob

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"
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
	fd, err := unix.Open(path, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, stateErr(path, err)
	}
	d := &stateDir{path: path, fd: fd}
	if err := d.check(fd, path, true); err != nil {
		d.close()
		return nil, err
	}
	return d, nil
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
	return readLimited(f, f.Name(), limit)
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
	if err := syncFile(f); err != nil {
		return fmt.Errorf("journal: sync %s: %w", f.Name(), err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("journal: close %s: %w", f.Name(), err)
	}
	if err := unix.Renameat(d.fd, tmp, d.fd, name); err != nil {
		return fmt.Errorf("journal: rename %s: %w", tmp, err)
	}
	ok = true
	if !durable {
		return nil
	}
	if err := unix.Fsync(d.fd); err != nil {
		return fmt.Errorf("journal: sync directory %s: %w", d.path, err)
	}
	return nil
}
