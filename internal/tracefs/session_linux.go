package tracefs

import (
	"bufio"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"golang.org/x/sys/unix"
)

// Session owns a private tracefs instance (instances/NAME): its own ring
// buffer, events, CPU mask and clock, so it neither sees nor disturbs
// another tool's tracing. Close leaves nothing behind: the events off,
// the instance removed, and tracefs unmounted if the session mounted it.
type Session struct {
	Name   string // the instance's name
	Dir    string // the instance's directory
	Root   string // the tracefs mount used
	Layout PageLayout

	mounted  string // the private mount point, "" when tracefs was mounted already
	formats  map[uint16]*Format
	byName   map[string]*Format
	cpus     []int
	fds      []int
	buf      []byte
	lost     atomic.Int64
	unknown  int64
	clock    string
	stopped  bool
	closed   bool
	closeErr error
	yield    bool
}

var seq atomic.Int64

// privateMountPrefix names the directories sessions mount tracefs at.
const privateMountPrefix = "latlab-tracefs-"

// mountinfo finds a tracefs mount in /proc/self/mountinfo.
func findMount() string {
	f, err := os.Open("/proc/self/mountinfo")
	if err != nil {
		return ""
	}
	defer f.Close()
	sc := bufio.NewScanner(io.LimitReader(f, 16<<20))
	for sc.Scan() {
		// ID PARENT MAJ:MIN ROOT MOUNTPOINT OPTIONS ... - FSTYPE SOURCE ...
		l := sc.Text()
		pre, post, ok := strings.Cut(l, " - ")
		if !ok {
			continue
		}
		fs := strings.Fields(pre)
		if t := strings.Fields(post); len(t) > 0 && t[0] == "tracefs" && len(fs) >= 5 && fs[3] == "/" {
			mp := unescapeMount(fs[4])
			if strings.HasPrefix(filepath.Base(mp), privateMountPrefix) {
				continue // another session's private mount, gone when it ends
			}
			if _, err := os.Stat(filepath.Join(mp, "instances")); err == nil {
				return mp
			}
		}
	}
	return ""
}

