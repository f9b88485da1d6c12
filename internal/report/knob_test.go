package report

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/latlab/latlab/internal/knob/journal"

	"github.com/sebdah/goldie/v2"

	"github.com/latlab/latlab/internal/knob"
	"github.com/latlab/latlab/internal/knob/backend"
)

// Each case of a list row: a knob of the other OS, one that could not be
// read, one instance, none, several (which points to knob get), and a
// meaning too long for the table.
func TestKnobList(t *testing.T) {
	l := &knob.List{OS: "linux", Knobs: []knob.ListEntry{
		{Name: "clocksource", OS: "linux", Summary: "the clock source", Reading: &knob.Reading{Knob: "clocksource",
			Items: []knob.Item{{Value: "tsc", Meaning: "the CPU's time-stamp counter"}}}},
		{Name: "coalescing", OS: "linux", Summary: "interrupt coalescing", Reading: &knob.Reading{Knob: "coalescing"}},
		{Name: "rps", OS: "linux", Summary: "receive packet steering", Reading: &knob.Reading{Knob: "rps",
			Items: []knob.Item{{Target: "eth0 rx-0", Value: "0"}, {Target: "eth0 rx-1", Value: "3"}}}},
		{Name: "timer-slack", OS: "linux", Summary: "timer slack", Error: "/proc/self/timerslack_ns does not exist"},
		{Name: "tcp-dsack", OS: "linux", Summary: "D-SACK", Reading: &knob.Reading{Knob: "tcp-dsack",
			Items: []knob.Item{{Value: strings.Repeat("1", 40), Meaning: strings.Repeat("long meaning ", 10)}}}},
		{Name: "rss", OS: "windows", Summary: "receive side scaling"},
	}}
	var b bytes.Buffer
	KnobList(&b, l)
	goldie.New(t).Assert(t, "knob-list", b.Bytes())
}

// get prints one instance as lines, several as a table; warnings and
// notes follow either.
func TestKnobReading(t *testing.T) {
	loc := &backend.Loc{Backend: backend.BackendRegistry, Path: `HKLM\SYSTEM\CurrentControlSet\Control\PriorityControl`, Name: "Win32PrioritySeparation"}
	var b bytes.Buffer
	for _, r := range []*knob.Reading{
		{Knob: "win32-priority-separation", Items: []knob.Item{{Loc: loc, Value: "0x26 (38)", Meaning: "short, variable quanta, 3:1",
			Warnings: []string{"a warning"}}}, Notes: []string{"a note"}},
		{Knob: "rps", Items: []knob.Item{{Target: "eth0 rx-0", Value: "0", Meaning: "off"},
			{Target: "eth0 rx-1", Value: strings.Repeat("f", 80), Meaning: "on", Warnings: []string{"a warning of rx-1"}}}},
		{Knob: "coalescing", Notes: []string{"no interface has coalescing settings"}},
	} {
		KnobReading(&b, r)
	}
	goldie.New(t).Assert(t, "knob-get", b.Bytes())
}

// set prints the changes, then the script of a dry run or the journal
// and the undo command of a real one; a value already in place is said
// in one line.
func TestKnobSet(t *testing.T) {
	plan := &knob.Plan{Knob: "irq-affinity", Target: "irq 30", Request: "1", Notes: []string{"a note"},
		Changes: []knob.Change{{Loc: backend.Loc{Backend: backend.BackendFile, Path: "proc/irq/30/smp_affinity_list"}}}}
	changes := []knob.Delta{{Where: "/proc/irq/30/smp_affinity_list", From: "0-1", To: "1"}}
	var b bytes.Buffer
	for _, r := range []*knob.SetResult{
		{DryRun: true, Plan: plan, Changes: changes, Format: knob.FormatSh, Script: []string{"#!/bin/sh", "printf '%s\\n' '1' > '/proc/irq/30/smp_affinity_list'"}},
		{DryRun: true, Plan: plan, Changes: changes, Format: knob.FormatPS1, Script: []string{"# PowerShell"}},
		{Applied: true, Plan: plan, Changes: changes, Journal: "/var/lib/latlab", Entries: []int{4},
			Undo: []string{"latlab", "knob", "revert", "irq-affinity", "--state-dir", "/var/lib/latlab"}},
		{Plan: &knob.Plan{Knob: "tcp-recovery", Request: "5"}},
	} {
		KnobSet(&b, r)
		b.WriteString("--\n")
	}
	goldie.New(t).Assert(t, "knob-set", b.Bytes())
}

