// Package tracefstest gives tests the event formats recorded from a real
// kernel's tracefs (internal/tracefs/testdata), to build known timelines
// from.
package tracefstest

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"testing"

	"github.com/latlab/latlab/internal/tracefs"
)

// Format is the recorded format file testdata/FILE.format of tracefs,
// parsed, with its system set to system ("sched", "irq", ...).
func Format(t testing.TB, system, file string) *tracefs.Format {
	t.Helper()
	f, err := os.Open(filepath.Join(moduleRoot(t), "internal", "tracefs", "testdata", file+".format"))
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

// RealFormat is the format file testdata/real/REL of tracefs (another
// kernel's, see its PROVENANCE), parsed, with its system taken from its
// path (.../events/SYSTEM/NAME/format).
func RealFormat(t testing.TB, rel string) *tracefs.Format {
	t.Helper()
	f, err := os.Open(filepath.Join(moduleRoot(t), "internal", "tracefs", "testdata", "real", filepath.FromSlash(rel)))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	fm, err := tracefs.ParseFormat(f)
	if err != nil {
		t.Fatal(err)
	}
	fm.System = filepath.Base(filepath.Dir(filepath.Dir(f.Name())))
	return fm
}

// moduleRoot is the directory of go.mod above the test's working
// directory (go test runs a test in its package's directory). Not the
// source file's directory from runtime.Caller: a -trimpath build, as
// scripts/test makes, records the import path there, not a directory.
func moduleRoot(t testing.TB) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		up := filepath.Dir(dir)
		if up == dir {
			t.Fatal("tracefstest: no go.mod above the working directory")
		}
		dir = up
	}
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
