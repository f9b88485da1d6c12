// Package rootfs opens files under a --root tree (a copy of /proc and /sys
// for tests and demonstrations) without ever leaving it. The tree may
// belong to someone else while latlab runs as root, so a link in it must
// not send a read or a write to the real system: every path is resolved
// beneath the tree's root and through no symbolic link.
package rootfs

import (
	"fmt"
)

// IsHost reports whether root is the machine's own file system ("" or
// "/"), whose /proc and /sys are the kernel's: their links (sysfs is
// made of them) are followed as always.
func IsHost(root string) bool { return root == "" || root == "/" }

// LinkError is a path that leads through a symbolic link (or a mount)
// under a --root tree.
type LinkError struct {
	Root, Path string
}

func (e *LinkError) Error() string {
	return fmt.Sprintf("refusing %s under --root %s: it leads through a symbolic link or out of the tree, which latlab never follows there", e.Path, e.Root)
}
