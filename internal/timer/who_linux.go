package timer

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"
)

// WhoDefaultSeconds is the window Who is given by default on Linux: one
// look, as the holders are a state, read at once.
const WhoDefaultSeconds = 0

// dmaDevice is the device a PM QoS CPU latency request is held through.
const dmaDevice = "/dev/cpu_dma_latency"

// Bounds of a scan: processes, and descriptors per process.
const (
	maxProcs = 1 << 20
	maxFDs   = 1 << 16
)

func who(ctx context.Context, o WhoOptions) (*WhoResult, error) {
	res := &WhoResult{OS: "linux", DefaultSlackNs: 50_000}
	holders := map[int]*DMAHolder{}
	var slack []SlackProc
	deadline := time.Now().Add(time.Duration(o.Seconds) * time.Second)
	tick := time.NewTicker(o.Every)
	defer tick.Stop()
	for {
		s, err := scanProc(o.Root)
		if err != nil {
			return nil, err
		}
		res.Scans++
		res.Unreadable = max(res.Unreadable, s.unreadable)
		for _, h := range s.holders {
			if have := holders[h.PID]; have != nil {
				have.Seen++
				have.FDs = h.FDs
			} else {
				hh := h
				hh.Seen = 1
				holders[h.PID] = &hh
			}
		}
		slack = s.slack // the last scan's: slack is a state, not an event
		if o.Seconds <= 0 || !time.Now().Before(deadline) {
			break
		}
		select {
		case <-ctx.Done():
		case <-tick.C:
			continue
		}
		break
	}
	d := &DMALatency{Holders: []DMAHolder{}}
	for _, h := range holders {
		d.Holders = append(d.Holders, *h)
	}
	sort.Slice(d.Holders, func(i, j int) bool { return d.Holders[i].PID < d.Holders[j].PID })
	if v, err := readDMALatency(filepath.Join(o.Root, dmaDevice)); err == nil {
		d.EffectiveUs = &v
	} else {
		d.EffectiveError = err.Error()
	}
	res.DMALatency = d
	res.Slack = slack
	if res.Unreadable > 0 {
		res.Notes = append(res.Notes, fmt.Sprintf("%d processes could not be read (another user's; run as root to see them)", res.Unreadable))
	}
	res.Notes = append(res.Notes, "Linux shows the timer slack of each process's main thread only (/proc/PID/timerslack_ns); other threads' are not exposed")
	return res, nil
}

type scan struct {
	holders    []DMAHolder
	slack      []SlackProc
	unreadable int
}

// scanProc reads every process under root/proc: which hold the DMA
// latency device open (their fd links), and their timer slack.
func scanProc(root string) (scan, error) {
	var s scan
	proc := filepath.Join(root, "proc")
	dir, err := os.Open(proc)
	if err != nil {
		return s, fmt.Errorf("reading %s: %w", proc, err)
	}
	defer dir.Close()
	seen := 0
	for seen < maxProcs {
		ents, err := dir.ReadDir(1024)
		for _, e := range ents {
			pid, perr := strconv.Atoi(e.Name())
			if perr != nil || pid <= 0 {
				continue
			}
			seen++
			s.process(proc, pid)
		}
		if err == io.EOF || len(ents) == 0 {
			break
		}
		if err != nil {
			return s, fmt.Errorf("reading %s: %w", proc, err)
		}
	}
	sort.Slice(s.slack, func(i, j int) bool { return s.slack[i].PID < s.slack[j].PID })
	return s, nil
}

func (s *scan) process(proc string, pid int) {
	base := filepath.Join(proc, strconv.Itoa(pid))
	comm := readSmall(filepath.Join(base, "comm"))
	unreadable := false
	fds, err := dmaFDs(filepath.Join(base, "fd"))
	switch {
	case errors.Is(err, fs.ErrPermission):
		unreadable = true
	case err == nil && len(fds) > 0:
		s.holders = append(s.holders, DMAHolder{PID: pid, Comm: comm, FDs: fds})
	}
	v := readSmall(filepath.Join(base, "timerslack_ns"))
	ns, err := strconv.ParseInt(v, 10, 64)
	if v == "" || err != nil {
		if _, serr := os.Stat(filepath.Join(base, "timerslack_ns")); serr == nil {
			unreadable = true
		}
	} else if ns != 50_000 {
		s.slack = append(s.slack, SlackProc{PID: pid, Comm: comm, SlackNs: ns, Policy: policyOf(filepath.Join(base, "stat"))})
	}
	if unreadable {
		s.unreadable++
	}
}

// dmaFDs lists the descriptors of a process that link to the device.
func dmaFDs(dir string) ([]int, error) {
	f, err := os.Open(dir)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []int
	n := 0
	for n < maxFDs {
		ents, err := f.ReadDir(1024)
		for _, e := range ents {
			n++
			if l, lerr := os.Readlink(filepath.Join(dir, e.Name())); lerr == nil && l == dmaDevice {
				if fd, cerr := strconv.Atoi(e.Name()); cerr == nil {
					out = append(out, fd)
				}
			}
		}
		if err != nil || len(ents) == 0 {
			break
		}
	}
	sort.Ints(out)
	return out, nil
}

// readSmall reads a one-line /proc file, at most 4 KiB.
func readSmall(p string) string {
	f, err := os.Open(p)
	if err != nil {
		return ""
	}
	defer f.Close()
	b, _ := io.ReadAll(io.LimitReader(f, 4096))
	return strings.TrimSpace(string(b))
}

// policyOf reads the scheduling policy, field 41 of /proc/PID/stat
// (counted after the parenthesised command name, which may hold spaces).
func policyOf(stat string) string { return parsePolicy(readSmall(stat)) }

func parsePolicy(s string) string {
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return ""
	}
	f := strings.Fields(s[i+1:])
	// f[0] is field 3 (state); field 41 is f[38].
	if len(f) < 39 {
		return ""
	}
	switch f[38] {
	case "0":
		return "SCHED_OTHER"
	case "1":
		return "SCHED_FIFO"
	case "2":
		return "SCHED_RR"
	case "3":
		return "SCHED_BATCH"
	case "5":
		return "SCHED_IDLE"
	case "6":
		return "SCHED_DEADLINE"
	}
	return "policy " + f[38]
}

// readDMALatency reads the device: a 32-bit value, the limit in force
// (µs). Opening it adds a request of "no limit" while it is open, which
// changes nothing.
func readDMALatency(p string) (int64, error) {
	f, err := os.Open(p)
	if err != nil {
		if errors.Is(err, fs.ErrPermission) {
			if os.Geteuid() == 0 {
				// Root refused all the same: a container's device policy.
				return 0, fmt.Errorf("reading %s: refused even to root: %v", dmaDevice, errors.Unwrap(err))
			}
			return 0, fmt.Errorf("reading %s needs root", dmaDevice)
		}
		return 0, fmt.Errorf("reading %s: %v", dmaDevice, errors.Unwrap(err))
	}
	defer f.Close()
	var b [4]byte
	if _, err := io.ReadFull(f, b[:]); err != nil {
		return 0, fmt.Errorf("reading %s: %v", dmaDevice, err)
	}
	return int64(int32(binary.NativeEndian.Uint32(b[:]))), nil
}
