package knob

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/latlab/latlab/internal/knob/backend"
	"github.com/latlab/latlab/internal/knob/journal"
	"github.com/latlab/latlab/internal/testutil"
)

// The knobs that write an adapter's class key (NetClassKey\NNNN), each
// with a keyword it writes.
var classKeyKnobs = []struct{ knob, keyword string }{
	{"rss", "*NumRssQueues"},
	{"interrupt-moderation", "*InterruptModeration"},
	{"nic-buffers", "*ReceiveBuffers"},
	{"nic-power-saving", "PnPCapabilities"},
}

// The adapters of windowsRegistry, as a plan names them (their DriverDesc).
const (
	i225Name = "Intel(R) Ethernet Controller (3) I225-V"
	rtkName  = "Realtek PCIe GbE Family Controller"
)

// A forged entry that names the keyword of another adapter than its
// target's was restored: the class key's index was never checked against
// the target. Each such entry is refused and its key left alone; the
// legitimate entries beside them are restored.
func TestRevertRefusesAnotherAdaptersKey(t *testing.T) {
	env, reg, _, _ := testEnv(t)
	i225 := NetClassKey + `\0007`
	rtk := NetClassKey + `\0001`
	bare := NetClassKey + `\0003` // a numbered key with no DriverDesc
	reg.CreateKey(bare)
	gone := NetClassKey + `\0009` // an adapter removed since
	// A second I225-V, set by its index: its target is the same name.
	twin := NetClassKey + `\0008`
	reg.Set(twin, "DriverDesc", backend.SZ(i225Name))
	reg.Set(twin, "*NumRssQueues", backend.SZ("4"))

	type forged struct {
		e    journal.Entry
		want string // part of the refusal
	}
	var bad []forged
	for _, c := range classKeyKnobs {
		// New is what the key holds now, so without the check the
		// revert sees latlab's value unchanged and restores.
		now, _ := reg.Read(regLoc(rtk, c.keyword))
		bad = append(bad, forged{journal.Entry{Knob: c.knob, Target: i225Name, Loc: regLoc(rtk, c.keyword), Original: backend.SZ("1"), New: now},
			`0001 is the key of adapter "` + rtkName + `"`})
	}
	bad = append(bad,
		forged{journal.Entry{Knob: "rss", Target: rtkName, Loc: regLoc(i225, "*RSS"), Original: backend.SZ("0"), New: backend.SZ("1")},
			`0007 is the key of adapter "` + i225Name + `"`},
		forged{journal.Entry{Knob: "rss", Target: i225Name, Loc: regLoc(bare, "*RSS"), Original: backend.SZ("1"), New: backend.Absent},
			"0003 has no DriverDesc"},
		forged{journal.Entry{Knob: "interrupt-moderation", Target: i225Name, Loc: regLoc(gone, "ITR"), Original: backend.SZ("0"), New: backend.Absent},
			"0009 no longer exists"},
	)
	good := []journal.Entry{
		{Knob: "rss", Target: i225Name, Loc: regLoc(i225, "*NumRssQueues"), Original: backend.SZ("2"), New: backend.SZ("4")},
		{Knob: "rss", Target: i225Name, Loc: regLoc(twin, "*NumRssQueues"), Original: backend.SZ("1"), New: backend.SZ("4")},
		{Knob: "rss", Target: rtkName, Loc: regLoc(rtk, "*RSSProfile"), Original: backend.Absent, New: backend.SZ("4")},
		// A keyword the revert would delete from a removed adapter:
		// nothing to write, so nothing to refuse.
		{Knob: "nic-buffers", Target: i225Name, Loc: regLoc(gone, "*ReceiveBuffers"), Original: backend.Absent, New: backend.SZ("512")},
	}
	var es []journal.Entry
	for _, f := range bad {
		es = append(es, f.e)
	}
	es = append(es, good...)
	dir := testutil.TempDir(t)
	ForgeForTest(t, dir, es...)

	steps, err := revertJournal(t, env, dir, true)
	var left *LeftAloneError
	if !errors.As(err, &left) || len(left.Refused) != len(bad) {
		t.Fatalf("revert: %v, want %d entries left alone", err, len(bad))
	}
	byID := map[int]Step{}
	for _, s := range steps {
		byID[s.Entry.ID] = s
	}
	for i, f := range bad {
		s := byID[i+1]
		if s.Action != "refused" || !strings.Contains(s.Detail, f.want) || strings.Contains(s.Detail, "\n") {
			t.Errorf("%s %s for %q: %s %q, want refused saying %q", f.e.Knob, f.e.Loc, f.e.Target, s.Action, s.Detail, f.want)
		}
	}
	for i, e := range good {
		if s := byID[len(bad)+i+1]; s.Action == "refused" {
			t.Errorf("%s %s for %q refused: %s", e.Knob, e.Loc, e.Target, s.Detail)
		}
	}

	// The forged entries' places hold what they held; the legitimate
	// ones are restored.
	for _, f := range bad {
		if v, _ := reg.Read(f.e.Loc); !backend.Same(v, f.e.New) {
			t.Errorf("%s = %s after revert, was %s", f.e.Loc, v, f.e.New)
		}
	}
	for _, e := range good {
		if v, _ := reg.Read(e.Loc); !backend.Same(v, e.Original) {
			t.Errorf("%s = %s after revert, want %s restored", e.Loc, v, e.Original)
		}
	}
	if v, _ := reg.Read(regLoc(gone, "")); !v.IsAbsent() {
		t.Errorf("the removed adapter's key was created again")
	}

	// export --undo leaves the refused entries out too.
	j, _ := journal.Read(dir)
	for _, c := range UndoChanges(env, j) {
		for _, f := range bad {
			if c.Loc == f.e.Loc && !strings.Contains(c.Skip, "refused") {
				t.Errorf("undo script writes %s (skip %q)", c.Loc, c.Skip)
			}
		}
	}
}

