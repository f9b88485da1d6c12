package knob

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/latlab/latlab/internal/badinput"
	"github.com/latlab/latlab/internal/knob/backend"
	"github.com/latlab/latlab/internal/knob/knobtest"
	"github.com/latlab/latlab/internal/regfile"
)

func explainRegTestdata(t *testing.T, name string) *RegExplanation {
	t.Helper()
	path := filepath.Join("..", "regfile", "testdata", name)
	fh, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	f, err := regfile.Read(fh)
	if err != nil {
		t.Fatal(err)
	}
	return ExplainRegFile(name, f, ExplainOptions{})
}

// Each value of a tweak file goes to the knob that writes it, decoded as
// knob explain decodes it; every other value is listed as unknown.
func TestExplainRegFile(t *testing.T) {
	x := explainRegTestdata(t, "tweaks.reg")
	type row struct {
		line       int
		knob, text string
	}
	var known []row
	for _, e := range x.Known {
		known = append(known, row{e.Line, e.Knob, strings.Join(e.Text, " ")})
	}
	want := []row{
		{8, "network-throttling-index", "off (0xFFFFFFFF): received packets are not throttled"},
		{13, "win32-priority-separation", "0x26 (38): short, variable quanta"},
		{16, "global-timer-resolution-requests", "1: global where the build reads GlobalTimerResolutionRequests=1"},
		{19, "interrupt-moderation", "*InterruptModeration=0: disabled: an interrupt per packet (the network adapter at class index 0007"},
		{20, "rss", "*RSS=1: receive side scaling: 1 on, 0 off (the network adapter at class index 0007"},
		{21, "nic-buffers", "*ReceiveBuffers=2048: 2048 receive buffers"},
	}
	if len(known) != len(want) {
		t.Fatalf("known %+v", known)
	}
	for i, w := range want {
		if known[i].line != w.line || known[i].knob != w.knob || !strings.Contains(known[i].text, w.text) {
			t.Errorf("known %d = %+v, want %+v", i, known[i], w)
		}
	}
	if p := x.Known[1]; !strings.Contains(p.Path, "ControlSet001 read as CurrentControlSet") || p.Loc.Path != `HKLM\SYSTEM\CurrentControlSet\Control\PriorityControl` {
		t.Errorf("ControlSet001: %+v", p)
	}
	var unknown []string
	for _, e := range x.Unknown {
		unknown = append(unknown, e.Loc.Name)
	}
	wantUnknown := []string{"SystemResponsiveness", "TcpAckFrequency", "TCPNoDelay", "TcpAckFrequency", "", "MouseSpeed", "SmoothMouseXCurve"}
	if strings.Join(unknown, ",") != strings.Join(wantUnknown, ",") {
		t.Errorf("unknown %q, want %q", unknown, wantUnknown)
	}
	if d := x.Unknown[4]; !d.KeyDeleted || d.Loc.Path != `HKLM\SOFTWARE\Policies\Microsoft\Windows\Psched` {
		t.Errorf("deleted key %+v", d)
	}
	if x.Keys != 7 || x.Values != 12 || len(x.Notes) != 5 {
		t.Errorf("keys %d values %d notes %q", x.Keys, x.Values, x.Notes)
	}
}

