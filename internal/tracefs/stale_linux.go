package tracefs

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// A session killed with SIGKILL cannot clean up: its instance keeps
// tracing (tracing_on=1, its events on, its ring buffers allocated) and
// its private mount stays for ever. So both names say which process made
// them, its pid and its start time (field 22 of /proc/PID/stat, in clock
// ticks since boot: a pid reused by a later process has a later start),
// and the next session, or `latlab doctor`, removes those whose process
// is gone:
//
//	instance     latlab-PID-START-N
//	mount point  $TMPDIR/latlab-tracefs-PID-START-RANDOM
//
// Instances named by older versions (latlab-PID-N) are judged by the pid
// alone; a private mount without an owner in its name is left alone.

// owner is the process that made an instance or a mount.
type owner struct {
	pid   int
	start uint64 // 0: unknown (an older name)
}

// procStart is the start time of process pid, from /proc/PID/stat.
func procStart(pid int) (uint64, bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, false
	}
	// "PID (COMM) STATE PPID ...": COMM may hold spaces and parentheses,
	// so the fields are counted from the last ')'.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, false
	}
	f := strings.Fields(string(b[i+1:]))
	// After COMM: field 3 (state) is f[0], so field 22 is f[19].
	if len(f) < 20 {
		return 0, false
	}
	v, err := strconv.ParseUint(f[19], 10, 64)
	return v, err == nil
}

// self is this process as an owner.
func self() owner {
	st, _ := procStart(os.Getpid())
	return owner{pid: os.Getpid(), start: st}
}

func (o owner) String() string { return strconv.Itoa(o.pid) + "-" + strconv.FormatUint(o.start, 10) }

// gone says whether the process that made it has ended.
func (o owner) gone() bool {
	if o.pid == os.Getpid() {
		return false
	}
	if o.start == 0 {
		return unix.Kill(o.pid, 0) == unix.ESRCH
	}
	st, ok := procStart(o.pid)
	return !ok || st != o.start
}

// parseOwner reads "PID-START-REST" (start true) or "PID-REST".
func parseOwner(s string, withStart bool) (owner, bool) {
	f := strings.SplitN(s, "-", 3)
	pid, err := strconv.Atoi(f[0])
	if err != nil || pid <= 0 || len(f) < 2 {
		return owner{}, false
	}
	if !withStart {
		return owner{pid: pid}, true
	}
	if len(f) < 3 {
		return owner{}, false
	}
	st, err := strconv.ParseUint(f[1], 10, 64)
	if err != nil || st == 0 {
		return owner{}, false
	}
	return owner{pid: pid, start: st}, true
}

// instanceOwner reads an instance's name: latlab-PID-START-N, or the
// older latlab-PID-N.
func instanceOwner(name string) (owner, bool) {
	rest, ok := strings.CutPrefix(name, InstancePrefix)
	if !ok {
		return owner{}, false
	}
	if strings.Count(rest, "-") >= 2 {
		return parseOwner(rest, true)
	}
	return parseOwner(rest, false)
}

// Leftover is an instance or a mount that a session whose process is
// gone left behind, and what became of it.
type Leftover struct {
	What string // "instance" or "mount"
	Path string
	PID  int   // the process that made it
	Err  error // nil: removed
}

func (l Leftover) String() string {
	if l.Err != nil {
		return fmt.Sprintf("tracing %s %s of ended process %d could not be removed: %v", l.What, l.Path, l.PID, l.Err)
	}
	return fmt.Sprintf("removed tracing %s %s left by ended process %d", l.What, l.Path, l.PID)
}

// RemoveLeftovers removes the instances and private mounts of sessions
// whose process is gone, in every tracefs mount of this mount namespace.
// It needs root; without it there is nothing it could remove.
func RemoveLeftovers() []Leftover {
	if os.Geteuid() != 0 {
		return nil
	}
	var out []Leftover
	seen := map[string]bool{}
	for _, mp := range tracefsMounts() {
		if seen[mp] {
			continue
		}
		seen[mp] = true
		base := filepath.Base(mp)
		rest, private := strings.CutPrefix(base, privateMountPrefix)
		if !private {
			out = append(out, removeStale(mp)...)
			continue
		}
		o, ok := parseOwner(rest, true)
		if !ok || !o.gone() {
			continue
		}
		// Everything in a dead session's private mount is its own.
		out = append(out, removeStale(mp)...)
		out = append(out, Leftover{What: "mount", Path: mp, PID: o.pid, Err: unmountPrivate(mp)})
	}
	return out
}

// tracefsMounts lists the mount points of tracefs, the whole file system
// (root "/"), in /proc/self/mountinfo.
func tracefsMounts() []string {
	f, err := os.Open("/proc/self/mountinfo")
	if err != nil {
		return nil
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(io.LimitReader(f, 16<<20))
	for sc.Scan() {
		pre, post, ok := strings.Cut(sc.Text(), " - ")
		if !ok {
			continue
		}
		fs := strings.Fields(pre)
		if t := strings.Fields(post); len(t) > 0 && t[0] == "tracefs" && len(fs) >= 5 && fs[3] == "/" {
			out = append(out, unescapeMount(fs[4]))
		}
	}
	return out
}

// removeStale removes the instances under root whose process is gone.
func removeStale(root string) []Leftover {
	ents, err := os.ReadDir(filepath.Join(root, "instances"))
	if err != nil {
		return nil
	}
	var out []Leftover
	for _, e := range ents {
		o, ok := instanceOwner(e.Name())
		if !ok || !o.gone() {
			continue
		}
		p := filepath.Join(root, "instances", e.Name())
		// Removing an instance stops its tracing and frees its buffers.
		err := unix.Rmdir(p)
		if errors.Is(err, unix.ENOENT) {
			continue // another run removed it meanwhile
		}
		out = append(out, Leftover{What: "instance", Path: p, PID: o.pid, Err: err})
	}
	return out
}

// unmountPrivate undoes a private mount and removes its directory. The
// mount point is not followed if it is a link (UMOUNT_NOFOLLOW), and
// only an empty directory is removed.
func unmountPrivate(mp string) error {
	err := unix.Unmount(mp, unix.UMOUNT_NOFOLLOW)
	if errors.Is(err, unix.EBUSY) {
		err = unix.Unmount(mp, unix.UMOUNT_NOFOLLOW|unix.MNT_DETACH)
	}
	if err != nil && !errors.Is(err, unix.EINVAL) { // EINVAL: no longer a mount point
		return fmt.Errorf("unmount: %w", err)
	}
	if err := unix.Rmdir(mp); err != nil && !errors.Is(err, unix.ENOENT) {
		return fmt.Errorf("remove the mount point: %w", err)
	}
	return nil
}
