package try

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/latlab/latlab/internal/knob/journal"

	"github.com/latlab/latlab/internal/knob"
	"github.com/latlab/latlab/internal/testutil"
)

// What knob set says of the experiment record: nothing without one, the
// changes an unfinished experiment left with the command that reverts
// them (quoted for the shell), and nothing for a record whose changes
// are all reverted, which it closes.
func TestUnfinishedWarning(t *testing.T) {
	root := tree(t)
	state := filepath.Join(testutil.TempDir(t), "my state")
	undo := []string{"latlab", "knob", "revert", "--all", "--state-dir", state}
	j, err := journal.Open(state)
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	if msg, err := UnfinishedWarning(j, undo); msg != "" || err != nil {
		t.Fatalf("without a record: %q %v", msg, err)
	}
	if err := writeRecord(j, Record{State: StateRunning, Command: "latlab try clocksource hpet", Knob: "clocksource", FirstEntry: j.NextID}); err != nil {
		t.Fatal(err)
	}
	env := knob.NewEnv(root)
	env.Privileged = nil
	k, err := knob.Lookup("clocksource")
	if err != nil {
		t.Fatal(err)
	}
	p, err := k.Plan(env, knob.Selector{}, "hpet")
	if err != nil {
		t.Fatal(err)
	}
	if err := knob.Apply(env, j, p); err != nil {
		t.Fatal(err)
	}
	msg, err := UnfinishedWarning(j, undo)
	if err != nil || !strings.Contains(msg, "an experiment did not finish: latlab try clocksource hpet left 1 change(s) of clocksource in place") ||
		!strings.Contains(msg, "latlab knob revert --all --state-dir '"+state+"' restores the original values") {
		t.Fatalf("with the change in place: %q %v", msg, err)
	}
	if _, err := knob.Revert(env, j, knob.MatchAll, false); err != nil {
		t.Fatal(err)
	}
	if msg, err := UnfinishedWarning(j, undo); msg != "" || err != nil {
		t.Fatalf("with the change reverted: %q %v", msg, err)
	}
	if b, err := j.ReadExperiment(); err != nil || !strings.Contains(string(b), `"state":"finished"`) {
		t.Errorf("the record was not closed: %s %v", b, err)
	}
}
