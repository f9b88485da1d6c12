package knob

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/latlab/latlab/internal/knob/journal"

	"github.com/latlab/latlab/internal/testutil"
)

// history lists every change with its state, reads a missing journal as
// empty without making its directory, and names what is damaged.
func TestRunHistory(t *testing.T) {
	env, _, _, _ := testEnvTree(t)
	n := native()
	state := filepath.Join(testutil.TempDir(t), "state")
	h, err := RunHistory(context.Background(), HistoryOptions{StateDir: state})
	if err != nil || len(h.Entries) != 0 || h.Journal != state || h.Warnings() != nil {
		t.Fatalf("no journal: %v %+v", err, h)
	}
	if _, err := os.Stat(state); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("history made the state directory: %v", err)
	}
	for _, v := range []string{n.set, n.other} {
		if _, err := RunSet(context.Background(), SetOptions{Knob: n.name, Value: v, StateDir: state, Env: env}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := RunRevert(context.Background(), RevertOptions{Knob: n.name, StateDir: state, Env: env}); err != nil {
		t.Fatal(err)
	}
	h, err = RunHistory(context.Background(), HistoryOptions{StateDir: state})
	if err != nil || len(h.Entries) != 2 || h.Warnings() != nil {
		t.Fatalf("%v %+v", err, h)
	}
	for i, e := range h.Entries {
		if e.ID != i+1 || e.Knob != n.name || e.State != journal.StateReverted {
			t.Errorf("entry %d: %+v", i, e)
		}
	}
	damageEntry(t, state, 2)
	h, err = RunHistory(context.Background(), HistoryOptions{StateDir: state})
	if w := h.Warnings(); err != nil || len(h.Entries) != 1 || len(h.Damaged) != 1 || len(w) != 1 ||
		!strings.HasPrefix(w[0], "journal entry 2 (line 3) is damaged, left alone: ") {
		t.Errorf("a damaged entry: %v %+v, warnings %q", err, h, h.Warnings())
	}
}