// unescapeMount undoes mountinfo's octal escapes (\040 for a space).
func unescapeMount(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+3 < len(s) {
			if v, err := strconv.ParseUint(s[i+1:i+4], 8, 8); err == nil {
				b.WriteByte(byte(v))
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// Open mounts tracefs when needed, creates the instance, sets its clock
// (mono: CLOCK_MONOTONIC, the clock the probes read), buffer and CPU mask,
// enables the events and starts tracing. On error nothing is left behind.
func Open(o Options) (_ *Session, err error) {
	if err := littleEndian(binary.NativeEndian); err != nil {
		return nil, err
	}
	s := &Session{formats: map[uint16]*Format{}, byName: map[string]*Format{}}
	defer func() {
		if err != nil {
			_ = s.Close()
		}
	}()
	// What sessions killed with SIGKILL left (stale_linux.go).
	RemoveLeftovers()
	me := self()
	if !o.PrivateMount {
		s.Root = findMount()
	}
	if s.Root == "" {
		// A private mount point rather than /sys/kernel/tracing: another
		// process that finds tracefs there while this session runs would
		// lose it when Close unmounts; nobody else uses a directory of
		// ours.
		dir, err := os.MkdirTemp("", privateMountPrefix+me.String()+"-")
		if err != nil {
			return nil, fmt.Errorf("tracefs mount point: %w", err)
		}
		if err := unix.Mount("nodev", dir, "tracefs", 0, ""); err != nil {
			_ = os.Remove(dir)
			if errors.Is(err, unix.EPERM) || errors.Is(err, unix.EACCES) {
				return nil, &AccessError{fmt.Errorf("mount -t tracefs: %w", err)}
			}
			return nil, fmt.Errorf("mount -t tracefs nodev %s: %w", dir, err)
		}
		s.Root, s.mounted = dir, dir
	}
	if s.Layout, err = readLayout(filepath.Join(s.Root, "events", "header_page")); err != nil {
		return nil, err
	}
	s.Name = fmt.Sprintf("%s%s-%d", InstancePrefix, me, seq.Add(1))
	dir := filepath.Join(s.Root, "instances", s.Name)
	if err := os.Mkdir(dir, 0o700); err != nil {
		if errors.Is(err, os.ErrPermission) {
			return nil, &AccessError{err}
		}
		return nil, fmt.Errorf("tracefs instance: %w", err)
	}
	s.Dir = dir
	if err := s.write("tracing_on", "0"); err != nil {
		return nil, err
	}
	s.clock = "mono"
	if err := s.write("trace_clock", s.clock); err != nil {
		return nil, err
	}
	kb := o.BufferKB
	if kb <= 0 {
		kb = 4096
	}
	if err := s.write("buffer_size_kb", strconv.Itoa(kb)); err != nil {
		return nil, err
	}
	n, err := possibleCPUs()
	if err != nil {
		return nil, err
	}
	s.cpus, s.yield = o.CPUs, o.Yield
	if s.cpus == nil {
		for c := 0; c < n; c++ {
			s.cpus = append(s.cpus, c)
		}
	} else {
		for _, c := range s.cpus {
			if c < 0 || c >= n {
				return nil, fmt.Errorf("CPU %d: this machine has CPUs 0-%d", c, n-1)
			}
		}
		if err := s.write("tracing_cpumask", CPUMask(s.cpus, n)); err != nil {
			return nil, err
		}
	}
	for _, pat := range o.Events {
		if err := s.enable(pat, false); err != nil {
			return nil, err
		}
	}
	for _, pat := range o.Optional {
		if err := s.enable(pat, true); err != nil {
			return nil, err
		}
	}
	s.buf = make([]byte, s.Layout.Size)
	for _, c := range s.cpus {
		p := filepath.Join(dir, "per_cpu", "cpu"+strconv.Itoa(c), "trace_pipe_raw")
		// A raw descriptor: the runtime's poller would turn EAGAIN into a
		// blocking wait, and a drain must return when the buffer is empty.
		fd, err := unix.Open(p, unix.O_RDONLY|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
		if err != nil {
			return nil, fmt.Errorf("open %s: %w", p, err)
		}
		s.fds = append(s.fds, fd)
	}
	if err := s.write("tracing_on", "1"); err != nil {
		return nil, err
	}
	return s, nil
}

func possibleCPUs() (int, error) {
	b, err := os.ReadFile("/sys/devices/system/cpu/possible")
	if err != nil {
		return 0, fmt.Errorf("possible CPUs: %w", err)
	}
	// "0-1" or "0": the highest number + 1.
	s := strings.TrimSpace(string(b))
	if i := strings.LastIndexAny(s, "-,"); i >= 0 {
		s = s[i+1:]
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 || n > 1<<16 {
		return 0, fmt.Errorf("possible CPUs %q", strings.TrimSpace(string(b)))
	}
	return n + 1, nil
}

func readLayout(p string) (PageLayout, error) {
	f, err := os.Open(p)
	if err != nil {
		return PageLayout{}, fmt.Errorf("tracefs: %w", err)
	}
	defer f.Close()
	return ParseHeaderPage(f)
}

func (s *Session) write(name, v string) error {
	p := filepath.Join(s.Dir, name)
	if err := os.WriteFile(p, []byte(v), 0); err != nil {
		return fmt.Errorf("tracefs: write %q to %s: %w", v, p, err)
	}
	return nil
}

// enable enables the events matching pat and reads their formats; an
// optional pattern may match nothing, its group included.
func (s *Session) enable(pat string, optional bool) error {
	sys, name, ok := strings.Cut(pat, "/")
	if !ok || sys == "" || strings.ContainsAny(sys, "*?[") {
		return fmt.Errorf("event %q: want SYSTEM/NAME", pat)
	}
	ents, err := os.ReadDir(filepath.Join(s.Dir, "events", sys))
	if optional && errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("event group %s: %w", sys, err)
	}
	found := 0
	for _, e := range ents {
		if !e.IsDir() {
			continue
		}
		if m, _ := path.Match(name, e.Name()); !m {
			continue
		}
		d := filepath.Join(s.Dir, "events", sys, e.Name())
		f, err := os.Open(filepath.Join(d, "format"))
		if err != nil {
			return fmt.Errorf("event %s/%s: %w", sys, e.Name(), err)
		}
		fm, err := ParseFormat(f)
		f.Close()
		if err != nil {
			return fmt.Errorf("event %s/%s: %w", sys, e.Name(), err)
		}
		fm.System = sys
		if err := CheckFields(fm); err != nil {
			return err
		}
		s.formats[fm.ID] = fm
		s.byName[sys+"/"+fm.Name] = fm
		if err := os.WriteFile(filepath.Join(d, "enable"), []byte("1"), 0); err != nil {
			return fmt.Errorf("enable %s/%s: %w", sys, e.Name(), err)
		}
		found++
	}
	if found == 0 && !optional {
		return fmt.Errorf("event %s: no such event in this kernel", pat)
	}
	return nil
}

// yieldPages is how many pages of a CPU a drain reads with Options.Yield
// before it reads on without giving up its CPU: a reader behind a storm
// of events must catch up (yielding after every page, latlab wake
// --explain lost 8,600 to 38,000 events in 3 of 4 runs beside stress-ng
// --switch 2; after the first 64, none in 4), and 100 ms of a 1 kHz
// wake-up run are about 20 pages.
const yieldPages = 64

// schedYield gives up the CPU (a variable: tests count the calls).
var schedYield = func() { _, _, _ = unix.Syscall(unix.SYS_SCHED_YIELD, 0, 0, 0) }

// maxPagesPerDrain bounds one drain per CPU: a 4 MiB buffer is 1024
// pages; what is left waits for the next drain.
const maxPagesPerDrain = 4096

// Drain reads what the ring buffers hold now and calls fn for each event
// of an enabled format, in order per CPU. It returns the number of events.
func (s *Session) Drain(fn func(Event)) (int, error) {
	n := 0
	for i, fd := range s.fds {
		cpu := s.cpus[i]
		for p := 0; p < maxPagesPerDrain; p++ {
			k, err := unix.Read(fd, s.buf)
			if err == unix.EINTR {
				continue
			}
			if err == unix.EAGAIN || k == 0 {
				break
			}
			if err != nil {
				return n, fmt.Errorf("read cpu%d/trace_pipe_raw: %w", cpu, err)
			}
			lost, err := ParsePage(s.buf[:k], s.Layout, func(r Record) {
				f := s.formats[Type(r.Data)]
				if f == nil {
					s.unknown++
					return
				}
				n++
				fn(Event{CPU: cpu, TS: r.TS, Format: f, Data: r.Data})
			})
			if lost > 0 {
				s.lost.Add(lost)
			} else if lost < 0 {
				s.lost.Add(1)
			}
			if err != nil {
				return n, err
			}
			if s.yield && p < yieldPages {
				schedYield()
			}
		}
	}
	return n, nil
}

// Follow drains every 100 ms until ctx ends, then stops tracing and
// drains what is left.
func (s *Session) Follow(ctx context.Context, fn func(Event)) error {
	t := time.NewTicker(100 * time.Millisecond)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			if err := s.Stop(); err != nil {
				return err
			}
			_, err := s.Drain(fn)
			return err
		case <-t.C:
			if _, err := s.Drain(fn); err != nil {
				return err
			}
		}
	}
}

// Stop stops tracing; what the buffers hold can still be drained.
func (s *Session) Stop() error {
	if s.stopped || s.Dir == "" {
		return nil
	}
	s.stopped = true
	return s.write("tracing_on", "0")
}

// Freeze stops the recording (tracing_on 0) at once, as cyclictest -b
// freezes the trace at the latency that stopped it: what the buffers
// hold can still be drained, and Stop and Close work as before. It
// changes no state of s, so it may be called beside Follow from another
// goroutine.
func (s *Session) Freeze() error {
	if s.Dir == "" {
		return nil
	}
	return s.write("tracing_on", "0")
}

// Lost is the number of events the kernel dropped (a full buffer), as
// the pages report it.
func (s *Session) Lost() int64 { return s.lost.Load() }

// Close turns the events off, removes the instance and undoes the mount
// the session made. It may be called more than once.
func (s *Session) Close() error {
	if s.closed {
		return s.closeErr
	}
	s.closed = true
	var errs []error
	if s.Dir != "" {
		_ = s.Stop()
		_ = os.WriteFile(filepath.Join(s.Dir, "events", "enable"), []byte("0"), 0)
	}
	for _, fd := range s.fds {
		_ = unix.Close(fd)
	}
	s.fds = nil
	if s.Dir != "" {
		// An instance is busy while a reader still holds a file of it
		// (EBUSY); the kernel lets go of it shortly after the close.
		var err error
		for i := 0; i < 50; i++ {
			if err = unix.Rmdir(s.Dir); err != unix.EBUSY {
				break
			}
			time.Sleep(20 * time.Millisecond)
		}
		if err != nil && err != unix.ENOENT {
			errs = append(errs, fmt.Errorf("remove tracefs instance %s: %w", s.Dir, err))
		}
	}
	if s.mounted != "" {
		// The kernel may hold the mount a moment after the instance's
		// last file is closed; a mount still busy after that is detached
		// (it goes when its last user does), so nothing stays visible.
		var err error
		for i := 0; i < 25; i++ {
			if err = unix.Unmount(s.mounted, 0); err != unix.EBUSY {
				break
			}
			time.Sleep(20 * time.Millisecond)
		}
		if err == unix.EBUSY {
			err = unix.Unmount(s.mounted, unix.MNT_DETACH)
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("unmount tracefs at %s: %w", s.mounted, err))
		} else if err := os.Remove(s.mounted); err != nil {
			errs = append(errs, err)
		}
	}
	s.closeErr = errors.Join(errs...)
	return s.closeErr
}

// Instances lists the instances under the tracefs mount root (for tests
// and for the check that nothing was left behind).
func Instances(root string) []string {
	ents, _ := os.ReadDir(filepath.Join(root, "instances"))
	var out []string
	for _, e := range ents {
		out = append(out, e.Name())
	}
	sort.Strings(out)
	return out
}

// Mounted is the tracefs mount point in use, "" when none.
func Mounted() string { return findMount() }
