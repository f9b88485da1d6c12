package exporter

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"

	"github.com/latlab/latlab/internal/safedir"
)

// checkWebConfigOwner applies the Windows service's rule for --tls-config
// to root on Linux: the file decides who may read /metrics (its basic
// auth users; emptying them opens it) and which certificate is served, so
// it must be one only root can change: a regular file of root's, not
// writable by group or others, in a directory of root's not writable by
// group or others unless sticky (/tmp), with every directory above it
// held to the same rule and no link on the way that another user owns
// (internal/safedir). exporter-toolkit reads it again by its path; the
// rule makes that path root's alone, so what is read later is what was
// checked.
func checkWebConfigOwner(path string) error {
	if os.Geteuid() != 0 {
		return nil
	}
	refuse := func(why string) error {
		return fmt.Errorf("--tls-config %s: %s, and latlab runs as root: keep it where only root can write (e.g. /etc/latlab)", path, why)
	}
	name := filepath.Clean(path)
	for hops := 0; ; hops++ {
		if hops > 8 {
			return refuse("too many symbolic links")
		}
		dir := filepath.Dir(name)
		fd, err := safedir.Open(dir, safedir.Options{Strict: true})
		var r *safedir.Refusal
		if errors.As(err, &r) {
			return refuse(r.Error())
		}
		if err != nil {
			return fmt.Errorf("--tls-config %s: %w", path, err)
		}
		var st unix.Stat_t
		err = unix.Fstat(fd, &st)
		if err == nil {
			if why := rootOnly(dir, st); why != "" {
				unix.Close(fd)
				return refuse(why)
			}
			err = unix.Fstatat(fd, filepath.Base(name), &st, unix.AT_SYMLINK_NOFOLLOW)
		}
		if errors.Is(err, unix.ENOENT) {
			unix.Close(fd)
			return nil // web.Validate says it is missing
		}
		if err != nil {
			unix.Close(fd)
			return fmt.Errorf("--tls-config %s: %w", path, err)
		}
		if st.Mode&unix.S_IFMT == unix.S_IFLNK {
			// Only a link of root's, which its trusted directory keeps
			// in place; then what it names is checked the same way.
			if st.Uid != 0 {
				unix.Close(fd)
				return refuse(fmt.Sprintf("%s is a symbolic link owned by uid %d, who can repoint it", name, st.Uid))
			}
			b := make([]byte, 4096)
			n, err := unix.Readlinkat(fd, filepath.Base(name), b)
			unix.Close(fd)
			if err != nil {
				return fmt.Errorf("--tls-config %s: %w", path, err)
			}
			target := string(b[:n])
			if !filepath.IsAbs(target) {
				target = filepath.Join(dir, target)
			}
			name = filepath.Clean(target)
			continue
		}
		unix.Close(fd)
		if st.Mode&unix.S_IFMT != unix.S_IFREG {
			return refuse(name + " is not a regular file")
		}
		switch {
		case st.Uid != 0:
			return refuse(fmt.Sprintf("%s is owned by uid %d; fix: chown root %s", name, st.Uid, name))
		case st.Mode&0o022 != 0:
			return refuse(fmt.Sprintf("%s is writable by group or others; fix: chmod go-w %s", name, name))
		}
		return nil
	}
}

// rootOnly is why a directory (its stat) is not root's alone, or "".
func rootOnly(dir string, st unix.Stat_t) string {
	switch {
	case st.Uid != 0:
		return fmt.Sprintf("its directory %s is owned by uid %d", dir, st.Uid)
	case st.Mode&0o022 != 0 && st.Mode&unix.S_ISVTX == 0:
		return fmt.Sprintf("its directory %s is writable by group or others", dir)
	}
	return ""
}