// revert prints one line per step, by its action; a revert with nothing
// to do says why; a dry run ends by saying it changed nothing, unless it
// stopped (its error says why).
func TestKnobRevert(t *testing.T) {
	file := func(p string) backend.Loc { return backend.Loc{Backend: backend.BackendFile, Path: p} }
	key := backend.Loc{Backend: backend.BackendRegistry, Path: `HKLM\SOFTWARE\Policies\Microsoft\Windows\QoS\latlab game.exe`}
	e := journal.Entry{ID: 3, Knob: "irq-affinity", Target: "irq 30", Loc: file("proc/irq/30/smp_affinity_list"),
		Original: backend.FileValue("0-1" + "\n"), New: backend.FileValue("1" + "\n")}
	steps := []knob.Step{
		{Entry: e, Action: "restore", Live: backend.FileValue("1" + "\n")},
		{Entry: journal.Entry{ID: 2, Knob: "tcp-recovery", Loc: file("proc/sys/net/ipv4/tcp_recovery"), Original: backend.FileValue("1" + "\n")},
			Action: "already-original", Detail: "changed back by hand"},
		{Entry: journal.Entry{ID: 4, Knob: "qos-dscp", Target: "latlab game.exe", Loc: key, Original: backend.Absent, New: backend.KeyValue}, Action: "keep"},
		{Entry: journal.Entry{ID: 5, Knob: "rps", Target: "eth1 rx-0", Loc: file("sys/class/net/eth1/queues/rx-0/rps_cpus")}, Action: "gone"},
		{Entry: e, Action: "conflict", Live: backend.FileValue("0" + "\n")},
		{Entry: e, Action: "refused", Detail: "not a location of irq-affinity"},
		{Entry: journal.Entry{Knob: "win32-priority-separation", Loc: backend.Loc{Backend: backend.BackendRegistry,
			Path: `HKLM\SYSTEM\CurrentControlSet\Control\PriorityControl`, Name: "Win32PrioritySeparation"}, Original: backend.DWORD(2)},
			Action: "restore", Live: backend.DWORD(38)},
	}
	var b bytes.Buffer
	for _, r := range []*knob.RevertResult{
		{Steps: steps},
		{DryRun: true, Steps: steps[:1]},
		{DryRun: true, Steps: steps[4:5], Error: "stopped"},
		{},
		{Target: "irq 31", Damaged: []journal.Damage{{Line: 3, ID: 2, Why: "its checksum does not match"}}},
	} {
		KnobRevert(&b, r)
		b.WriteString("--\n")
	}
	goldie.New(t).Assert(t, "knob-revert", b.Bytes())
}

// history is a table of the changes, oldest first, and where the journal
// is; an empty one says where it looked.
func TestKnobHistory(t *testing.T) {
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.Local) // printed in local time
	h := &knob.History{Journal: "/var/lib/latlab", Entries: []journal.Entry{
		{ID: 1, Set: 1, Time: at, Knob: "tcp-recovery", Loc: backend.Loc{Backend: backend.BackendFile, Path: "proc/sys/net/ipv4/tcp_recovery"},
			Original: backend.FileValue("1\n"), New: backend.FileValue("5\n"), State: journal.StateReverted},
		{ID: 2, Set: 2, Time: at.Add(time.Minute), Knob: "qos-dscp", Target: "latlab game.exe",
			Loc:      backend.Loc{Backend: backend.BackendRegistry, Path: `HKLM\SOFTWARE\Policies\Microsoft\Windows\QoS\latlab game.exe`, Name: "DSCP Value"},
			Original: backend.Absent, New: backend.SZ("46"), State: journal.StateApplied},
	}}
	var b bytes.Buffer
	KnobHistory(&b, h)
	KnobHistory(&b, &knob.History{Journal: "/var/lib/latlab"})
	goldie.New(t).Assert(t, "knob-history", b.Bytes())

	// At 80 columns nothing is left out: the state and the values, then
	// where (wrapped) and when.
	var narrow bytes.Buffer
	KnobHistory(WithWidth(&narrow, 80), h)
	for _, want := range []string{"reverted", "applied", "(absent)", "46 (REG_SZ)", "/proc/sys/net/ipv4/tcp_recovery", "2026-01-02 03:05:05"} {
		if !strings.Contains(narrow.String(), want) {
			t.Errorf("at 80 columns, no %q in\n%s", want, narrow.String())
		}
	}
	if strings.Contains(narrow.String(), "not shown") {
		t.Errorf("at 80 columns, a column is left out:\n%s", narrow.String())
	}
}

