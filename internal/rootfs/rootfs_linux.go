package rootfs

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"strings"
	"sync/atomic"

	"golang.org/x/sys/unix"
)

// rel turns a path under the root ("/proc/sys/x" or "proc/sys/x") into
// the relative, slash-separated form resolved beneath it; ".." is
// refused rather than cleaned, since it can only be meant to climb.
func rel(p string) (string, error) {
	r := strings.TrimLeft(p, "/")
	for _, c := range strings.Split(r, "/") {
		if c == ".." {
			return "", fmt.Errorf("%s: .. is not allowed in a path under --root", p)
		}
	}
	r = path.Clean(r)
	if r == "" {
		r = "."
	}
	return r, nil
}

// euid is the effective user; a variable so tests can take root's rules.
var euid = os.Geteuid

// noOpenat2 is set once openat2 was found missing (Linux before 5.6, or
// a seccomp filter that hides it); the walk below is used from then on.
var noOpenat2 atomic.Bool

// Tree is an open --root tree.
type Tree struct {
	root string
	fd   int
	dev  uint64
}

// OpenTree opens root. Running as root, it refuses a tree another user
// owns: its files are the values latlab would journal and restore.
func OpenTree(root string) (*Tree, error) {
	fd, err := unix.Open(root, unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, &os.PathError{Op: "open --root", Path: root, Err: err}
	}
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		unix.Close(fd)
		return nil, &os.PathError{Op: "stat --root", Path: root, Err: err}
	}
	if uid := euid(); uid == 0 && int(st.Uid) != uid {
		unix.Close(fd)
		return nil, fmt.Errorf("refusing --root %s: it belongs to uid %d; running as root, latlab uses only a tree root owns (fix: chown -R root %s)", root, st.Uid, root)
	}
	return &Tree{root: root, fd: fd, dev: uint64(st.Dev)}, nil
}

// Close releases the tree's descriptor.
func (t *Tree) Close() error { return unix.Close(t.fd) }

// Open opens name (a path under the tree, e.g. "/proc/sys/net/ipv4/x")
// with flags, resolving it beneath the tree, through no symbolic link and
// onto no other file system: openat2 with RESOLVE_BENEATH |
// RESOLVE_NO_SYMLINKS | RESOLVE_NO_XDEV, or where openat2 is missing a walk
// of O_NOFOLLOW opens, one component at a time.
func (t *Tree) Open(name string, flags int) (*os.File, error) {
	return t.open(name, func(r string) (int, error) {
		return t.openat(r, flags|unix.O_CLOEXEC|unix.O_NOFOLLOW)
	})
}

// OpenFollow opens name for reading beneath the tree as Open does, except
// that links are followed while they stay inside the tree: a copy of a
// real /sys is made of them (cpu0/cpufreq -> ../cpufreq/policy0,
// /sys/class/net/eth0 -> ../../devices/...). A link that is absolute or
// climbs out, or a mount, is refused as by Open; where openat2 is missing
// no link is followed. Never for a write: a write goes through Open.
func (t *Tree) OpenFollow(name string, flags int) (*os.File, error) {
	if flags&(unix.O_WRONLY|unix.O_RDWR|unix.O_CREAT|unix.O_TRUNC) != 0 {
		return nil, fmt.Errorf("%s: OpenFollow is for reading only", name)
	}
	return t.open(name, func(r string) (int, error) {
		return t.openat2(r, flags|unix.O_CLOEXEC, unix.RESOLVE_BENEATH|unix.RESOLVE_NO_MAGICLINKS|unix.RESOLVE_NO_XDEV)
	})
}

// open opens name, relative to the tree, with at; a link or a mount on the
// way that at refuses is a LinkError.
func (t *Tree) open(name string, at func(r string) (int, error)) (*os.File, error) {
	r, err := rel(name)
	if err != nil {
		return nil, err
	}
	fd, err := at(r)
	if err != nil {
		if errors.Is(err, unix.ELOOP) || errors.Is(err, unix.EXDEV) {
			return nil, &LinkError{Root: t.root, Path: name}
		}
		return nil, &os.PathError{Op: "open", Path: filepath.Join(t.root, r), Err: err}
	}
	return os.NewFile(uintptr(fd), filepath.Join(t.root, r)), nil
}

func (t *Tree) openat(r string, flags int) (int, error) {
	return t.openat2(r, flags, unix.RESOLVE_BENEATH|unix.RESOLVE_NO_SYMLINKS|unix.RESOLVE_NO_MAGICLINKS|unix.RESOLVE_NO_XDEV)
}