// Vet takes a keyword only in a class sub-key named as the class
// installer names them, four digits right below the network adapter
// class key: no other class, control set or depth, no way back up.
func TestVetRefusesMalformedAdapterKeys(t *testing.T) {
	env, _, _, _ := testEnv(t)
	const class = `HKLM\SYSTEM\CurrentControlSet\Control\Class\`
	bad := []string{
		NetClassKey + `\7`,
		NetClassKey + `\007`,
		NetClassKey + `\00007`,
		NetClassKey + `\000a`,
		NetClassKey + `\+007`,
		NetClassKey + `\ 007`,
		NetClassKey + `\0x07`,
		NetClassKey + `\0007\`,
		NetClassKey + `\0007\..\0001`,
		NetClassKey + `\..\0001`,
		NetClassKey + `\0007\Ndi`,
		NetClassKey + `\0007\Ndi\Params\*RSS`,
		NetClassKey + `\Properties`,
		NetClassKey + `\\0007`,
		NetClassKey,
		NetClassKey + `0007`,
		class + `{4d36e968-e325-11ce-bfc1-08002be10318}\0000`, // display adapters
		class + `{4d36e96a-e325-11ce-bfc1-08002be10318}\0001`, // storage controllers
		`HKLM\SYSTEM\ControlSet001\Control\Class\{4d36e972-e325-11ce-bfc1-08002be10318}\0007`,
		`HKLM\SYSTEM\CurrentControlSet\Control\Class\{4d36e972-e325-11ce-bfc1-08002be10318}x\0007`,
		`HKLM\SYSTEM\CurrentControlSet\Services\e2fexpress\0007`,
		`HKLM\SYSTEM\CurrentControlSet\Control\Class\..\Class\{4d36e972-e325-11ce-bfc1-08002be10318}\0007`,
		"\u0660\u0660\u0660\u0667", // Arabic-Indic digits
	}
	for _, c := range classKeyKnobs {
		k, _ := Lookup(c.knob)
		for _, path := range bad {
			if !strings.HasPrefix(path, `HKLM`) {
				path = NetClassKey + `\` + path
			}
			l := regLoc(path, c.keyword)
			err := vetChange(env, k, i225Name, l, backend.SZ("1"))
			if err == nil || !strings.Contains(err.Error(), "is not a value "+c.knob+" writes for") {
				t.Errorf("%s takes %s: %v", c.knob, l, err)
			}
		}
		// The same path through another backend.
		l := backend.Loc{Backend: backend.BackendFile, Path: NetClassKey + `\0007`, Name: c.keyword}
		if err := vetChange(env, k, i225Name, l, backend.SZ("1")); err == nil {
			t.Errorf("%s takes %s", c.knob, l)
		}
		// No target: an adapter knob always has one.
		if err := vetChange(env, k, "", regLoc(NetClassKey+`\0007`, c.keyword), backend.SZ("1")); err == nil {
			t.Errorf("%s takes its keyword for no target", c.knob)
		}
		// The target's own key, in any case the registry accepts.
		for _, path := range []string{NetClassKey + `\0007`, strings.ToUpper(NetClassKey) + `\0007`} {
			if err := vetChange(env, k, i225Name, regLoc(path, c.keyword), backend.SZ("1")); err != nil {
				t.Errorf("%s refuses its target's %s: %v", c.knob, path, err)
			}
		}
	}
}

// msi-mode's Vet took MSISupported below any device instance: a forged
// entry could turn MSI off on the graphics card, or on another adapter.
// Only the target adapter's device, as Plan finds it (its class key's
// DeviceInstanceID, else the instance whose Driver names the class key),
// is restored.
func TestRevertRefusesAnotherDevicesMSI(t *testing.T) {
	const gpu = `PCI\VEN_10DE&DEV_2484&SUBSYS_146B10DE&REV_A1\4&2B4C6D8E&0&0008`
	const gone = `PCI\VEN_8086&DEV_1533&SUBSYS_00008086&REV_03\6&99999999&0&00E4`
	msi := func(inst string) string { return EnumKey + `\` + inst + `\` + msiSubkey }
	for _, withID := range []bool{true, false} {
		env, reg, _, _ := testEnv(t)
		benchAdapter(reg, withID)
		reg.Set(EnumKey+`\`+gpu, "Driver", backend.SZ(`{4d36e968-e325-11ce-bfc1-08002be10318}\0000`))
		reg.Set(msi(gpu), "MSISupported", backend.DWORD(1))
		before := reg.Snapshot()
		dir := testutil.TempDir(t)
		applySteps(t, env, dir, []setStep{{"msi-mode", Selector{Adapter: "7"}, "on"}})
		bad := []struct {
			e    journal.Entry
			want string
		}{
			{journal.Entry{Knob: "msi-mode", Target: i225Name, Loc: regLoc(msi(gpu), "MSISupported"), Original: backend.DWORD(0), New: backend.DWORD(1)},
				`device ` + gpu + ` is not that adapter's (` + i225Instance + `)`},
			{journal.Entry{Knob: "msi-mode", Target: i225Name, Loc: regLoc(EnumKey+`\`+gpu+`\Device Parameters\Interrupt Management`, ""), Original: backend.KeyValue, New: backend.Absent},
				`device ` + gpu + ` is not that adapter's`},
			{journal.Entry{Knob: "msi-mode", Target: rtkName, Loc: regLoc(msi(i225Instance), "MSISupported"), Original: backend.DWORD(0), New: backend.DWORD(1)},
				"is not that adapter's (it has none)"},
			{journal.Entry{Knob: "msi-mode", Target: "Intel", Loc: regLoc(msi(i225Instance), "MSISupported"), Original: backend.DWORD(0), New: backend.DWORD(1)},
				"no network adapter has that DriverDesc now"},
			{journal.Entry{Knob: "msi-mode", Target: i225Name, Loc: regLoc(EnumKey+`\`+gone+`\Device Parameters`, ""), Original: backend.KeyValue, New: backend.Absent},
				gone + " no longer exists"},
		}
		var es []journal.Entry
		for _, b := range bad {
			es = append(es, b.e)
		}
		ForgeForTest(t, dir, es...)
		j, err := journal.Open(dir)
		if err != nil {
			t.Fatal(err)
		}
		first := len(j.Entries) - len(bad) + 1
		steps, err := Revert(env, j, MatchAll, true)
		j.Close()
		var left *LeftAloneError
		if !errors.As(err, &left) || len(left.Refused) != len(bad) {
			t.Fatalf("withID=%v: revert: %v, want %d entries left alone", withID, err, len(bad))
		}
		for _, s := range steps {
			i := s.Entry.ID - first
			if i < 0 {
				if s.Action == "refused" {
					t.Errorf("withID=%v: the applied %s refused: %s", withID, s.Entry.Loc, s.Detail)
				}
				continue
			}
			if s.Action != "refused" || !strings.Contains(s.Detail, bad[i].want) {
				t.Errorf("withID=%v: %s for %q: %s %q, want refused saying %q", withID, s.Entry.Loc, s.Entry.Target, s.Action, s.Detail, bad[i].want)
			}
		}
		// The applied change is undone, and nothing forged was written.
		if d := mapDiff(before, reg.Snapshot()); d != "" {
			t.Errorf("withID=%v: after revert: %s", withID, d)
		}
	}
}

// Every knob that takes --adapter names its target by DriverDesc, which
// only the registry ties to a key: each must check that there.
func TestAdapterKnobsVetLive(t *testing.T) {
	n := 0
	for _, k := range All() {
		if !slices.Contains(SelectorsOf(k), SelAdapter) {
			continue
		}
		n++
		if _, ok := k.(liveVetter); !ok {
			t.Errorf("%s selects an adapter but has no VetLive", k.Name())
		}
	}
	if n != len(classKeyKnobs)+1 { // and msi-mode
		t.Errorf("%d knobs select an adapter, the tests here know %d", n, len(classKeyKnobs)+1)
	}
}