// A plan's warning (a BCD change under BitLocker without Secure Boot) is
// printed in the plan of a dry run and of a real set, wrapped at 80.
func TestKnobSetWarning(t *testing.T) {
	w := knob.BootWarning(&knob.Env{BootSecurity: func() (knob.BootSecurity, error) {
		return knob.BootSecurity{BitLocker: true, Profiles: [][]int{{0, 2, 4, 11}}}, nil
	}},
		[]knob.Change{{Loc: backend.Loc{Backend: backend.BackendBCD, Path: "{current}", Name: "tscsyncpolicy"}}})
	plan := &knob.Plan{Knob: "tsc-sync-policy", Request: "enhanced", Warnings: []string{w},
		Changes: []knob.Change{{Loc: backend.Loc{Backend: backend.BackendBCD, Path: "{current}", Name: "tscsyncpolicy"}}}}
	for _, dry := range []bool{true, false} {
		var b bytes.Buffer
		KnobSet(WithWidth(&b, 80), &knob.SetResult{DryRun: dry, Plan: plan, Changes: []knob.Delta{{Where: "bcd {current} tscsyncpolicy", From: "(absent)", To: "enhanced"}}})
		out := strings.Join(strings.Fields(b.String()), " ")
		if !strings.Contains(out, "warning: BitLocker protects the system drive and Secure Boot is off: this boot-configuration change can make the next boot ask for the BitLocker recovery key") ||
			!strings.Contains(out, `(Microsoft, "BCD settings and BitLocker")`) {
			t.Errorf("dry run %v:\n%s", dry, b.String())
		}
		for _, l := range strings.Split(b.String(), "\n") {
			if len([]rune(l)) > 80 {
				t.Errorf("wider than 80: %q", l)
			}
		}
	}
}

// A change latlab does not make itself (a boot parameter) prints its
// steps, each line to copy unwrapped on a line of its own, and says that
// nothing was changed.
func TestKnobSetManual(t *testing.T) {
	plan := &knob.Plan{Knob: "isolation", Request: "2-3",
		Manual: []knob.ManualStep{
			{Do: `in /etc/default/grub, set GRUB_CMDLINE_LINUX (now "console=ttyS0") to`, Line: `GRUB_CMDLINE_LINUX="console=ttyS0 isolcpus=managed_irq,domain,2-3 nohz_full=2-3 rcu_nocbs=2-3"`},
			{Do: "regenerate the GRUB configuration: update-grub on Debian and Ubuntu; grub2-mkconfig -o /boot/grub2/grub.cfg on Fedora and RHEL"},
			{Do: "reboot: the kernel reads its parameters only at boot"},
		},
		Notes: []string{"after the reboot, latlab knob get isolation shows what the kernel took"}}
	var b bytes.Buffer
	KnobSet(WithWidth(&b, 80), &knob.SetResult{Plan: plan})
	goldie.New(t).Assert(t, "knob-set-manual", b.Bytes())
	if !strings.Contains(b.String(), "\n       "+plan.Manual[0].Line+"\n") || !strings.HasSuffix(b.String(), "nothing was changed\n") {
		t.Errorf("output:\n%s", b.String())
	}
}

// A value read from a file someone else wrote reaches the terminal with
// its control characters escaped: an escape sequence in a setting file
// must not act on the terminal of whoever runs knob get.
func TestKnobValuesShowControlCharacters(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"60", "60"},
		{"unreadable: \x01\x1b[2J", `unreadable: \x01\x1b[2J`},
		{"caf\xc3\xa9 \xff", `café \xff`},
		{"\u009b31m", `\xc2\x9b31m`},
		{"µs", "µs"},
	} {
		if got := visible(c.in); got != c.want {
			t.Errorf("visible(%q) = %q, want %q", c.in, got, c.want)
		}
	}
	r := &knob.Reading{Knob: "swappiness", Items: []knob.Item{{Value: "\x1b]0;owned\x07", Meaning: "unreadable: \x1b]0;owned\x07"}}}
	var b strings.Builder
	KnobReading(&b, r)
	if strings.ContainsAny(b.String(), "\x1b\x07") {
		t.Errorf("control characters reached the output: %q", b.String())
	}
}