// Deleting a value or a key that holds a knob's value restores the
// knob's default; a value the knob would not write there is refused,
// with the knob's reason.
func TestExplainRegDeletionsAndRefusals(t *testing.T) {
	text := regfile.Header + "\n" +
		`[HKEY_LOCAL_MACHINE\SOFTWARE\Microsoft\Windows NT\CurrentVersion\Multimedia\SystemProfile]` + "\n" +
		`"NetworkThrottlingIndex"=-` + "\n" +
		`[HKEY_LOCAL_MACHINE\SYSTEM\CurrentControlSet\Control\PriorityControl]` + "\n" +
		`"Win32PrioritySeparation"="26"` + "\n" +
		`[-HKEY_LOCAL_MACHINE\SOFTWARE\Microsoft\Windows NT\CurrentVersion\Multimedia]` + "\n" +
		`[HKEY_LOCAL_MACHINE\SOFTWARE\Microsoft\Windows NT\CurrentVersion\Multimedia\SystemProfile]` + "\n" +
		`@=dword:1` + "\n" +
		`[HKEY_LOCAL_MACHINE\SYSTEM\CurrentControlSet\Control\Class\{4d36e972-e325-11ce-bfc1-08002be10318}\0001]` + "\n" +
		`"*RSS"=hex:01` + "\n" +
		`"ITR"="950"` + "\n" +
		`"*RSS"="7"` + "\n" +
		`[HKEY_LOCAL_MACHINE\SYSTEM\CurrentControlSet\Enum\PCI\VEN_10DE&DEV_2204\4&1&0&0008\Device Parameters\Interrupt Management\MessageSignaledInterruptProperties]` + "\n" +
		`"MSISupported"=dword:00000001` + "\n"
	f, err := regfile.Read(strings.NewReader(text))
	if err != nil {
		t.Fatal(err)
	}
	x := ExplainRegFile("t.reg", f, ExplainOptions{})
	if len(x.Known) != 7 || len(x.Unknown) != 1 {
		t.Fatalf("known %+v unknown %+v", x.Known, x.Unknown)
	}
	if e := x.Known[0]; e.Knob != "network-throttling-index" || !e.Value.IsAbsent() || !strings.Contains(e.Text[0], "deleted: the default applies (10 (absent))") {
		t.Errorf("deleted value %+v", e)
	}
	if e := x.Known[1]; e.Knob != "win32-priority-separation" || !strings.Contains(e.Text[0], "a REG_SZ where Windows keeps a REG_DWORD") {
		t.Errorf("REG_SZ where a DWORD goes: %+v", e)
	}
	if e := x.Known[2]; e.Knob != "network-throttling-index" || !e.KeyDeleted || !strings.Contains(e.Text[0], "the key holds the value of network-throttling-index") {
		t.Errorf("deleted parent key %+v", e)
	}
	if e := x.Known[3]; e.Knob != "rss" || e.Refused == "" {
		t.Errorf("binary data where rss writes a number: %+v", e)
	}
	if e := x.Known[4]; e.Knob != "interrupt-moderation" || !strings.HasPrefix(e.Text[0], "ITR 950: Medium 950 on e1r/e1d") {
		t.Errorf("an ITR rate: %+v", e)
	}
	if e := x.Known[5]; e.Knob != "rss" || e.Refused != "*RSS=7 is out of range: accepted 0-1 (receive side scaling: 1 on, 0 off)" || len(e.Text) != 1 {
		t.Errorf("a value the knob's Explain refuses: %+v", e)
	}
	if e := x.Known[6]; e.Knob != "msi-mode" || !strings.HasPrefix(e.Text[0], "MSISupported=1: MSI requested") {
		t.Errorf("MSISupported of a device: %+v", e)
	}
	if e := x.Unknown[0]; e.Loc.Name != "" || e.Knob != "" {
		t.Errorf("default value %+v", e)
	}
}