func (t *Tree) openat2(r string, flags int, resolve uint64) (int, error) {
	if !noOpenat2.Load() {
		how := unix.OpenHow{Flags: uint64(flags), Resolve: resolve}
		for {
			fd, err := unix.Openat2(t.fd, r, &how)
			if errors.Is(err, unix.EAGAIN) || errors.Is(err, unix.EINTR) {
				continue // a rename raced the lookup; the kernel asks to retry
			}
			if !errors.Is(err, unix.ENOSYS) {
				return fd, err
			}
			break
		}
		noOpenat2.Store(true)
	}
	return t.walk(r, flags)
}

// walk opens r one component at a time from the tree's descriptor, each
// directory with O_NOFOLLOW and checked to be on the tree's file system:
// what openat2 does in one call.
func (t *Tree) walk(r string, flags int) (int, error) {
	dir := t.fd
	closeDir := func() {
		if dir != t.fd {
			unix.Close(dir)
		}
	}
	defer closeDir()
	parts := strings.Split(r, "/")
	for i, c := range parts {
		if c == "." {
			if i == len(parts)-1 {
				return unix.Openat(t.fd, ".", flags, 0)
			}
			continue
		}
		last := i == len(parts)-1
		f := unix.O_PATH | unix.O_DIRECTORY | unix.O_NOFOLLOW | unix.O_CLOEXEC
		if last {
			f = flags | unix.O_NOFOLLOW
		}
		fd, err := unix.Openat(dir, c, f, 0)
		if err != nil {
			if !last && errors.Is(err, unix.ENOTDIR) {
				// O_DIRECTORY|O_NOFOLLOW on a link says ENOTDIR; a
				// file where a directory should be says the same.
				var st unix.Stat_t
				if unix.Fstatat(dir, c, &st, unix.AT_SYMLINK_NOFOLLOW) == nil && st.Mode&unix.S_IFMT == unix.S_IFLNK {
					return -1, unix.ELOOP
				}
			}
			return -1, err
		}
		var st unix.Stat_t
		if err := unix.Fstat(fd, &st); err != nil || uint64(st.Dev) != t.dev {
			unix.Close(fd)
			if err != nil {
				return -1, err
			}
			return -1, unix.EXDEV
		}
		if last {
			return fd, nil
		}
		closeDir()
		dir = fd
	}
	return -1, unix.ENOENT
}

// UseWalk makes Open walk one component at a time, as where openat2 is
// missing, until the returned func is called: the tests run every case
// both ways.
func UseWalk() (undo func()) {
	old := noOpenat2.Swap(true)
	return func() { noOpenat2.Store(old) }
}

// maxRead bounds ReadFile: /proc/cpuinfo of a large machine is under 1 MiB.
const maxRead = 4 << 20

// Open opens p (e.g. "/proc/interrupts") under root for reading. The
// host's root is opened by path as always. In a --root tree the path is
// resolved beneath the tree and onto no other file system; links are
// followed only while they stay inside it (a sysfs-shaped tree is made of
// them), and where openat2 is missing not at all. Running as root, a tree
// another user owns is refused (OpenTree).
func Open(root, p string) (*os.File, error) {
	if IsHost(root) {
		return os.Open(filepath.Join(root, p))
	}
	r, err := rel(p)
	if err != nil {
		return nil, err
	}
	t, err := OpenTree(root)
	if err != nil {
		return nil, err
	}
	defer t.Close()
	flags := unix.O_RDONLY | unix.O_CLOEXEC | unix.O_NONBLOCK // a FIFO in the tree must not block
	fd, err := t.openat2(r, flags, unix.RESOLVE_BENEATH|unix.RESOLVE_NO_MAGICLINKS|unix.RESOLVE_NO_XDEV)
	if err != nil {
		if errors.Is(err, unix.ELOOP) || errors.Is(err, unix.EXDEV) {
			return nil, &LinkError{Root: root, Path: p}
		}
		return nil, &os.PathError{Op: "open", Path: filepath.Join(root, r), Err: err}
	}
	return os.NewFile(uintptr(fd), filepath.Join(root, r)), nil
}

// ReadFile reads p under root as Open opens it, up to 4 MiB.
func ReadFile(root, p string) ([]byte, error) {
	f, err := Open(root, p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxRead+1))
	if err == nil && len(b) > maxRead {
		err = fmt.Errorf("%s: over 4 MiB, more than latlab reads of a /proc or /sys file", f.Name())
	}
	return b, err
}
