package safedir

import (
	"errors"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/sys/unix"
)

// Options say how Open walks a path.
type Options struct {
	// Create makes a missing directory: Perm above the last, LastPerm
	// for the last (both less the umask).
	Create         bool
	Perm, LastPerm uint32
	// Strict applies root's rules (see the package comment) to every
	// directory above the last one and to every link on the way. The
	// last directory is the caller's to judge: outfile and the journal
	// hold it to different rules.
	Strict bool
}

// maxLinks bounds the links followed on one path, as the kernel's
// MAXSYMLINKS (40) does.
const maxLinks = 40

// Open walks path from / and returns a descriptor (O_RDONLY, close on
// exec) of the directory it names. A refusal is a *Refusal; a missing
// or unreadable directory an *os.PathError.
func Open(path string, o Options) (int, error) {
	abs := filepath.Clean(path)
	if !filepath.IsAbs(abs) {
		// The kernel's name for the working directory has no links in
		// it, so every directory above it is walked and checked too.
		wd, err := unix.Getwd()
		if err != nil {
			return -1, &os.PathError{Op: "getwd", Path: ".", Err: err}
		}
		abs = filepath.Join(wd, abs)
	}
	for links := 0; ; links++ {
		if links > maxLinks {
			return -1, &os.PathError{Op: "open", Path: path, Err: unix.ELOOP}
		}
		fd, next, err := walk(abs, o)
		if next == "" {
			return fd, err
		}
		abs = next
	}
}

// walk opens abs component by component. When it meets a link it may
// follow, it returns the path to walk instead (next).
func walk(abs string, o Options) (fd int, next string, err error) {
	cur, err := unix.Open("/", unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return -1, "", &os.PathError{Op: "open", Path: "/", Err: err}
	}
	defer func() {
		if cur >= 0 {
			unix.Close(cur)
		}
	}()
	curName := "/"
	var comps []string
	if abs != "/" {
		comps = strings.Split(strings.TrimPrefix(abs, "/"), "/")
	}
	for i, c := range comps {
		last := i == len(comps)-1
		if o.Strict {
			if err := trusted(cur, curName); err != nil {
				return -1, "", err
			}
		}
		name := filepath.Join(curName, c)
		nfd, err := openComponent(cur, c)
		if errors.Is(err, unix.ENOENT) && o.Create {
			perm := o.Perm
			if last {
				perm = o.LastPerm
			}
			if err := unix.Mkdirat(cur, c, perm); err != nil && !errors.Is(err, unix.EEXIST) {
				return -1, "", &os.PathError{Op: "mkdir", Path: name, Err: err}
			}
			nfd, err = openComponent(cur, c)
		}
		if errors.Is(err, unix.ELOOP) || errors.Is(err, unix.ENOTDIR) {
			var st unix.Stat_t
			if unix.Fstatat(cur, c, &st, unix.AT_SYMLINK_NOFOLLOW) == nil && st.Mode&unix.S_IFMT == unix.S_IFLNK {
				if o.Strict && st.Uid != 0 {
					return -1, "", &Refusal{Dir: name, Link: true, Uid: st.Uid}
				}
				target, err := readlinkat(cur, c)
				if err != nil {
					return -1, "", &os.PathError{Op: "readlink", Path: name, Err: err}
				}
				if !filepath.IsAbs(target) {
					target = filepath.Join(curName, target)
				}
				return -1, filepath.Join(append([]string{target}, comps[i+1:]...)...), nil
			}
		}
		if err != nil {
			return -1, "", &os.PathError{Op: "open", Path: name, Err: err}
		}
		unix.Close(cur)
		cur, curName = nfd, name
	}
	fd, err = unix.Openat(cur, ".", unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return -1, "", &os.PathError{Op: "open", Path: curName, Err: err}
	}
	return fd, "", nil
}

// openComponent opens one directory of the path, never through a link:
// with O_PATH, O_NOFOLLOW and O_DIRECTORY a link fails with ENOTDIR or
// ELOOP.
func openComponent(dir int, name string) (int, error) {
	for {
		fd, err := unix.Openat(dir, name, unix.O_PATH|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		if errors.Is(err, unix.EINTR) {
			continue
		}
		return fd, err
	}
}

func readlinkat(dir int, name string) (string, error) {
	for size := 256; size <= 1<<16; size *= 4 {
		b := make([]byte, size)
		n, err := unix.Readlinkat(dir, name, b)
		if err != nil {
			return "", err
		}
		if n < size {
			return string(b[:n]), nil
		}
	}
	return "", unix.ENAMETOOLONG
}

// trusted is root's rule for a directory above the last one.
func trusted(fd int, name string) error {
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return &os.PathError{Op: "stat", Path: name, Err: err}
	}
	switch {
	case st.Uid != 0:
		return &Refusal{Dir: name, Uid: st.Uid}
	case st.Mode&0o022 != 0 && st.Mode&unix.S_ISVTX == 0:
		return &Refusal{Dir: name, Writable: true}
	}
	return nil
}