// FuzzExplainRegFile: whatever a .reg file holds, every value is either
// known or unknown, never lost, and nothing panics.
func FuzzExplainRegFile(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("..", "regfile", "testdata", "*.reg"))
	for _, name := range files {
		b, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte(regfile.Header + "\n[HKEY_LOCAL_MACHINE\\SYSTEM\\CurrentControlSet\\Enum\\PCI\\VEN_1\\3&1\\Device Parameters\\Interrupt Management\\MessageSignaledInterruptProperties]\n\"MSISupported\"=dword:1\n[HKEY_LOCAL_MACHINE\\SOFTWARE\\Policies\\Microsoft\\Windows\\QoS\\game]\n\"DSCP Value\"=\"46\"\n[-HKEY_LOCAL_MACHINE\\SYSTEM\\ControlSet002]\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		rf, err := regfile.Read(strings.NewReader(string(b)))
		if err != nil {
			return
		}
		x := ExplainRegFile("f.reg", rf, ExplainOptions{})
		deleted := 0
		for _, s := range rf.Sections {
			if s.Delete {
				deleted++
			}
		}
		if len(x.Known)+len(x.Unknown) != rf.Values+deleted {
			t.Fatalf("%d known + %d unknown, from %d values and %d deleted keys", len(x.Known), len(x.Unknown), rf.Values, deleted)
		}
	})
}

// --current reads what each location holds now and counts what an import
// would change; nothing is written.
func TestExplainRegFileCurrent(t *testing.T) {
	mem := knobtest.NewMem()
	const sp = `HKLM\SOFTWARE\Microsoft\Windows NT\CurrentVersion\Multimedia\SystemProfile`
	mem.Set(sp, "NetworkThrottlingIndex", backend.DWORD(10))
	mem.Set(sp, "SystemResponsiveness", backend.DWORD(0))
	mem.CreateKey(`HKLM\SOFTWARE\Policies\Microsoft\Windows\Psched`)
	before := mem.Snapshot()
	text := regfile.Header + "\n[" + regfile.LongRoot(sp) + "]\n" +
		`"NetworkThrottlingIndex"=dword:ffffffff` + "\n" + // 10 now: a change
		`"SystemResponsiveness"=dword:00000000` + "\n" + // the same
		`"NoLazyMode"=-` + "\n" + // absent already: the same
		`[-HKEY_LOCAL_MACHINE\SOFTWARE\Policies\Microsoft\Windows\Psched]` + "\n" + // exists: a change
		`[-HKEY_LOCAL_MACHINE\SOFTWARE\Policies\Microsoft\Windows\Gone]` + "\n" // absent already
	f, err := regfile.Read(strings.NewReader(text))
	if err != nil {
		t.Fatal(err)
	}
	env := &Env{Backends: map[string]backend.Backend{backend.BackendRegistry: mem}}
	x, err := RunExplainRegFile(context.Background(), RegFileOptions{Name: "t.reg", File: f, Current: true, Env: env})
	if err != nil {
		t.Fatal(err)
	}
	if !x.Current || x.Changes != 2 || x.Same != 3 {
		t.Errorf("changes %d same %d", x.Changes, x.Same)
	}
	if n := x.Known[0].Now; n == nil || n.String() != "10" {
		t.Errorf("NetworkThrottlingIndex now %v", n)
	}
	if fmt.Sprint(mem.Snapshot()) != fmt.Sprint(before) {
		t.Errorf("the registry changed:\n%v\n%v", before, mem.Snapshot())
	}
	// without a registry to read, --current is refused, not ignored
	if _, err := RunExplainRegFile(context.Background(), RegFileOptions{Name: "t.reg", File: f, Current: true, Env: &Env{}}); !badinput.Is(err) {
		t.Errorf("no registry: %v", err)
	}
}

