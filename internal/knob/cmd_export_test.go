package knob

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/latlab/latlab/internal/badinput"
	"github.com/latlab/latlab/internal/testutil"
)

// An export of the current values holds every readable value of this
// OS's knobs, never latlab's own timer slack; an undo export holds the
// originals of the changes still in place, and names a damaged entry.
func TestRunExport(t *testing.T) {
	env, _, _, _ := testEnvTree(t)
	n := native()
	state := testutil.TempDir(t)
	x, err := RunExport(context.Background(), ExportOptions{Env: env, StateDir: state})
	if err != nil {
		t.Fatal(err)
	}
	if x.Undo || x.Format != DefaultFormat(HostOS) || len(x.Script) == 0 || x.Text() != strings.Join(x.Script, "\n")+"\n" {
		t.Errorf("export: %+v", x)
	}
	found := false
	for _, c := range x.Changes {
		found = found || c.Loc.String() == n.loc && ShowValue(c.New) == n.from
		if strings.HasPrefix(c.Loc.Path, "proc/self/") {
			t.Errorf("latlab's own %s is exported", c.Loc)
		}
	}
	if !found {
		t.Errorf("%s = %s is not exported: %+v", n.loc, n.from, x.Changes)
	}

	x, err = RunExport(context.Background(), ExportOptions{Undo: true, Env: env, StateDir: state})
	if err != nil || !x.Undo || len(x.Changes) != 0 || x.Skipped != nil {
		t.Errorf("undo of an empty journal: %v %+v", err, x)
	}
	for _, v := range []string{n.set, n.other} {
		if _, err := RunSet(context.Background(), SetOptions{Knob: n.name, Value: v, StateDir: state, Env: env}); err != nil {
			t.Fatal(err)
		}
	}
	x, err = RunExport(context.Background(), ExportOptions{Undo: true, Format: FormatPS1, Env: env, StateDir: state})
	if err != nil || x.Format != FormatPS1 || len(x.Changes) != 2 || x.Skipped != nil {
		t.Fatalf("undo: %v %+v", err, x)
	}
	// Newest first, so that the last write leaves the original.
	if c := x.Changes[1]; c.Loc.String() != n.loc || ShowValue(c.New) != n.from || ShowValue(c.Old) != n.to {
		t.Errorf("undo change %+v, want %s from %s to %s", c, n.loc, n.to, n.from)
	}
	damageEntry(t, state, 1)
	x, err = RunExport(context.Background(), ExportOptions{Undo: true, Env: env, StateDir: state})
	if err != nil || len(x.Changes) != 1 || len(x.Skipped) != 1 || !strings.HasPrefix(x.Skipped[0], "journal entry 1 (line 2): damaged: ") {
		t.Errorf("undo with a damaged entry: %v %+v", err, x)
	}
	if _, err := RunExport(context.Background(), ExportOptions{Format: "bat", Env: env, StateDir: state}); !badinput.Is(err) {
		t.Errorf("--format bat: %v, want an input error", err)
	}
}

// A .reg file is written as regedit writes them; the other scripts as
// they are printed.
func TestExportFile(t *testing.T) {
	x := &Export{Format: FormatReg, Script: []string{"Windows Registry Editor Version 5.00", "", "[HKEY_LOCAL_MACHINE\\SOFTWARE\\ü]"}}
	if b := x.File(); !bytes.HasPrefix(b, []byte{0xFF, 0xFE, 'W', 0}) || !bytes.Contains(b, []byte{'\r', 0, '\n', 0}) || bytes.Contains(b, []byte("ü")) {
		t.Errorf(".reg file % x", b)
	}
	x = &Export{Format: FormatSh, Script: []string{"#!/bin/sh", "echo 'it'"}}
	if b := x.File(); string(b) != "#!/bin/sh\necho 'it'\n" {
		t.Errorf("sh file %q", b)
	}
}
