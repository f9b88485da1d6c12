package knob

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/latlab/latlab/internal/knob/journal"

	"github.com/latlab/latlab/internal/knob/backend"
	"github.com/latlab/latlab/internal/testutil"
)

// A journal entry that names a file the knob never writes must not make
// revert write it: here root's revert would add a uid-0 line to passwd.
func TestRevertRefusesForeignLocation(t *testing.T) {
	env, reg, _, root := testEnvTree(t)
	passwd := filepath.Join(root, "etc", "passwd")
	os.MkdirAll(filepath.Dir(passwd), 0o755)
	const orig = "root:x:0:0:root:/root:/bin/sh\n"
	if err := os.WriteFile(passwd, []byte(orig), 0o644); err != nil {
		t.Fatal(err)
	}
	run := `HKLM\SOFTWARE\Microsoft\Windows\CurrentVersion\Run`
	dir := testutil.TempDir(t)
	ForgeForTest(t, dir,
		// New is what the file holds now, so the old revert saw "latlab's
		// value, unchanged" and restored the "original".
		journal.Entry{Knob: "tcp-recovery", Loc: fileLoc("etc/passwd"), Original: backend.FileValue("evil::0:0::/:/bin/sh\n" + orig), New: backend.FileValue(orig)},
		journal.Entry{Knob: "irq-affinity", Target: "irq 24", Loc: fileLoc("proc/irq/24/../../../etc/passwd"), Original: backend.FileValue("1\n"), New: backend.FileValue(orig)},
		journal.Entry{Knob: "win32-priority-separation", Loc: regLoc(run, "evil"), Original: backend.SZ(`C:\evil.exe`), New: backend.Absent},
		journal.Entry{Knob: "no-such-knob", Loc: recoveryLoc, Original: backend.FileValue("3\n"), New: backend.FileValue("1\n")},
	)
	steps, err := revertJournal(t, env, dir, true)
	var left *LeftAloneError
	if !errors.As(err, &left) || len(left.Refused) != 4 {
		t.Fatalf("revert of forged entries: %v, want 4 left alone", err)
	}
	for _, s := range steps {
		if s.Action != "refused" {
			t.Errorf("entry %d (%s): %s, want refused", s.Entry.ID, s.Entry.Loc, s.Action)
		}
	}
	if b, _ := os.ReadFile(passwd); string(b) != orig {
		t.Fatalf("passwd was rewritten: %q", b)
	}
	if v, _ := reg.Read(regLoc(run, "evil")); !v.IsAbsent() {
		t.Fatalf("a Run value was added: %s", v)
	}
	if b, _ := os.ReadFile(filepath.Join(root, "proc/sys/net/ipv4/tcp_recovery")); string(b) != "1\n" {
		t.Fatalf("tcp_recovery = %q, the unknown knob's entry was restored", b)
	}
	// The refused entries stay open: they were not restored.
	j, _ := journal.Read(dir)
	for _, e := range j.Entries {
		if !e.Open() {
			t.Errorf("entry %d closed as %s", e.ID, e.State)
		}
	}
	// export --undo leaves them out too.
	for _, c := range UndoChanges(env, j) {
		if c.Skip == "" || !strings.Contains(c.Skip, "refused") {
			t.Errorf("undo script writes %s (skip %q)", c.Loc, c.Skip)
		}
	}
}

// The right location with an original the knob could never have held:
// the bytes are not restored either.
func TestRevertRefusesForeignOriginal(t *testing.T) {
	env, _, bcd, root := testEnvTree(t)
	dir := testutil.TempDir(t)
	ForgeForTest(t, dir,
		journal.Entry{Knob: "tcp-recovery", Loc: recoveryLoc, Original: backend.FileValue("1\nkernel.modprobe = /tmp/x\n"), New: backend.FileValue("1\n")},
		journal.Entry{Knob: "tsc-sync-policy", Loc: tscLoc, Original: backend.Value{Type: backend.TypeBCD, Data: []byte("enhanced /set {bootmgr} path \\evil.efi")}, New: backend.Absent},
		journal.Entry{Knob: "win32-priority-separation", Loc: prioLoc, Original: backend.Value{Type: backend.TypeBinary, Data: []byte{1, 2}}, New: backend.DWORD(2)},
	)
	_, err := revertJournal(t, env, dir, true)
	var left *LeftAloneError
	if !errors.As(err, &left) || len(left.Refused) != 3 {
		t.Fatalf("revert: %v, want 3 left alone", err)
	}
	if b, _ := os.ReadFile(filepath.Join(root, "proc/sys/net/ipv4/tcp_recovery")); string(b) != "1\n" {
		t.Errorf("tcp_recovery = %q", b)
	}
	if v, _ := bcd.Read(tscLoc); !v.IsAbsent() {
		t.Errorf("tscsyncpolicy = %q", v)
	}
}

// A refused entry does not stop the others: they are restored, and the
// revert still fails.
func TestRevertRestoresTheRestAroundARefusedEntry(t *testing.T) {
	env, _, _, root := testEnvTree(t)
	dir := testutil.TempDir(t)
	applySteps(t, env, dir, []setStep{{"tcp-dsack", Selector{}, "off"}})
	ForgeForTest(t, dir, journal.Entry{Knob: "tcp-dsack", Loc: fileLoc("etc/shadow"), Original: backend.FileValue("0\n"), New: backend.Absent})
	steps, err := revertJournal(t, env, dir, false)
	var left *LeftAloneError
	if !errors.As(err, &left) || len(left.Refused) != 1 || !strings.Contains(err.Error(), "not every change was reverted: journal entry 2 refused: /etc/shadow is not a value tcp-dsack writes") {
		t.Fatalf("revert: %v", err)
	}
	if len(steps) != 2 || steps[1].Action != "restore" {
		t.Fatalf("steps %+v", steps)
	}
	if b, _ := os.ReadFile(filepath.Join(root, "proc/sys/net/ipv4/tcp_dsack")); string(b) != "1\n" {
		t.Errorf("tcp_dsack = %q, want 1 restored", b)
	}
	if _, err := os.Stat(filepath.Join(root, "etc/shadow")); err == nil {
		t.Error("etc/shadow was created")
	}
}