// A PowerShell script: a value whose type the script fixes is decoded by
// its knob; one Set-ItemProperty writes without -Type is named, with the
// note on its type, and not decoded.
func TestExplainPowerShellFile(t *testing.T) {
	fh, err := os.Open(filepath.Join("..", "regfile", "testdata", "tweaks.ps1"))
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	f, err := regfile.ReadPowerShell(fh)
	if err != nil {
		t.Fatal(err)
	}
	x := ExplainRegFile("tweaks.ps1", f, ExplainOptions{})
	if !x.PowerShell || x.Batch || x.OtherLines != 4 || len(x.Notes) != 4 {
		t.Errorf("powershell %v batch %v other %d notes %q", x.PowerShell, x.Batch, x.OtherLines, x.Notes)
	}
	var known []string
	for _, e := range x.Known {
		known = append(known, fmt.Sprintf("%d %s %s", e.Line, e.Knob, strings.Join(e.Text, " ")))
	}
	want := []string{
		"8 network-throttling-index off (0xFFFFFFFF)",
		"10 win32-priority-separation not decoded: its type is the machine's",
		"11 global-timer-resolution-requests 1: global",
	}
	if len(known) != len(want) {
		t.Fatalf("known %q", known)
	}
	for i, w := range want {
		if !strings.HasPrefix(known[i], w) {
			t.Errorf("known %q, want %q", known[i], w)
		}
	}
	if n := x.Known[1].Note; !strings.Contains(n, "Set-ItemProperty without -Type: PowerShell writes REG_DWORD only if the value does not exist yet") {
		t.Errorf("note %q", n)
	}
	for _, e := range x.Unknown {
		if e.KeyDeleted && e.Line == 15 && !strings.Contains(e.Note, "New-Item -Force deletes the key if it exists") {
			t.Errorf("New-Item -Force: %+v", e)
		}
	}
}

// With --current, the type a script leaves to the machine is read from
// it: the existing value's, the data converted as PowerShell converts
// it, or, where there is none, the data's own.
func TestExplainPowerShellCurrent(t *testing.T) {
	const ps = `HKLM\SYSTEM\CurrentControlSet\Control\PriorityControl`
	for _, c := range []struct {
		now       backend.Value
		script    string
		text, typ string
		note      bool
	}{
		{backend.DWORD(2), `sp HKLM:\SYSTEM\CurrentControlSet\Control\PriorityControl Win32PrioritySeparation 38`, "0x26 (38): short, variable quanta", backend.TypeDWORD, false},
		{backend.DWORD(2), `sp HKLM:\SYSTEM\CurrentControlSet\Control\PriorityControl Win32PrioritySeparation '38'`, "0x26 (38): short, variable quanta", backend.TypeDWORD, false},
		{backend.Absent, `sp HKLM:\SYSTEM\CurrentControlSet\Control\PriorityControl Win32PrioritySeparation 38`, "0x26 (38): short, variable quanta", backend.TypeDWORD, false},
		{backend.Absent, `sp HKLM:\SYSTEM\CurrentControlSet\Control\PriorityControl Win32PrioritySeparation '38'`, "", backend.TypeSZ, false},
		{backend.Value{Type: backend.TypeSZ, Data: backend.UTF16Bytes("2")}, `sp HKLM:\SYSTEM\CurrentControlSet\Control\PriorityControl Win32PrioritySeparation 38`, "", backend.TypeSZ, false},
		{backend.DWORD(2), `sp HKLM:\SYSTEM\CurrentControlSet\Control\PriorityControl Win32PrioritySeparation 'fast'`, "not decoded: its type is the machine's", backend.TypeSZ, true},
	} {
		mem := knobtest.NewMem()
		if !c.now.IsAbsent() {
			mem.Set(ps, "Win32PrioritySeparation", c.now)
		} else {
			mem.CreateKey(ps)
		}
		before := mem.Snapshot()
		f, err := regfile.ReadPowerShell(strings.NewReader(c.script))
		if err != nil {
			t.Fatal(err)
		}
		env := &Env{Backends: map[string]backend.Backend{backend.BackendRegistry: mem}}
		x, err := RunExplainRegFile(context.Background(), RegFileOptions{Name: "t.ps1", File: f, Current: true, Env: env})
		if err != nil {
			t.Fatal(err)
		}
		if len(x.Known) != 1 {
			t.Fatalf("%s: known %+v", c.script, x.Known)
		}
		e := x.Known[0]
		if e.Value.Type != c.typ || (e.Note != "") != c.note || c.text != "" && !strings.Contains(strings.Join(e.Text, " "), c.text) {
			t.Errorf("%s over %v: %s %q note %q", c.script, c.now, e.Value.Type, e.Text, e.Note)
		}
		if fmt.Sprint(mem.Snapshot()) != fmt.Sprint(before) {
			t.Errorf("the registry changed")
		}
		// the file read is not changed by what the machine said
		if f.Sections[0].Values[0].TypeNote == "" {
			t.Errorf("%s: the file's note was cleared", c.script)
		}
	}
}

