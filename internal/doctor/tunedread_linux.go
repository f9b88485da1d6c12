package doctor

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"

	"github.com/latlab/latlab/internal/infile"
	"github.com/latlab/latlab/internal/rootfs"
	"golang.org/x/sys/unix"
)

// openTunedFile opens a profile's file: one of the system in the --root
// tree, through no link out of it (rootfs), one given as is after the
// checks of every input file (infile: a FIFO would block the open).
func openTunedFile(root string, f tunedFile) (*os.File, error) {
	if f.UnderRoot {
		return rootfs.Open(root, f.Path)
	}
	if err := infile.Check(f.Path); err != nil {
		return nil, err
	}
	return os.Open(f.Path)
}

func statTunedFile(root string, f tunedFile) (fs.FileInfo, error) {
	if !f.UnderRoot {
		return os.Stat(f.Path) // a directory too; a stat never blocks
	}
	h, err := openTunedFile(root, f)
	if err != nil {
		return nil, err
	}
	defer h.Close()
	return h.Stat()
}

// readTunedFile reads a regular file of at most max bytes.
func readTunedFile(root string, f tunedFile, max int64) ([]byte, error) {
	h, err := openTunedFile(root, f)
	if err != nil {
		return nil, err
	}
	defer h.Close()
	st, err := h.Stat()
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("not a regular file")
	}
	b, err := io.ReadAll(io.LimitReader(h, max+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > max {
		return nil, fmt.Errorf("over %d KiB", max>>10)
	}
	return b, nil
}

// listTunedDir is the names in a directory of the --root tree (of
// /sys, for tuned's functions), at most max of them.
func listTunedDir(root, dir string, max int) ([]string, error) {
	h, err := rootfs.Open(root, dir)
	if err != nil {
		return nil, err
	}
	defer h.Close()
	names, err := h.Readdirnames(max + 1)
	if err != nil && err != io.EOF {
		return nil, err
	}
	if len(names) > max {
		return nil, fmt.Errorf("over %d entries", max)
	}
	return names, nil
}

// unameString is uname's five fields joined by spaces, as tuned matches
// uname_regex against them: the host's; a --root tree has none.
func unameString(root string) (string, bool) {
	if !rootfs.IsHost(root) {
		return "", false
	}
	var u unix.Utsname
	if err := unix.Uname(&u); err != nil {
		return "", false
	}
	f := func(b []byte) string { return unix.ByteSliceToString(b) }
	return strings.Join([]string{f(u.Sysname[:]), f(u.Nodename[:]), f(u.Release[:]), f(u.Version[:]), f(u.Machine[:])}, " "), true
}
