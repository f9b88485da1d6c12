package knob

import (
	"os"

	"golang.org/x/sys/unix"
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