// New-ItemProperty without -Force writes only a value that does not
// exist: every such entry carries the note, and with --current one whose
// value exists is left as it is, counted as kept, not as a change nor as
// the same; one whose key or value the script deleted on an earlier line
// is written whatever the machine holds now. -Force writes as usual.
func TestExplainPowerShellNewOnlyCurrent(t *testing.T) {
	const (
		ps = `HKLM\SYSTEM\CurrentControlSet\Control\PriorityControl`
		sp = `HKLM\SOFTWARE\Microsoft\Windows NT\CurrentVersion\Multimedia\SystemProfile`
	)
	mem := knobtest.NewMem()
	mem.Set(ps, "Win32PrioritySeparation", backend.DWORD(2))
	mem.CreateKey(sp)
	mem.Set(`HKCU\Software\t`, "a", backend.DWORD(1))
	mem.Set(`HKCU\Software\t`, "c", backend.DWORD(2))
	mem.Set(`HKCU\Software\u\v`, "b", backend.DWORD(5))
	mem.Set(`HKCU\Software\t`, "d", backend.DWORD(5))
	before := mem.Snapshot()
	script := strings.Join([]string{
		`New-ItemProperty HKLM:\SYSTEM\CurrentControlSet\Control\PriorityControl Win32PrioritySeparation -Value 38 -PropertyType DWord`, // 1 kept
		`New-ItemProperty 'HKLM:\SOFTWARE\Microsoft\Windows NT\CurrentVersion\Multimedia\SystemProfile' SystemResponsiveness -Value 10`, // 2 absent: a change
		`New-ItemProperty HKCU:\Software\t a -Value 1`,        // 3 kept, though the same
		`New-ItemProperty HKCU:\Software\t c -Value 1 -Force`, // 4 written: a change
		`Remove-Item HKCU:\Software\u -Recurse`,               // 5 a change
		`New-ItemProperty HKCU:\Software\u\v b -Value 1`,      // 6 its key deleted above: a change
		`Remove-ItemProperty HKCU:\Software\t d`,              // 7 a change
		`New-ItemProperty HKCU:\Software\t d -Value 5`,        // 8 deleted above: the same as now
	}, "\n")
	f, err := regfile.ReadPowerShell(strings.NewReader(script))
	if err != nil {
		t.Fatal(err)
	}
	x := ExplainRegFile("t.ps1", f, ExplainOptions{})
	notes := map[int]bool{}
	for _, list := range [][]RegEntry{x.Known, x.Unknown} {
		for _, e := range list {
			if e.NewOnly != strings.Contains(e.Note, NewOnlyNote) {
				t.Errorf("line %d: new only %v, note %q", e.Line, e.NewOnly, e.Note)
			}
			notes[e.Line] = e.NewOnly
		}
	}
	if fmt.Sprint(notes) != "map[1:true 2:true 3:true 4:false 5:false 6:true 7:false 8:true]" {
		t.Errorf("notes %v", notes)
	}

	env := &Env{Backends: map[string]backend.Backend{backend.BackendRegistry: mem}}
	x, err = RunExplainRegFile(context.Background(), RegFileOptions{Name: "t.ps1", File: f, Current: true, Env: env})
	if err != nil {
		t.Fatal(err)
	}
	if x.Kept != 2 || x.Changes != 5 || x.Same != 1 {
		t.Errorf("kept %d changes %d same %d", x.Kept, x.Changes, x.Same)
	}
	kept := map[int]bool{}
	for _, list := range [][]RegEntry{x.Known, x.Unknown} {
		for _, e := range list {
			if e.Kept {
				kept[e.Line] = true
			}
		}
	}
	if fmt.Sprint(kept) != "map[1:true 3:true]" {
		t.Errorf("kept %v", kept)
	}
	if fmt.Sprint(mem.Snapshot()) != fmt.Sprint(before) {
		t.Errorf("the registry changed")
	}
}

