package knob

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/latlab/latlab/internal/knob/journal"
	"github.com/latlab/latlab/internal/testutil"
)

// set refuses to record an empty original: no setting file is ever
// empty, so it was left by a write cut short, and its real value is in
// the journal.
func TestSetRefusesEmptyOriginal(t *testing.T) {
	env, _, _, root := testEnvTree(t)
	p := filepath.Join(root, "proc/sys/net/ipv4/tcp_recovery")
	os.WriteFile(p, nil, 0o644)
	dir := testutil.TempDir(t)
	pl, err := tcpRecovery{}.Plan(env, Selector{}, "3")
	if err != nil {
		t.Fatal(err)
	}
	j, _ := journal.Open(dir)
	defer j.Close()
	err = Apply(env, j, pl)
	if err == nil || !strings.Contains(err.Error(), "nothing was changed: /proc/sys/net/ipv4/tcp_recovery is empty") || !strings.Contains(err.Error(), "latlab knob revert tcp-recovery") {
		t.Fatalf("set over an empty file: %v", err)
	}
	if len(j.Entries) != 0 {
		t.Fatalf("recorded %+v", j.Entries)
	}
}

// revert restores from the journal into a file a cut-short write left
// empty, instead of calling it someone else's change.
func TestRevertRestoresIntoEmptyFile(t *testing.T) {
	env, _, _, root := testEnvTree(t)
	dir := testutil.TempDir(t)
	applySteps(t, env, dir, []setStep{{"tcp-recovery", Selector{}, "3"}})
	p := filepath.Join(root, "proc/sys/net/ipv4/tcp_recovery")
	os.WriteFile(p, nil, 0o644)
	steps, crashed := revertAll(t, env, dir)
	if crashed || len(steps) != 1 || steps[0].Action != "restore" || !strings.Contains(steps[0].Detail, "empty") {
		t.Fatalf("revert into an empty file: %+v", steps)
	}
	if b, _ := os.ReadFile(p); string(b) != "1\n" {
		t.Fatalf("after revert %q, want 1", b)
	}
}
