package knob

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/latlab/latlab/internal/knob/journal"

	"github.com/latlab/latlab/internal/knob/backend"
	"github.com/latlab/latlab/internal/testutil"
)

// sampleJournal applies changes of every kind (file values with a guard,
// registry values that exist and do not, a BCD element) and reverts one,
// and returns the journal file: small, since the bit-flip test decodes it
// once per bit.
func sampleJournal(t *testing.T) (env *Env, dir string, file []byte) {
	env, _, _, _ = testEnvTree(t)
	dir = testutil.TempDir(t)
	applySteps(t, env, dir, []setStep{
		{"tcp-recovery", Selector{}, "rack,no-dupthresh"},
		{"timer-slack", Selector{PID: "4242"}, "1us"},
		{"network-throttling-index", Selector{}, "off"},
		{"tsc-sync-policy", Selector{}, "enhanced"},
		{"win32-priority-separation", Selector{}, "0x26"},
	})
	j, err := journal.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Revert(env, j, MatchKnob("tsc-sync-policy", ""), false); err != nil {
		t.Fatal(err)
	}
	j.Close()
	file, err = os.ReadFile(filepath.Join(dir, journal.File))
	if err != nil {
		t.Fatal(err)
	}
	return env, dir, file
}

// A damaged entry is reported with its id and left alone; the others are
// restored, the damaged line stays in the journal as it was, and revert
// fails as long as it is there.
func TestRevertLeavesDamagedEntryAlone(t *testing.T) {
	env, _, _, root := testEnvTree(t)
	dir := testutil.TempDir(t)
	applySteps(t, env, dir, []setStep{{"tcp-recovery", Selector{}, "3"}, {"tcp-dsack", Selector{}, "off"}})
	p := filepath.Join(dir, journal.File)
	b, _ := os.ReadFile(p)
	// One bit of the original of entry 2 (tcp_dsack "1\n", base64 MQo=).
	lines := bytes.Split(b, []byte("\n"))
	if len(lines) != 5 || !bytes.Contains(lines[2], []byte(`"id":2,`)) {
		t.Fatalf("unexpected journal:\n%s", b)
	}
	i := bytes.Index(lines[2], []byte(`"original":{"type":"file","data":"MQo="}`))
	if i < 0 {
		t.Fatalf("unexpected entry:\n%s", lines[2])
	}
	lines[2][i+len(`"original":{"type":"file","data":"M`)] ^= 0x01
	b = bytes.Join(lines, []byte("\n"))
	os.WriteFile(p, b, 0o600)
	j, err := journal.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(j.Damaged) != 1 || j.Damaged[0].ID != 2 || !strings.Contains(j.Damaged[0].Why, "checksum does not match") {
		t.Fatalf("damage %+v", j.Damaged)
	}
	steps, err := Revert(env, j, MatchAll, false)
	j.Close()
	var left *LeftAloneError
	if !errors.As(err, &left) || len(left.Damaged) != 1 || err.Error() != "not every change was reverted: journal entry 2 (line 3) damaged" {
		t.Fatalf("revert: %v", err)
	}
	if len(steps) != 1 || steps[0].Entry.ID != 1 || steps[0].Action != "restore" {
		t.Fatalf("steps %+v", steps)
	}
	if got, _ := os.ReadFile(filepath.Join(root, "proc/sys/net/ipv4/tcp_recovery")); string(got) != "1\n" {
		t.Errorf("tcp_recovery %q, want 1 restored", got)
	}
	if got, _ := os.ReadFile(filepath.Join(root, "proc/sys/net/ipv4/tcp_dsack")); string(got) != "0\n" {
		t.Errorf("tcp_dsack %q: the damaged entry was restored", got)
	}
	after, _ := os.ReadFile(p)
	damagedLine := bytes.Split(b, []byte("\n"))[2]
	if !bytes.Contains(after, bytes.TrimSuffix(damagedLine, []byte(","))) {
		t.Errorf("the damaged line was not kept:\n%s", after)
	}
	j, _ = journal.Read(dir)
	if len(j.Damaged) != 1 || j.FileDamage != "" || len(j.Entries) != 1 || j.Entries[0].State != journal.StateReverted {
		t.Errorf("after the revert: %+v %q %+v", j.Damaged, j.FileDamage, j.Entries)
	}
	j, _ = journal.Open(dir)
	_, err = Revert(env, j, MatchAll, false)
	j.Close()
	if !errors.As(err, &left) {
		t.Errorf("second revert: %v, want the damaged entry reported again", err)
	}
}

