// Package tracefstest gives tests the event formats recorded from a real
// kernel's tracefs (internal/tracefs/testdata), to build known timelines
// from.
package tracefstest

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/latlab/latlab/internal/tracefs"
)

// Format is the recorded format file testdata/FILE.format of tracefs,
// parsed, with its system set to system ("sched", "irq", ...).
func Format(t testing.TB, system, file string) *tracefs.Format {
	t.Helper()
	_, here, _, _ := runtime.Caller(0)
	f, err := os.Open(filepath.Join(filepath.Dir(here), "..", "testdata", file+".format"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	fm, err := tracefs.ParseFormat(f)
	if err != nil {
		t.Fatal(err)
	}
	fm.System = system
	return fm
}

// Record is an empty record of f's event, the size its fields need, with
// the common type field set to f's id.
func Record(f *tracefs.Format) []byte {
	n := 0
	for _, fl := range f.Fields {
		n = max(n, fl.Offset+fl.Size)
	}
	b := make([]byte, n)
	binary.LittleEndian.PutUint16(b, f.ID)
	return b
}

// SchedSwitch is a sched_switch record (format f) to the thread pid,
// named comm, at the kernel priority prio.
func SchedSwitch(t testing.TB, f *tracefs.Format, pid int32, comm string, prio int32) []byte {
	t.Helper()
	b := Record(f)
	copy(b[field(t, f, "next_comm").Offset:][:15], comm)
	putInt(b, field(t, f, "next_pid"), pid)
	putInt(b, field(t, f, "next_prio"), prio)
	return b
}

// SchedWakeup is a sched_wakeup record (format f) of the thread pid.
func SchedWakeup(t testing.TB, f *tracefs.Format, pid int32) []byte {
	t.Helper()
	b := Record(f)
	putInt(b, field(t, f, "pid"), pid)
	return b
}

func field(t testing.TB, f *tracefs.Format, name string) tracefs.Field {
	t.Helper()
	fl, ok := f.Field(name)
	if !ok {
		t.Fatalf("%s/%s has no field %s", f.System, f.Name, name)
	}
	return fl
}

func putInt(b []byte, fl tracefs.Field, v int32) {
	binary.LittleEndian.PutUint32(b[fl.Offset:], uint32(v))
}
