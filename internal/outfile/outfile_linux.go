package outfile

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"

	"github.com/latlab/latlab/internal/safedir"
)

// euid is the effective user; a variable so tests can check root's rules.
var euid = os.Geteuid

// linuxFile is the temporary file and the directory it is in. Everything
// after the directory is opened happens relative to its descriptor, so
// swapping a directory on the path afterwards changes nothing.
type linuxFile struct {
	dir        int // descriptor of the target's directory
	dirName    string
	base, temp string // names in dir
	f          *os.File
}

// openDir opens the directory path is in and, as root, refuses one that
// someone else could change: it must be root's and not writable by group
// or others, unless sticky (like /tmp), where others cannot rename or
// remove root's files. Every directory above it is held to the same rule
// and the path is walked from / without following a link root does not
// own (internal/safedir), so no one can steer the write elsewhere by a
// link or a rename further up. The check is on the opened descriptor, so
// it holds for the directory the file is written in whatever the path
// becomes.
func openDir(path string) (int, string, error) {
	return openDirCreate(path, filepath.Dir(filepath.Clean(path)), false)
}

// openDirCreate opens name (for the file path, or for a directory to
// create) as openDir does, creating what is missing when create is set.
func openDirCreate(path, name string, create bool) (int, string, error) {
	root := euid() == 0
	fd, err := safedir.Open(name, safedir.Options{Create: create, Perm: 0o755, LastPerm: 0o755, Strict: root})
	var r *safedir.Refusal
	if errors.As(err, &r) {
		return -1, "", refusal(path, "a directory on its way: "+r.Error())
	}
	if err != nil && create {
		return -1, "", fmt.Errorf("cannot create %s: %w", path, err)
	}
	if err != nil {
		return -1, "", badinputf("cannot write %s: %v", path, err)
	}
	if !root {
		return fd, name, nil
	}
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		unix.Close(fd)
		return -1, "", fmt.Errorf("stat %s: %w", name, err)
	}
	switch {
	case st.Uid != 0:
		unix.Close(fd)
		return -1, "", refusal(path, fmt.Sprintf("its directory %s belongs to uid %d, and root writes only in directories root owns", name, st.Uid))
	case st.Mode&0o022 != 0 && st.Mode&unix.S_ISVTX == 0:
		unix.Close(fd)
		return -1, "", refusal(path, fmt.Sprintf("its directory %s is writable by group or others and not sticky; fix: chmod go-w %s", name, name))
	}
	return fd, name, nil
}

// checkDir checks the deepest directory of path that exists (and every
// one above it) as mkdirAll would.
func checkDir(path string) error {
	name := filepath.Clean(path)
	for {
		if _, err := os.Lstat(name); err == nil || name == filepath.Dir(name) {
			break
		}
		name = filepath.Dir(name)
	}
	fd, _, err := openDirCreate(path, name, false)
	if err != nil {
		return err
	}
	unix.Close(fd)
	return nil
}

// mkdirAll creates the directory path and what is missing above it, as
// openDir would check them, before anything is created in one.
func mkdirAll(path string) error {
	fd, _, err := openDirCreate(path, filepath.Clean(path), true)
	if err != nil {
		return err
	}
	unix.Close(fd)
	return nil
}

// targetState looks at the target without following it: it may be absent
// or a regular file, never a link, a FIFO, a device or a directory.
func targetState(dir int, path, base string) (exists bool, perm uint32, err error) {
	var st unix.Stat_t
	err = unix.Fstatat(dir, base, &st, unix.AT_SYMLINK_NOFOLLOW)
	if errors.Is(err, unix.ENOENT) {
		return false, 0o644, nil
	}
	if err != nil {
		return false, 0, fmt.Errorf("stat %s: %w", path, err)
	}
	switch st.Mode & unix.S_IFMT {
	case unix.S_IFREG:
		return true, st.Mode & 0o777, nil
	case unix.S_IFLNK:
		return true, 0, refusal(path, "it is a symbolic link (latlab never writes through one; give the real path)")
	case unix.S_IFDIR:
		return true, 0, refusal(path, "it is a directory")
	}
	return true, 0, refusal(path, "it is "+kind(st.Mode)+", "+errNotRegular.Error())
}

func kind(mode uint32) string {
	switch mode & unix.S_IFMT {
	case unix.S_IFIFO:
		return "a FIFO"
	case unix.S_IFCHR:
		return "a character device"
	case unix.S_IFBLK:
		return "a block device"
	case unix.S_IFSOCK:
		return "a socket"
	}
	return "a special file"
}

func checkTarget(path string) (bool, error) {
	dir, _, err := openDir(path)
	if err != nil {
		return false, err
	}
	defer unix.Close(dir)
	exists, _, err := targetState(dir, path, filepath.Base(filepath.Clean(path)))
	return exists, err
}

func create(path string) (sysFile, error) {
	dir, dirName, err := openDir(path)
	if err != nil {
		return nil, err
	}
	base := filepath.Base(filepath.Clean(path))
	// The new file takes the mode of the one it replaces (a private 0600
	// result stays private), less the umask as for any new file.
	_, perm, err := targetState(dir, path, base)
	if err != nil {
		unix.Close(dir)
		return nil, err
	}
	for range 100 {
		var r [6]byte
		_, _ = rand.Read(r[:])
		temp := "." + base + ".latlab-" + hex.EncodeToString(r[:])
		fd, err := unix.Openat(dir, temp, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW|unix.O_CLOEXEC, perm)
		if errors.Is(err, unix.EEXIST) {
			continue
		}
		if err != nil {
			unix.Close(dir)
			return nil, badinputf("cannot write %s: %v", path, &os.PathError{Op: "create", Path: filepath.Join(dirName, temp), Err: err})
		}
		return &linuxFile{dir: dir, dirName: dirName, base: base, temp: temp, f: os.NewFile(uintptr(fd), filepath.Join(dirName, temp))}, nil
	}
	unix.Close(dir)
	return nil, fmt.Errorf("cannot write %s: no free temporary name", path)
}

func (l *linuxFile) file() io.Writer { return l.f }

func (l *linuxFile) commit() error {
	if err := l.f.Sync(); err != nil {
		return err
	}
	if err := l.f.Close(); err != nil {
		return err
	}
	l.f = nil
	// Renaming over a link or a FIFO planted since the check replaces it
	// and follows nothing; over a directory it fails.
	if err := unix.Renameat(l.dir, l.temp, l.dir, l.base); err != nil {
		return fmt.Errorf("rename into place: %w", err)
	}
	l.temp = ""
	err := unix.Fsync(l.dir)
	unix.Close(l.dir)
	l.dir = -1
	if err != nil && !errors.Is(err, unix.EINVAL) {
		return fmt.Errorf("sync %s: %w", l.dirName, err)
	}
	return nil
}

func (l *linuxFile) abort() {
	if l.f != nil {
		l.f.Close()
		l.f = nil
	}
	if l.dir >= 0 {
		if l.temp != "" {
			_ = unix.Unlinkat(l.dir, l.temp, 0)
		}
		unix.Close(l.dir)
		l.dir = -1
	}
}
