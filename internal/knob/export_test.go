package knob

import (
	"testing"

	"github.com/latlab/latlab/internal/knob/journal"
)

// Test helpers shared with the external tests of this package.
var LinuxTreeForTest = linuxTree
var SnapshotTreeForTest = snapshotTree

// ForgeForTest appends entries to the journal in dir as they are, the way
// someone who can write the state directory could.
func ForgeForTest(t testing.TB, dir string, es ...journal.Entry) {
	t.Helper()
	j, err := journal.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	for i := range es {
		if es[i].State == "" {
			es[i].State = journal.StateApplied
		}
	}
	j.Add(es)
	if err := j.Save(); err != nil {
		t.Fatal(err)
	}
}