// reg add without /f asks before overwriting a value that exists: every
// such entry carries the note; with --current one whose value exists and
// differs is counted as asked, not as a change; one that is absent, or
// whose value the file deleted on an earlier line, is written without
// asking (a change); one already the same is the same whatever the
// answer. /f writes as usual.
func TestExplainBatchAsksCurrent(t *testing.T) {
	const ps = `HKLM\SYSTEM\CurrentControlSet\Control\PriorityControl`
	mem := knobtest.NewMem()
	mem.Set(ps, "Win32PrioritySeparation", backend.DWORD(2))
	mem.Set(`HKCU\Software\t`, "a", backend.DWORD(1))
	mem.Set(`HKCU\Software\t`, "c", backend.DWORD(2))
	mem.Set(`HKCU\Software\t`, "d", backend.DWORD(5))
	before := mem.Snapshot()
	script := strings.Join([]string{
		`reg add HKLM\SYSTEM\CurrentControlSet\Control\PriorityControl /v Win32PrioritySeparation /t REG_DWORD /d 38`, // 1 asked
		`reg add HKCU\Software\t /v a /t REG_DWORD /d 1`,                                                              // 2 the same
		`reg add HKCU\Software\t /v b /t REG_DWORD /d 1`,                                                              // 3 absent: a change
		`reg add HKCU\Software\t /v c /t REG_DWORD /d 1 /f`,                                                           // 4 /f: a change
		`reg delete HKCU\Software\t /v d /f`,                                                                          // 5 a change
		`reg add HKCU\Software\t /v d /t REG_DWORD /d 1`,                                                              // 6 deleted above: a change
		`reg delete HKCU\Software\t /v a`,                                                                             // 7 exists: asked
		`reg delete HKCU\Software\u`,                                                                                  // 8 absent already: the same
	}, "\r\n")
	f, err := regfile.ReadBatch(strings.NewReader(script))
	if err != nil {
		t.Fatal(err)
	}
	env := &Env{Backends: map[string]backend.Backend{backend.BackendRegistry: mem}}
	x, err := RunExplainRegFile(context.Background(), RegFileOptions{Name: "t.bat", File: f, Current: true, Env: env})
	if err != nil {
		t.Fatal(err)
	}
	notes, asked := map[int]bool{}, map[int]bool{}
	for _, list := range [][]RegEntry{x.Known, x.Unknown} {
		for _, e := range list {
			note := AsksNote
			if e.Value.IsAbsent() {
				note = DeleteAsksNote
			}
			if e.Asks != strings.Contains(e.Note, note) {
				t.Errorf("line %d: asks %v, note %q", e.Line, e.Asks, e.Note)
			}
			notes[e.Line] = e.Asks
			if e.Asked {
				asked[e.Line] = true
			}
		}
	}
	if fmt.Sprint(notes) != "map[1:true 2:true 3:true 4:false 5:false 6:true 7:true 8:true]" {
		t.Errorf("notes %v", notes)
	}
	if fmt.Sprint(asked) != "map[1:true 7:true]" || x.Asked != 2 || x.Changes != 4 || x.Same != 2 {
		t.Errorf("asked %v (%d) changes %d same %d", asked, x.Asked, x.Changes, x.Same)
	}
	if fmt.Sprint(mem.Snapshot()) != fmt.Sprint(before) {
		t.Errorf("the registry changed")
	}
}

