package dpcwatch

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A stat line as proc(5) lays it out; the name may hold spaces and
// parentheses.
const statLine = "4242 (my (odd) app) S 1 4242 4242 0 -1 4194560 1500 0 37 0 10 5 0 0 20 0 1 0 987654 10000000 500 18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 0 17 3 0 0 0 0 0 0 0 0 0 0 0 0 0\n"

func TestParseStat(t *testing.T) {
	p, err := parseStat([]byte(statLine))
	if err != nil || p != (procFaults{comm: "my (odd) app", start: 987654, majflt: 37}) {
		t.Errorf("%+v %v", p, err)
	}
	for _, bad := range []string{"", "4242 no parens", "4242 (x) S 1 2", "4242 (x) S 1 4242 4242 0 -1 0 0 0 many 0 0 0 0 0 0 0 0 0 0 987654"} {
		if _, err := parseStat([]byte(bad)); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

// Real stat files (testdata/PROVENANCE) read as a script outside the
// repository read them.
func TestParseRealStat(t *testing.T) {
	for pid, want := range map[string]procFaults{
		"26231": {comm: "vim", majflt: 26, start: 82375},
		"26232": {comm: "ata_sff", majflt: 0, start: 5},
		"27079": {comm: "pthread_load", majflt: 1, start: 4289574},
	} {
		b, err := os.ReadFile(filepath.Join("testdata", "real", "prometheus-procfs", "proc", pid, "stat"))
		if err != nil {
			t.Fatal(err)
		}
		if got, err := parseStat(b); err != nil || got != want {
			t.Errorf("%s: %+v %v, want %+v", pid, got, err, want)
		}
	}
}

// The faults between two snapshots: a process's difference, all faults
// of a process that started during the watch, nothing of a process whose
// PID was reused (another start time) beyond its own count.
func TestMajorFaults(t *testing.T) {
	before := map[uint32]procFaults{
		1: {"init", 10, 100}, 2: {"idle", 11, 5}, 3: {"old", 12, 50}, 9: {"gone", 13, 7},
	}
	after := map[uint32]procFaults{
		1: {"init", 10, 130}, 2: {"idle", 11, 5}, 3: {"new", 99, 4}, 4: {"started", 100, 2},
	}
	h, notes := majorFaults(before, after, 3)
	var got []string
	for _, p := range h.Processes {
		got = append(got, p.Name())
	}
	if h.Events != 36 || !h.CountsOnly || strings.Join(got, ", ") != "init (pid 1), new (pid 3), started (pid 4)" || h.Processes[0].Faults != 30 {
		t.Errorf("%d events: %v", h.Events, got)
	}
	if len(notes) != 2 || !strings.Contains(notes[1], "3 are not counted") {
		t.Errorf("notes %q", notes)
	}
	h, _ = majorFaults(before, before, 0)
	if h.Events != 0 || h.Missing == "" {
		t.Errorf("no faults: %+v", h)
	}
}

// A snapshot of a fake /proc reads the processes' stat files, bounded,
// and skips what is not a process; the real /proc has this process.
func TestSnapshotFaults(t *testing.T) {
	root := t.TempDir()
	for name, content := range map[string]string{"4242": statLine, "17": "garbage", "self": statLine, "99": strings.Repeat("x", 2*maxStatBytes)} {
		if err := os.MkdirAll(filepath.Join(root, name), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(root, name, "stat"), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	snap, capped, err := snapshotFaults(root)
	if err != nil || capped != 0 || len(snap) != 1 || snap[4242].majflt != 37 {
		t.Errorf("%v %d %v", snap, capped, err)
	}
	snap, _, err = snapshotFaults("/proc")
	if _, ok := snap[uint32(os.Getpid())]; err != nil || !ok {
		t.Errorf("/proc: %d processes, this one missing (%v)", len(snap), err)
	}
}