func TestVet(t *testing.T) {
	good := []struct {
		knob, target string
		l            backend.Loc
		v            backend.Value
	}{
		{"timer-slack", "pid 4242", slackGuardLoc("4242"), backend.FileValue("98765")},
		{"tcp-recovery", "", recoveryLoc, backend.FileValue("1\n")},
		{"tcp-dsack", "", dsackLoc, backend.FileValue("0\n")},
		{"clocksource", "", csCurrentLoc, backend.FileValue("acpi_pm\n")},
		{"irq-affinity", "irq 24", irqLoc("24"), backend.FileValue("0-3,8\n")},
		{"rps", "eth0", rpsLoc("eth0", "rx-3"), backend.FileValue("00000000,00000003\n")},
		{"rps", "eth0 rx-1", rpsLoc("eth0", "rx-1"), backend.FileValue("0\n")},
		{"win32-priority-separation", "", regLoc(prioKey, ""), backend.Absent},
		{"network-throttling-index", "", ntiLoc, backend.SZ("10")},
		{"display-scaling", "SIM", regLoc(graphicsConfigKey+`\SIMULATED\00\00`, "Scaling"), backend.DWORD(4)},
		{"rss", "I225-V", regLoc(NetClassKey+`\0007`, "*NumRssQueues"), backend.SZ("4")},
		{"interrupt-moderation", "I225-V", regLoc(NetClassKey+`\0007`, "ITR"), backend.Absent},
		{"qos-dscp", "latlab a.exe", regLoc(QoSKey+`\latlab a.exe`, "Anything"), backend.DWORD(1)},
		{"qos-dscp", "latlab a.exe", regLoc(QoSKey+`\latlab a.exe`, ""), backend.KeyValue},
		{"qos-dscp", "latlab a.exe", regLoc(`HKLM\SOFTWARE\Policies`, ""), backend.Absent},
		{"qos-dscp", "p", regLoc(NLAKey, "Do not use NLA"), backend.SZ("1")},
	}
	for _, c := range good {
		k, _ := Lookup(c.knob)
		if err := k.Vet(c.target, c.l, c.v); err != nil {
			t.Errorf("%s %q %s = %s: %v", c.knob, c.target, c.l, c.v, err)
		}
	}
	bad := []struct {
		knob, target string
		l            backend.Loc
		v            backend.Value
		want         string
	}{
		{"tcp-recovery", "", recoveryLoc, backend.FileValue("1 2\n"), "not an integer"},
		{"tcp-recovery", "", recoveryLoc, backend.FileValue("1\n2\n"), "byte 0x0a"},
		{"tcp-recovery", "", recoveryLoc, backend.Absent, "not the content"},
		{"tcp-recovery", "x", recoveryLoc, backend.FileValue("1\n"), "no targets"},
		{"tcp-dsack", "", recoveryLoc, backend.FileValue("1\n"), "not a value"},
		{"clocksource", "", csCurrentLoc, backend.FileValue("tsc; reboot\n"), "not the name"},
		{"rps", "eth0 rx-1", rpsLoc("eth0", "rx-0"), backend.FileValue("0\n"), "not a value"},
	}
	for _, c := range bad {
		k, _ := Lookup(c.knob)
		err := k.Vet(c.target, c.l, c.v)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s %q %s = %q: %v, want %q", c.knob, c.target, c.l, c.v, err, c.want)
		}
	}
	// No knob writes a file or a key outside its own.
	for _, k := range All() {
		for _, l := range []backend.Loc{fileLoc("etc/passwd"), regLoc(`HKLM\SOFTWARE\Microsoft\Windows\CurrentVersion\Run`, "x"), {Backend: backend.BackendBCD, Path: "{bootmgr}", Name: "path"}} {
			for _, target := range []string{"", "x", "pid 1", "irq 1", "eth0"} {
				if err := k.Vet(target, l, backend.FileValue("1\n")); err == nil {
					t.Errorf("%s accepts %s for %q", k.Name(), l, target)
				}
			}
		}
	}
}

// set never records an original that revert would refuse.
func TestApplyRefusesAnOriginalItCouldNotRestore(t *testing.T) {
	env, _, _, root := testEnvTree(t)
	rec := filepath.Join(root, "proc/sys/net/ipv4/tcp_recovery")
	os.WriteFile(rec, []byte("1 2\n"), 0o644)
	dir := testutil.TempDir(t)
	p, err := tcpRecovery{}.Plan(env, Selector{}, "3")
	if err != nil {
		t.Fatal(err)
	}
	j, _ := journal.Open(dir)
	defer j.Close()
	err = Apply(env, j, p)
	if err == nil || !strings.Contains(err.Error(), "nothing was changed") || !strings.Contains(err.Error(), "could not restore") {
		t.Fatalf("apply over an unrestorable original: %v", err)
	}
	if len(j.Entries) != 0 {
		t.Fatal("an entry was recorded")
	}
	if b, _ := os.ReadFile(rec); string(b) != "1 2\n" {
		t.Fatalf("file changed: %q", b)
	}
}

// revertJournal reverts every entry of the journal in dir, as knob revert
// does (force as given).
func revertJournal(t *testing.T, env *Env, dir string, force bool) ([]Step, error) {
	t.Helper()
	j, err := journal.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	return Revert(env, j, MatchAll, force)
}