// A reg question the script answers: echo y | reg add overwrites, so a
// value that exists and differs is a change, not asked; echo n | reg add
// leaves an existing value as it is (kept, with its note) and writes a
// new one; echo n | reg delete deletes nothing, so it is no entry.
func TestExplainBatchAnsweredCurrent(t *testing.T) {
	mem := knobtest.NewMem()
	mem.Set(`HKCU\Software\t`, "a", backend.DWORD(2))
	mem.Set(`HKCU\Software\t`, "b", backend.DWORD(2))
	mem.Set(`HKCU\Software\t`, "d", backend.DWORD(2))
	before := mem.Snapshot()
	script := strings.Join([]string{
		`echo y | reg add HKCU\Software\t /v a /t REG_DWORD /d 1`, // 1 exists, answered yes: a change
		`echo n | reg add HKCU\Software\t /v b /t REG_DWORD /d 1`, // 2 exists, answered no: kept
		`echo n | reg add HKCU\Software\t /v c /t REG_DWORD /d 1`, // 3 absent: written, a change
		`echo n | reg delete HKCU\Software\t /v d`,                // 4 answered no: nothing
		`echo y | reg delete HKCU\Software\t /v d`,                // 5 answered yes: a change
	}, "\r\n")
	f, err := regfile.ReadBatch(strings.NewReader(script))
	if err != nil {
		t.Fatal(err)
	}
	env := &Env{Backends: map[string]backend.Backend{backend.BackendRegistry: mem}}
	x, err := RunExplainRegFile(context.Background(), RegFileOptions{Name: "t.bat", File: f, Current: true, Env: env})
	if err != nil {
		t.Fatal(err)
	}
	lines := map[int]string{}
	for _, list := range [][]RegEntry{x.Known, x.Unknown} {
		for _, e := range list {
			state := "change"
			switch {
			case e.Asks || e.Asked:
				state = "asks"
			case e.Kept:
				state = "kept"
			}
			if e.NewOnly != strings.Contains(e.Note, AnsweredNoNote) || strings.Contains(e.Note, NewOnlyNote) {
				t.Errorf("line %d: new only %v, note %q", e.Line, e.NewOnly, e.Note)
			}
			lines[e.Line] = state
		}
	}
	if fmt.Sprint(lines) != "map[1:change 2:kept 3:change 5:change]" {
		t.Errorf("entries %v", lines)
	}
	if x.Changes != 3 || x.Kept != 1 || x.Asked != 0 || len(x.Notes) != 1 || !strings.HasPrefix(x.Notes[0], "line 4: reg delete answered no") {
		t.Errorf("changes %d kept %d asked %d notes %q", x.Changes, x.Kept, x.Asked, x.Notes)
	}
	if fmt.Sprint(mem.Snapshot()) != fmt.Sprint(before) {
		t.Errorf("the registry changed")
	}
}

// A batch file's reg add run as SYSTEM (NSudo -U:S) writes HKCU into
// LocalSystem's hive: the entry is read there and says so, once per key.
func TestExplainBatchSystemHKCU(t *testing.T) {
	f, err := regfile.ReadBatch(strings.NewReader("NSudo -U:S -wait cmd /c \"reg add \"HKCU\\Control Panel\\Mouse\" /v MouseSpeed /t REG_SZ /d 0 /f\"\r\n"))
	if err != nil {
		t.Fatal(err)
	}
	x, err := RunExplainRegFile(context.Background(), RegFileOptions{Name: "t.bat", File: f})
	if err != nil {
		t.Fatal(err)
	}
	if len(x.Unknown) != 1 || x.Unknown[0].Loc.Path != `HKU\.DEFAULT\Control Panel\Mouse` ||
		!strings.Contains(x.Unknown[0].Path, `HKCU\Control Panel\Mouse read as HKU\.DEFAULT\Control Panel\Mouse: run as SYSTEM (NSudo -U:S)`) {
		t.Errorf("unknown %+v", x.Unknown)
	}
}