// knob explain FILE.ps1 --current: a value New-ItemProperty writes
// without -Force that exists is said to be left as it is, in its line and
// in the count, and is not counted as a change.
func TestKnobRegFileKept(t *testing.T) {
	now := backend.DWORD(2)
	x := &knob.RegExplanation{File: "t.ps1", PowerShell: true, Keys: 2, Values: 2, Current: true, Changes: 1, Kept: 1,
		Unknown: []knob.RegEntry{
			{Line: 1, Loc: backend.Loc{Backend: backend.BackendRegistry, Path: `HKCU\Software\t`, Name: "a"}, Value: backend.DWORD(1),
				NewOnly: true, Kept: true, Note: knob.NewOnlyNote, Now: &now},
			{Line: 2, Loc: backend.Loc{Backend: backend.BackendRegistry, Path: `HKCU\Software\t`, Name: "b"}, Value: backend.DWORD(1),
				NewOnly: true, Note: knob.NewOnlyNote, Now: &backend.Absent},
		}}
	var b bytes.Buffer
	KnobRegFile(&b, x)
	out := b.String()
	for _, want := range []string{
		"on this machine an import would change 1 of them; 0 are already as the file writes them; 1 exists and is left as it is (New-ItemProperty without -Force)",
		"line 1: a = dword 0x00000001 (1) (now: dword 0x00000002 (2), left as it is)\n",
		"line 2: b = dword 0x00000001 (1) (now: absent)\n",
		"New-ItemProperty without -Force writes only a value that does not exist yet: an existing value is left as it is",
	} {
		if !strings.Contains(strings.Join(strings.Fields(out), " "), strings.Join(strings.Fields(want), " ")) {
			t.Errorf("missing %q in\n%s", want, out)
		}
	}
	if strings.Contains(out, "could not be read") {
		t.Errorf("a kept value counted as unread:\n%s", out)
	}
}

// knob explain FILE.bat --current: a value whose reg question the
// script answers no is left as it is, and the count says why.
func TestKnobRegFileKeptBatch(t *testing.T) {
	now := backend.DWORD(2)
	x := &knob.RegExplanation{File: "t.bat", Batch: true, Keys: 1, Values: 1, Current: true, Kept: 1,
		Unknown: []knob.RegEntry{
			{Line: 1, Loc: backend.Loc{Backend: backend.BackendRegistry, Path: `HKCU\Software\t`, Name: "a"}, Value: backend.DWORD(1),
				NewOnly: true, Kept: true, Note: knob.AnsweredNoNote, Now: &now},
		}}
	var b bytes.Buffer
	KnobRegFile(&b, x)
	out := strings.Join(strings.Fields(b.String()), " ")
	for _, want := range []string{
		"1 exists and is left as it is (reg add answered no)",
		"reg add without /f, its question answered no (echo n |), writes only a value that does not exist yet",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %q in\n%s", want, b.String())
		}
	}
	if strings.Contains(out, "New-ItemProperty") {
		t.Errorf("a batch file's kept value put down to New-ItemProperty:\n%s", b.String())
	}
}

// knob explain FILE.bat --current: a value reg add writes without /f that
// exists and differs is said to change only if reg's question is answered
// yes, in its line and in the count.
func TestKnobRegFileAsked(t *testing.T) {
	now := backend.DWORD(2)
	x := &knob.RegExplanation{File: "t.bat", Batch: true, Keys: 2, Values: 2, Current: true, Changes: 1, Asked: 1,
		Unknown: []knob.RegEntry{
			{Line: 1, Loc: backend.Loc{Backend: backend.BackendRegistry, Path: `HKCU\Software\t`, Name: "a"}, Value: backend.DWORD(1),
				Asks: true, Asked: true, Note: knob.AsksNote, Now: &now},
			{Line: 2, Loc: backend.Loc{Backend: backend.BackendRegistry, Path: `HKCU\Software\t`, Name: "b"}, Value: backend.DWORD(1),
				Asks: true, Note: knob.AsksNote, Now: &backend.Absent},
		}}
	var b bytes.Buffer
	KnobRegFile(&b, x)
	out := b.String()
	for _, want := range []string{
		"on this machine an import would change 1 of them; 0 are already as the file writes them; 1 exists and changes only if reg's question is answered yes (reg without /f)",
		"line 1: a = dword 0x00000001 (1) (now: dword 0x00000002 (2), changed only if reg is answered yes)\n",
		"line 2: b = dword 0x00000001 (1) (now: absent)\n",
		"reg add without /f asks before overwriting a value that exists",
	} {
		if !strings.Contains(strings.Join(strings.Fields(out), " "), strings.Join(strings.Fields(want), " ")) {
			t.Errorf("missing %q in\n%s", want, out)
		}
	}
	if strings.Contains(out, "could not be read") {
		t.Errorf("an asked value counted as unread:\n%s", out)
	}
	for _, l := range strings.Split(out, "\n") {
		if len([]rune(l)) > 80 {
			t.Errorf("line over 80 columns: %q", l)
		}
	}
}
