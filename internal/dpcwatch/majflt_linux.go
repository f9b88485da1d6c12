package dpcwatch

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/latlab/latlab/internal/dpcisr"
)

// On Linux a hard page fault is a major fault: the kernel counts them per
// process in /proc/PID/stat (field 12, majflt; proc(5)). The watch reads
// every process's count at its start and end: the difference is the
// faults during the watch, without their bytes or times (no event gives
// them), and without the processes that exited before the end.

// Bounds of a /proc snapshot: processes read, and bytes of one stat file
// (the command name is at most 64 bytes; the rest are 52 numbers).
const (
	maxProcSnapshot = 1 << 16
	maxStatBytes    = 4096
)

// procFaults is one process in a snapshot.
type procFaults struct {
	comm   string
	start  uint64 // starttime, field 22: tells a reused PID apart
	majflt uint64
}

// parseStat reads comm, majflt and starttime from a /proc/PID/stat line.
// The name is in parentheses and may hold spaces and parentheses itself:
// it ends at the last ')'.
func parseStat(b []byte) (procFaults, error) {
	s := string(b)
	open, end := strings.IndexByte(s, '('), strings.LastIndexByte(s, ')')
	if open < 0 || end < open {
		return procFaults{}, fmt.Errorf("no (comm)")
	}
	f := strings.Fields(s[end+1:])
	// f[0] is field 3 (state): field n is f[n-3]
	if len(f) < 22-3+1 {
		return procFaults{}, fmt.Errorf("%d fields after comm, want at least 20", len(f))
	}
	maj, err1 := strconv.ParseUint(f[12-3], 10, 64)
	start, err2 := strconv.ParseUint(f[22-3], 10, 64)
	if err1 != nil || err2 != nil {
		return procFaults{}, fmt.Errorf("majflt %q, starttime %q: not numbers", f[12-3], f[22-3])
	}
	return procFaults{comm: s[open+1 : end], start: start, majflt: maj}, nil
}

// snapshotFaults reads every process's major faults under root (/proc).
// A process that exits while it is read is skipped; more than
// maxProcSnapshot processes are counted in capped.
func snapshotFaults(root string) (snap map[uint32]procFaults, capped int, err error) {
	d, err := os.Open(root)
	if err != nil {
		return nil, 0, err
	}
	defer d.Close()
	names, err := d.Readdirnames(-1)
	if err != nil {
		return nil, 0, err
	}
	snap = map[uint32]procFaults{}
	for _, n := range names {
		pid, err := strconv.ParseUint(n, 10, 32)
		if err != nil {
			continue
		}
		if len(snap) >= maxProcSnapshot {
			capped++
			continue
		}
		f, err := os.Open(filepath.Join(root, n, "stat"))
		if err != nil {
			continue // gone
		}
		b, err := io.ReadAll(io.LimitReader(f, maxStatBytes))
		f.Close()
		if err != nil {
			continue
		}
		p, err := parseStat(b)
		if err != nil {
			continue
		}
		snap[uint32(pid)] = p
	}
	return snap, capped, nil
}

// majorFaults is the hard fault table of a Linux watch: per process the
// major faults between the two snapshots (all of a process that started
// during the watch), most first.
func majorFaults(before, after map[uint32]procFaults, capped int) (*dpcisr.HardFaults, []string) {
	h := &dpcisr.HardFaults{CountsOnly: true, Processes: []dpcisr.ProcessFaults{}}
	for pid, a := range after {
		n := a.majflt
		if b, ok := before[pid]; ok && b.start == a.start {
			if a.majflt < b.majflt {
				continue
			}
			n -= b.majflt
		}
		if n == 0 {
			continue
		}
		pid := pid
		h.Processes = append(h.Processes, dpcisr.ProcessFaults{Image: a.comm, PID: &pid, Faults: int64(n)})
		h.Events += int64(n)
	}
	sort.Slice(h.Processes, func(i, j int) bool {
		a, b := h.Processes[i], h.Processes[j]
		if a.Faults != b.Faults {
			return a.Faults > b.Faults
		}
		return *a.PID < *b.PID
	})
	if len(h.Processes) > MaxFaultRows {
		h.Processes = h.Processes[:MaxFaultRows]
	}
	if h.Events == 0 {
		h.Missing = "no major page faults during the watch (majflt of /proc/PID/stat)"
	}
	notes := []string{"hard page faults on Linux: each process's major faults (majflt of /proc/PID/stat) at the start and end of the watch; a process that exited before the end is not counted, and no bytes or times are known"}
	if capped > 0 {
		notes = append(notes, fmt.Sprintf("more than %d processes: %d are not counted in the major faults", maxProcSnapshot, capped))
	}
	return h, notes
}