// v1Journal writes a format 1 journal, as latlab wrote before checksums.
func v1Journal(t *testing.T, dir string, entries ...journal.Entry) {
	t.Helper()
	b, err := json.MarshalIndent(map[string]any{"version": 1, "next_id": len(entries) + 1, "next_set": len(entries) + 1, "entries": entries}, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, journal.File), append(b, '\n'), 0o600); err != nil {
		t.Fatal(err)
	}
}

// A format 1 journal is still read and reverted; an entry whose state is
// spelled in a way latlab never writes is reported and left alone, not
// skipped as if it were closed; the next save writes format 2.
func TestJournalFormat1(t *testing.T) {
	env, _, _, root := testEnvTree(t)
	dir := testutil.TempDir(t)
	os.WriteFile(filepath.Join(root, "proc/sys/net/ipv4/tcp_recovery"), []byte("5\n"), 0o644)
	os.WriteFile(filepath.Join(root, "proc/sys/net/ipv4/tcp_dsack"), []byte("0\n"), 0o644)
	v1Journal(t, dir,
		journal.Entry{ID: 1, Set: 1, Knob: "tcp-recovery", Loc: recoveryLoc, Original: backend.FileValue("1\n"), New: backend.FileValue("5\n"), State: journal.StateApplied},
		journal.Entry{ID: 2, Set: 2, Knob: "tcp-dsack", Loc: dsackLoc, Original: backend.FileValue("1\n"), New: backend.FileValue("0\n"), State: "Applied"},
	)
	j, err := journal.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(j.Entries) != 1 || len(j.Damaged) != 1 || j.Damaged[0].ID != 2 || !strings.Contains(j.Damaged[0].Why, `state "Applied"`) {
		t.Fatalf("entries %+v damaged %+v", j.Entries, j.Damaged)
	}
	_, err = Revert(env, j, MatchAll, false)
	j.Close()
	if err == nil || err.Error() != "not every change was reverted: journal entry 2 damaged" {
		t.Fatalf("revert: %v, want entry 2 reported", err)
	}
	if got, _ := os.ReadFile(filepath.Join(root, "proc/sys/net/ipv4/tcp_recovery")); string(got) != "1\n" {
		t.Errorf("tcp_recovery %q, want the format 1 entry restored", got)
	}
	b, _ := os.ReadFile(filepath.Join(dir, journal.File))
	if !bytes.HasPrefix(b, []byte(`{"version":2,`)) {
		t.Errorf("not rewritten in format 2:\n%s", b)
	}
	j, err = journal.Read(dir)
	if err != nil || len(j.Damaged) != 1 || j.Damaged[0].ID != 2 || j.NextID != 3 {
		t.Errorf("format 2 after migration: %v %+v next %d", err, j.Damaged, j.NextID)
	}
}

// Removing a damaged line by hand (after putting its value back) clears
// it: the file's checksum no longer matches, the entries still do, and
// the next save writes a sound journal.
func TestJournalLineRemovedByHand(t *testing.T) {
	_, dir, file := sampleJournal(t)
	lines := bytes.Split(file, []byte("\n"))
	cut := bytes.Join(append(lines[:len(lines)-3:len(lines)-3], lines[len(lines)-2:]...), []byte("\n"))
	p := filepath.Join(dir, journal.File)
	os.WriteFile(p, cut, 0o600)
	j, err := journal.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if j.FileDamage == "" || len(j.Damaged) != 0 {
		t.Fatalf("file damage %q, damaged %+v", j.FileDamage, j.Damaged)
	}
	if err := j.Save(); err != nil {
		t.Fatal(err)
	}
	j.Close()
	j, _ = journal.Read(dir)
	if j.FileDamage != "" || len(j.Damaged) != 0 {
		t.Fatalf("after a save: %q %+v", j.FileDamage, j.Damaged)
	}
}
