package knob_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/latlab/latlab/internal/knob/journal"

	"github.com/latlab/latlab/internal/knob"
	"github.com/latlab/latlab/internal/knob/backend"
	"github.com/latlab/latlab/internal/testutil"
)

// The attacks on the journal, through the command line as a user runs it.

// A forged entry makes `knob revert --all` exit non-zero, name the entry,
// and leave the file it names alone.
func TestRevertCommandRefusesForgedEntry(t *testing.T) {
	root := knob.LinuxTreeForTest(t)
	passwd := filepath.Join(root, "etc", "passwd")
	os.MkdirAll(filepath.Dir(passwd), 0o755)
	const orig = "root:x:0:0:root:/root:/bin/sh\n"
	os.WriteFile(passwd, []byte(orig), 0o644)
	state := testutil.TempDir(t)
	knob.ForgeForTest(t, state, journal.Entry{Knob: "tcp-recovery",
		Loc:      backend.Loc{Backend: backend.BackendFile, Path: "etc/passwd"},
		Original: backend.FileValue("evil::0:0::/:/bin/sh\n" + orig), New: backend.FileValue(orig)})
	code, out, errs := latlab(t, 0, "--root", root, "knob", "revert", "--all", "--state-dir", state)
	if code != 3 || !strings.Contains(strings.Join(strings.Fields(out), " "), "journal entry 1 refused, left alone: /etc/passwd is not a value tcp-recovery writes") ||
		!strings.Contains(errs, "latlab: not every change was reverted: journal entry 1 refused: /etc/passwd is not a value tcp-recovery writes\n") {
		t.Fatalf("revert of a forged entry: exit %d\n%s\n%s", code, out, errs)
	}
	if b, _ := os.ReadFile(passwd); string(b) != orig {
		t.Fatalf("passwd rewritten: %q", b)
	}
}

// An entry whose state is spelled in a way latlab never writes was
// skipped as if closed, and revert exited 0: it is reported with its id,
// and revert fails.
func TestRevertCommandReportsUnknownState(t *testing.T) {
	root := knob.LinuxTreeForTest(t)
	os.WriteFile(filepath.Join(root, "proc/sys/net/ipv4/tcp_dsack"), []byte("0\n"), 0o644)
	state := testutil.TempDir(t)
	os.WriteFile(filepath.Join(state, journal.File), []byte(`{
  "version": 1,
  "next_id": 2,
  "next_set": 2,
  "entries": [
    {
      "id": 1,
      "set": 1,
      "time": "2026-11-21T22:36:19Z",
      "knob": "tcp-dsack",
      "request": "off",
      "loc": {"backend": "file", "path": "proc/sys/net/ipv4/tcp_dsack"},
      "original": {"type": "file", "data": "MQo="},
      "new": {"type": "file", "data": "MAo="},
      "state": "Applied"
    }
  ]
}
`), 0o600)
	code, out, errs := latlab(t, 0, "--root", root, "knob", "revert", "--all", "--state-dir", state)
	if code == 0 || !strings.Contains(strings.Join(strings.Fields(out), " "), `journal entry 1 is damaged, left alone: format 1 journal: state "Applied" is none of pending, applied, reverted, gone`) {
		t.Fatalf("revert of an entry in an unknown state: exit %d\n%s\n%s", code, out, errs)
	}
}
