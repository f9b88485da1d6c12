package knob

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/latlab/latlab/internal/knob/internal/safefile"

	"github.com/latlab/latlab/internal/knob/journal"

	"github.com/latlab/latlab/internal/knob/backend"
	"github.com/latlab/latlab/internal/testutil"
)

// irqJournal makes a journal in a new state directory with n open
// irq-affinity changes, one per IRQ (each file now "1", originally "0-3"),
// built from the entry a real set of IRQ 24 records.
func irqJournal(t testing.TB, n int) (env *Env, root, dir string) {
	t.Helper()
	env, _, _, root = testEnvTree(t)
	dir = testutil.TempDir(t)
	j, err := journal.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	k, _ := Lookup("irq-affinity")
	p, err := k.Plan(env, Selector{IRQ: "24"}, "1")
	if err != nil {
		t.Fatal(err)
	}
	if err := Apply(env, j, p); err != nil {
		t.Fatal(err)
	}
	tmpl := j.Entries[0]
	for i := 1; i < n; i++ {
		irq := 1000 + i
		p := fmt.Sprintf("proc/irq/%d/smp_affinity_list", irq)
		full := filepath.Join(root, p)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte("1\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		e := tmpl
		e.Loc.Path = strings.Replace(tmpl.Loc.Path, "24", fmt.Sprint(irq), 1)
		e.Target = strings.Replace(tmpl.Target, "24", fmt.Sprint(irq), 1)
		j.Add([]journal.Entry{e})
	}
	if err := j.Save(); err != nil {
		t.Fatal(err)
	}
	return env, root, dir
}

func readFixture(t testing.TB, root, p string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, p))
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(b))
}

// A revert saves the journal once, not once per entry: a whole-journal
// rewrite and fsync per entry made 2,000 entries take 9.8 s.
func TestRevertSavesOnce(t *testing.T) {
	env, root, dir := irqJournal(t, 50)
	j, err := journal.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	steps, err := Revert(env, j, MatchAll, false)
	j.Close()
	if err != nil || len(steps) != 50 {
		t.Fatalf("%d steps, %v", len(steps), err)
	}
	if j.Saves() != 1 {
		t.Errorf("%d saves for one revert of 50 changes, want 1", j.Saves())
	}
	j, _ = journal.Read(dir)
	for _, e := range j.Entries {
		if e.Open() {
			t.Errorf("entry %d still %s", e.ID, e.State)
		}
	}
	if got := readFixture(t, root, "proc/irq/1049/smp_affinity_list"); got != "0-3" {
		t.Errorf("irq 1049 %q", got)
	}
}

// Ctrl-C during a revert stops it between two entries; what was reverted
// is recorded, the rest stays open for the next revert.
func TestRevertStopsOnCancel(t *testing.T) {
	env, root, dir := irqJournal(t, 10)
	ctx, cancel := context.WithCancel(context.Background())
	e := *env
	e.writes, e.FaultAfter, e.Crash = 0, 3, cancel // the signal arrives during the third write
	j, err := journal.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	steps, err := RevertContext(ctx, &e, j, MatchAll, false)
	j.Close()
	if err == nil || !strings.Contains(err.Error(), "interrupted after 3 of 10 changes") || len(steps) != 3 {
		t.Fatalf("%d steps, %v", len(steps), err)
	}
	j, _ = journal.Read(dir)
	open := 0
	for _, e := range j.Entries {
		if e.Open() {
			open++
			if got := readFixture(t, root, e.Loc.Path); got != "1" {
				t.Errorf("entry %d open but %s holds %q", e.ID, e.Loc, got)
			}
		} else if got := readFixture(t, root, e.Loc.Path); got != "0-3" {
			t.Errorf("entry %d reverted but %s holds %q", e.ID, e.Loc, got)
		}
	}
	if open != 7 {
		t.Errorf("%d entries open, want 7", open)
	}
	j, _ = journal.Open(dir)
	defer j.Close()
	if steps, err := Revert(env, j, MatchAll, false); err != nil || len(steps) != 7 {
		t.Errorf("the rest: %d steps, %v", len(steps), err)
	}
}

// Two changes of one setting, the newer one never written (pending: a
// crash between the journal and the write), then a change of another
// setting. A crash after any write of the revert, then another revert,
// ends with every original back and no conflict: the journal is saved
// before the second write of a setting an unsaved entry names.
func TestRevertCrashInChainWithPendingEntry(t *testing.T) {
	safefile.Durable = false
	defer func() { safefile.Durable = true }()
	for k := 1; k <= 3; k++ {
		t.Run(fmt.Sprint(k), func(t *testing.T) {
			env, _, _, root := testEnvTree(t)
			dir := testutil.TempDir(t)
			applySteps(t, env, dir, []setStep{{"tcp-recovery", Selector{}, "5"}, {"tcp-dsack", Selector{}, "off"}})
			j, err := journal.Open(dir)
			if err != nil {
				t.Fatal(err)
			}
			first := j.Entries[0]
			orig := first.Original
			j.Add([]journal.Entry{{Knob: "tcp-recovery", Request: "0", Loc: first.Loc, Original: first.New, New: backend.FileValue("0\n"), State: journal.StatePending}})
			// newest first: tcp-recovery pending (marked), tcp-dsack restored,
			// tcp-recovery restored: two writes
			if err := j.Save(); err != nil {
				t.Fatal(err)
			}
			j.Close()
			_, crashed := revertAll(t, withFault(env, k), dir)
			if crashed != (k <= 2) {
				t.Fatalf("crashed %v after write %d", crashed, k)
			}
			if _, c := revertAll(t, env, dir); c {
				t.Fatal("second revert crashed")
			}
			if got := readFixture(t, root, "proc/sys/net/ipv4/tcp_recovery") + "\n"; got != string(orig.Data) {
				t.Errorf("tcp_recovery %q, want %q", got, orig.Data)
			}
			if got := readFixture(t, root, "proc/sys/net/ipv4/tcp_dsack"); got != "1" {
				t.Errorf("tcp_dsack %q", got)
			}
		})
	}
}

// A revert keeps only the newest keepClosed closed entries: the journal
// does not grow with every change ever reverted. Ids are not reused.
func TestRevertPrunesClosedEntries(t *testing.T) {
	defer func(k int) { keepClosed = k }(keepClosed)
	keepClosed = 5
	env, _, dir := irqJournal(t, 20)
	j, _ := journal.Open(dir)
	next := j.NextID
	if _, err := Revert(env, j, MatchAll, false); err != nil {
		t.Fatal(err)
	}
	j.Close()
	j, _ = journal.Read(dir)
	if len(j.Entries) != 5 || j.NextID != next || j.Entries[0].ID != 16 {
		t.Errorf("%d entries (first %d), next id %d, want 5 from 16 and %d", len(j.Entries), j.Entries[0].ID, j.NextID, next)
	}
}

// BenchmarkRevert2000 reverts 2,000 open changes of as many settings
// (9.8 s when every entry rewrote the journal). Syncing is off: in a
// fixture tree every setting file is a file replaced and synced, where a
// /proc file takes one write, so with it on the disk's sync time would
// hide latlab's own work.
func BenchmarkRevert2000(b *testing.B) {
	safefile.Durable = false
	defer func() { safefile.Durable = true }()
	for b.Loop() {
		b.StopTimer()
		env, _, dir := irqJournal(b, 2000)
		j, err := journal.Open(dir)
		if err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		if _, err := Revert(env, j, MatchAll, false); err != nil {
			b.Fatal(err)
		}
		j.Close()
	}
}
