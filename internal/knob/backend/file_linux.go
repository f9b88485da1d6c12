package backend

import (
	"errors"
	"fmt"
	"os"
	"path"
	"sort"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/latlab/latlab/internal/rootfs"
)

// kernelFile reports whether f lives on a file system the kernel makes
// up (procfs, sysfs and kin), whose files take a value per write call and
// cannot be replaced by a rename.
func kernelFile(f *os.File) bool {
	var st unix.Statfs_t
	if err := unix.Fstatfs(int(f.Fd()), &st); err != nil {
		return true // when in doubt, never rename over it
	}
	switch uint32(st.Type) {
	case unix.PROC_SUPER_MAGIC, unix.SYSFS_MAGIC, unix.DEBUGFS_MAGIC, unix.TRACEFS_MAGIC,
		unix.SECURITYFS_MAGIC, unix.CGROUP_SUPER_MAGIC, unix.CGROUP2_SUPER_MAGIC:
		return true
	}
	return false
}

// openNonblock keeps an open of a FIFO from waiting for a writer.
const openNonblock = unix.O_NONBLOCK

// host reports whether the root is the machine's own: /proc and /sys are
// the kernel's, opened by path, their links followed. Anything else is a
// --root tree, which may be someone else's: opened through rootfs, beneath
// the tree and through no link.
func (f Files) host() bool { return rootfs.IsHost(f.Root) }

func (f Files) open(p string, flags int) (*os.File, error) {
	return f.inTree(p, flags, (*rootfs.Tree).Open)
}

// openRead opens p for reading. In a --root tree, unlike open, links are
// followed while they stay inside the tree: a copy of a real /sys is made
// of them (cpuN/cpufreq is a link to ../cpufreq/policyN, each
// /sys/class/net/IF one to the device), and a read through one cannot
// reach anything outside. Writes never go through openRead.
func (f Files) openRead(p string, flags int) (*os.File, error) {
	return f.inTree(p, flags, (*rootfs.Tree).OpenFollow)
}

// inTree opens p by path on the machine's own root, else with open in
// the --root tree.
func (f Files) inTree(p string, flags int, open func(*rootfs.Tree, string, int) (*os.File, error)) (*os.File, error) {
	if f.host() {
		return os.OpenFile(f.path(p), flags, 0)
	}
	t, err := rootfs.OpenTree(f.Root)
	if err != nil {
		return nil, err
	}
	defer t.Close()
	return open(t, p, flags)
}

// linkIsDir reports whether the link at p leads to a directory (one
// inside the tree, under --root).
func (f Files) linkIsDir(p string) bool {
	if f.host() {
		st, err := os.Stat(f.path(p))
		return err == nil && st.IsDir()
	}
	d, err := f.openRead(p, unix.O_PATH|unix.O_DIRECTORY)
	if err != nil {
		return false
	}
	d.Close()
	return true
}

func (f Files) readDir(p string) ([]os.DirEntry, error) {
	if f.host() {
		return os.ReadDir(f.path(p))
	}
	d, err := f.openRead(p, unix.O_RDONLY|unix.O_DIRECTORY)
	if err != nil {
		return nil, err
	}
	defer d.Close()
	ents, err := d.ReadDir(-1)
	sort.Slice(ents, func(i, j int) bool { return ents[i].Name() < ents[j].Name() })
	return ents, err
}

// replace puts data in the file at p by renaming a new file over it. In a
// --root tree everything happens relative to the directory opened beneath
// the tree: the new file is created O_EXCL|O_NOFOLLOW, the target must be
// a regular file (not a link, checked without following it) and renameat
// replaces that name in that directory, whatever the paths become.
func (f Files) replace(p string, perm os.FileMode, data []byte) error {
	if f.host() {
		return replaceFile(f.path(p), perm, data)
	}
	dir, base := path.Split(strings.TrimLeft(p, "/"))
	d, err := f.open(dir, unix.O_RDONLY|unix.O_DIRECTORY)
	if err != nil {
		return err
	}
	defer d.Close()
	dfd := int(d.Fd())
	var st unix.Stat_t
	if err := unix.Fstatat(dfd, base, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
		return err
	}
	if st.Mode&unix.S_IFMT != unix.S_IFREG {
		return &rootfs.LinkError{Root: f.Root, Path: p}
	}
	var tmpName string
	var fd int
	for i := 0; ; i++ {
		tmpName = fmt.Sprintf(".%s.latlab-%d-%d", base, os.Getpid(), i)
		fd, err = unix.Openat(dfd, tmpName, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW|unix.O_CLOEXEC, uint32(perm))
		if err == nil || !errors.Is(err, unix.EEXIST) || i > 100 {
			break
		}
	}
	if err != nil {
		return fmt.Errorf("create a file beside %s: %w", p, err)
	}
	tmp := os.NewFile(uintptr(fd), path.Join(f.Root, dir, tmpName))
	return fillAndRename(tmp, perm, data,
		func() error { return unix.Renameat(dfd, tmpName, dfd, base) },
		func() { _ = unix.Unlinkat(dfd, tmpName, 0) })
}
