package regfile

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/latlab/latlab/internal/badinput"
	"github.com/latlab/latlab/internal/knob/backend"
)

// The reg commands of a batch file become sections; what the script
// only knows when it runs is skipped with a note; other lines are
// counted.
func TestReadBatch(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("testdata", "tweaks.bat"))
	if err != nil {
		t.Fatal(err)
	}
	f, err := ReadBatch(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	type row struct {
		line   int
		path   string
		name   string
		del    bool
		typ    uint32
		data   []byte
		keyDel bool
	}
	var got []row
	for _, s := range f.Sections {
		if s.Delete {
			got = append(got, row{line: s.Line, path: s.Path, keyDel: true})
			continue
		}
		for _, v := range s.Values {
			name := v.Name
			if v.Default {
				name = "@"
			}
			got = append(got, row{v.Line, s.Path, name, v.Delete, v.Type, v.Data, false})
		}
	}
	const sp = `HKLM\SOFTWARE\Microsoft\Windows NT\CurrentVersion\Multimedia\SystemProfile`
	const x = `HKLM\SOFTWARE\latlab-test`
	dw := func(n uint32) []byte { return binary.LittleEndian.AppendUint32(nil, n) }
	want := []row{
		{4, sp, "NetworkThrottlingIndex", false, 4, dw(0xFFFFFFFF), false},
		{5, sp, "SystemResponsiveness", false, 4, dw(0), false},
		{6, `HKLM\SYSTEM\CurrentControlSet\Control\PriorityControl`, "Win32PrioritySeparation", false, 4, dw(0x26), false},
		{7, `HKCU\Console`, "QuickEdit", false, 4, dw(0), false},
		{8, `HKLM\SYSTEM\CurrentControlSet\Control\Session Manager\kernel`, "GlobalTimerResolutionRequests", false, 4, dw(1), false},
		{10, sp, "NetworkThrottlingIndex", true, 0, nil, false},
		{11, `HKLM\SOFTWARE\Policies\Microsoft\Windows\Psched`, "", false, 0, nil, true},
		{12, `HKCU\Control Panel\Desktop`, "MenuShowDelay", false, 1, backend.UTF16Bytes("0"), false},
		{13, x, "Multi", false, 7, append(append(backend.UTF16Bytes("a"), backend.UTF16Bytes("b")...), 0, 0), false},
		{14, x, "Bin", false, 3, []byte{1, 2, 0xff}, false},
		{15, x, "Q", false, 11, binary.LittleEndian.AppendUint64(nil, 1), false},
		{16, x, "@", false, 1, backend.UTF16Bytes(`default "quoted"`), false},
		{18, x, "Caret", false, 1, backend.UTF16Bytes("a&b"), false},
	}
	if len(got) != len(want) {
		t.Fatalf("got %d entries:\n%+v", len(got), got)
	}
	for i, w := range want {
		g := got[i]
		if g.line != w.line || g.path != w.path || g.name != w.name || g.del != w.del || g.keyDel != w.keyDel || g.typ != w.typ || !bytes.Equal(g.data, w.data) {
			t.Errorf("entry %d = %+v, want %+v", i, g, w)
		}
	}
	wantNotes := []string{
		"line 9: the key holds a batch variable, known only when the script runs",
		`line 17: REG_DWORD data "notanumber" is not a 32-bit number`,
	}
	if len(f.Notes) != len(wantNotes) {
		t.Fatalf("notes %q", f.Notes)
	}
	for i, w := range wantNotes {
		if !strings.HasPrefix(f.Notes[i], w) {
			t.Errorf("note %q, want %q", f.Notes[i], w)
		}
	}
	// @echo off, two comments, bcdedit, netsh
	if !f.Batch || f.Other != 5 || f.Values != 12 {
		t.Errorf("batch %v other %d values %d", f.Batch, f.Other, f.Values)
	}
}

// Commented-out and echoed reg commands are not read.
func TestReadBatchComments(t *testing.T) {
	f, err := ReadBatch(strings.NewReader(":: reg add HKLM\\A /v x /d 1 /f\r\n@REM reg add HKLM\\B /v x /d 1\r\n" +
		"  rem reg delete HKLM\\C /f\r\necho reg add HKLM\\D /v x /d 1\r\necho.\r\n" +
		"remark.exe & reg add HKLM\\E /v x /d 1 /f\r\n"))
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Sections) != 1 || f.Sections[0].Path != `HKLM\E` || f.Other != 5 {
		t.Errorf("sections %+v, other lines %d", f.Sections, f.Other)
	}
}

// cmd.exe runs a batch file whose echo and comment lines hold control
// characters (a bell, the OEM code page's arrows 0x10 and 0x19, as
// Melih0122/Toolbox's batch files do): its reg commands are read. Bytes
// with a NUL that hold no reg command are still no batch file; a batch
// file of echo lines alone is read, holding nothing.
func TestReadBatchControls(t *testing.T) {
	f, err := ReadBatch(strings.NewReader("@echo off\r\necho \x07\r\n::  \x10 https://example.org\r\n" +
		"echo    %ESC%[7m\x19 TWEAKS \x19%ESC%[0m\r\n" +
		"reg add \"HKLM\\SYSTEM\\CurrentControlSet\\Control\\PriorityControl\" /v \"Win32PrioritySeparation\" /t REG_DWORD /d 38 /f >nul\r\n"))
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Sections) != 1 || f.Values != 1 || f.Other != 4 || !bytes.Equal(f.Sections[0].Values[0].Data, []byte{38, 0, 0, 0}) {
		t.Errorf("sections %+v, other lines %d", f.Sections, f.Other)
	}
	_, err = ReadBatch(strings.NewReader("MZ\x90\x00\x03\x00\x00\x00\x04\x00\r\necho \x07\r\n"))
	var bad *badinput.Error
	if err == nil || !errors.As(err, &bad) || !strings.Contains(err.Error(), "line 1: not text (a NUL byte)") {
		t.Errorf("binary: %v", err)
	}
	f, err = ReadBatch(strings.NewReader("@echo off\r\necho \x07\r\n"))
	if err != nil || len(f.Sections) != 0 || f.Other != 2 {
		t.Errorf("echo lines: %+v, %v", f, err)
	}
}

// A reg command that set stores in a variable is not run by that line:
// it is listed, not read (Atlas-OS's Enable Search Indexing.cmd stores
// "set regCmd=^>nul reg add ... /d " and runs %regCmd% "0" /f).
func TestReadBatchSet(t *testing.T) {
	f, err := ReadBatch(strings.NewReader("set regCmd=^>nul reg add \"HKLM\\Software\\X\" /v \"A\" /t REG_DWORD /d \r\n" +
		"%regCmd% \"0\" /f\r\nset \"r=reg delete HKLM\\Y /f\" & reg add HKLM\\Z /v b /d 1 /f\r\n"))
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Sections) != 1 || f.Sections[0].Path != `HKLM\Z` || f.Other != 1 || len(f.Notes) != 1 ||
		!strings.HasPrefix(f.Notes[0], `line 1: reg add stored in a batch variable by set ("set regCmd=^>nul reg add`) {
		t.Errorf("sections %+v, other lines %d, notes %q", f.Sections, f.Other, f.Notes)
	}
}

// A reg command within cmd.exe's ( ) blocks is read, the block's )
// not taken into its last word (Atlas-OS's Enable Microsoft Copilot.cmd:
// "if %errorlevel%==0 (call :app) else (reg add ... /f > nul)"); a )
// outside a block is a character of its word.
func TestReadBatchBlocks(t *testing.T) {
	f, err := ReadBatch(strings.NewReader(
		"if %errorlevel%==0 (call :app) else (reg add \"HKCU\\A\" /v \"B\" /t REG_DWORD /d \"1\" /f > nul)\r\n" + // 1
			"if exist x (reg add HKCU\\C /v D /d 1 /f)\r\n" + // 2
			"if \"%1\"==\"\" (\r\n  reg add HKCU\\E /v F /d 1 /f\r\n) else (\r\n  reg delete HKCU\\E /v F /f)\r\n" + // 3-6
			"for %%k in (G H) do (reg add HKCU\\%%k /v I /d 1 /f)\r\n" + // 7
			"(reg add HKCU\\J /v K /d 1 /f) & reg add HKCU\\L /v M /d x) /f\r\n")) // 8
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, s := range f.Sections {
		for _, v := range s.Values {
			got = append(got, fmt.Sprintf("%d %s\\%s=%q", s.Line, s.Path, v.Name, strings.TrimRight(string(v.Data), "\x00")))
		}
	}
	want := []string{`1 HKCU\A\B="\x01"`, `2 HKCU\C\D="1"`, `4 HKCU\E\F="1"`, `6 HKCU\E\F=""`,
		`8 HKCU\J\K="1"`, `8 HKCU\L\M="x\x00)"`}
	if strings.Join(got, "; ") != strings.Join(want, "; ") || len(f.Notes) != 1 || !strings.HasPrefix(f.Notes[0], "line 7: the key holds a batch variable") {
		t.Errorf("values %q, notes %q", got, f.Notes)
	}
}

// A redirection before the command is cmd.exe's too (AveYo/fox's
// ChrEdgeFkOff.cmd: ">nul reg add hkcu\software\classes\.Admin\...").
func TestReadBatchRedirectFirst(t *testing.T) {
	f, err := ReadBatch(strings.NewReader(">nul reg add HKCU\\X /v a /d 1 /f\r\n2>nul reg add HKCU\\Y /v b /d 2 /f\r\n" +
		">nul 2>&1 reg delete HKCU\\Z /v c /f\r\n"))
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Sections) != 3 || f.Sections[0].Path != `HKCU\X` || f.Sections[1].Path != `HKCU\Y` ||
		f.Sections[2].Path != `HKCU\Z` || !f.Sections[2].Values[0].Delete || len(f.Notes) != 0 {
		t.Errorf("sections %+v, notes %q", f.Sections, f.Notes)
	}
}

// cmd /c "..." behind a launcher runs its command as cmd /c alone does
// (auraside/HoneCtrl's HoneCtrl.bat: NSudo -U:S -ShowWindowMode:Hide
// -wait cmd /c "Reg add "HKLM\...\TrustedInstaller" /v "Start" ... /f").
func TestReadBatchLauncherCmd(t *testing.T) {
	f, err := ReadBatch(strings.NewReader("\tNSudo -U:S -ShowWindowMode:Hide -wait cmd /c \"Reg add \"HKLM\\SYSTEM\\CurrentControlSet\\Services\\TrustedInstaller\" /v \"Start\" /t Reg_DWORD /d \"3\" /f\"\r\n" +
		"PowerRun.exe cmd.exe /d /c \"reg delete HKCU\\X /v a /f\"\r\nNSudo -U:S -wait cmd /c \"sc start \"TrustedInstaller\"\r\n"))
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Sections) != 2 || f.Sections[0].Path != `HKLM\SYSTEM\CurrentControlSet\Services\TrustedInstaller` ||
		!bytes.Equal(f.Sections[0].Values[0].Data, []byte{3, 0, 0, 0}) || f.Sections[1].Path != `HKCU\X` || f.Other != 1 || len(f.Notes) != 0 {
		t.Errorf("sections %+v, other %d, notes %q", f.Sections, f.Other, f.Notes)
	}
}

// A reg command that a launcher runs as SYSTEM writes HKCU into the
// LocalSystem account's hive, HKU\.DEFAULT ("The registry key
// HKEY_CURRENT_USER is associated with the default user, not the current
// user", Microsoft's "LocalSystem Account"): NSudo -U:S or -U:T (any
// case, / for -), PsExec -s, directly or through cmd /c. Other launchers
// and NSudo -U:C leave HKCU the user's.
func TestReadBatchSystemLauncherHKCU(t *testing.T) {
	for _, c := range []struct {
		line, path string
		note       bool
	}{
		{`NSudo -U:S -ShowWindowMode:Hide -wait cmd /c "reg add "HKCU\Control Panel\Mouse" /v MouseSpeed /t REG_SZ /d 0 /f"`, `HKU\.DEFAULT\Control Panel\Mouse`, true},
		{`C:\Tools\NSudoLG.exe /u:t reg add HKCU\X /v a /t REG_DWORD /d 1 /f`, `HKU\.DEFAULT\X`, true},
		{`psexec64 -accepteula -s -i reg add HKEY_CURRENT_USER\X /v a /t REG_DWORD /d 1 /f`, `HKU\.DEFAULT\X`, true},
		{`NSudo -U:C reg add HKCU\X /v a /t REG_DWORD /d 1 /f`, `HKCU\X`, false},
		{`NSudo -U:S reg add HKLM\X /v a /t REG_DWORD /d 1 /f`, `HKLM\X`, false},
		{`PowerRun.exe reg add HKCU\X /v a /t REG_DWORD /d 1 /f`, `HKCU\X`, false},
		{`reg add HKCU\X /v a /t REG_DWORD /d 1 /f`, `HKCU\X`, false},
	} {
		f, err := ReadBatch(strings.NewReader(c.line + "\r\n"))
		if err != nil {
			t.Fatalf("%s: %v", c.line, err)
		}
		if len(f.Sections) != 1 || f.Sections[0].Path != c.path || len(f.Sections[0].Values) != 1 {
			t.Errorf("%s: sections %+v, want one of %s", c.line, f.Sections, c.path)
			continue
		}
		pn := f.Sections[0].PathNote
		if noted := strings.Contains(pn, "run as SYSTEM") && strings.Contains(pn, ` read as HKU\.DEFAULT`); noted != c.note || (!c.note && pn != "") || len(f.Notes) != 0 {
			t.Errorf("%s: path note %q, notes %q; want a SYSTEM note: %v", c.line, pn, f.Notes, c.note)
		}
	}
}

func TestArgv(t *testing.T) {
	for in, want := range map[string]string{
		`reg add "a b" /v x`:     `reg|add|a b|/v|x`,
		`a\\"b c"`:               `a\b c`,
		`a\"b`:                   `a"b`,
		`a\\\"b`:                 `a\"b`,
		`C:\dir\ x`:              `C:\dir\|x`,
		`reg add k /f >nul`:      `reg|add|k|/f`,
		`reg add k /f 2>nul`:     `reg|add|k|/f`,
		`>nul reg add k /f`:      `reg|add|k|/f`,
		`2>nul reg add k /f`:     `reg|add|k|/f`,
		`>"a b" reg add k`:       `reg|add|k`,
		`reg>>log add k 2>&1 /f`: `reg|add|k|/f`,
		`reg add k <y.txt /f`:    `reg|add|k|/f`,
		`reg add k /d "a>b" /f`:  `reg|add|k|/d|a>b|/f`,
		`reg add k /d x^>y`:      `reg|add|k|/d|x>y`,
		`  reg   add	k  `:        `reg|add|k`,
		`reg add k /d ""`:        `reg|add|k|/d|`,
	} {
		if got := strings.Join(argv(in), "|"); got != want {
			t.Errorf("argv(%q) = %q, want %q", in, got, want)
		}
	}
}

// REG_DWORD and REG_QWORD data is decimal, or hex after 0x or 0X; a
// leading 0 is no octal; REG_BINARY data may have an odd count of digits
// (Wine's reg tests, which pass on Windows: /D 0123 writes 123, 0X123
// writes 0x123).
func TestRegArgsNumbers(t *testing.T) {
	for cmd, want := range map[string][]byte{
		`reg add HKLM\X /v a /t REG_DWORD /D 0123 /f`:         {123, 0, 0, 0},
		`reg add HKLM\X /v a /t REG_DWORD /d 04040098 /f`:     binary.LittleEndian.AppendUint32(nil, 4040098),
		`reg add HKLM\X /v a /t REG_DWORD /d 0X123 /f`:        {0x23, 0x01, 0, 0},
		`reg add HKLM\X /v a /t REG_DWORD /d "0xffffffff" /f`: {0xff, 0xff, 0xff, 0xff},
		`reg add HKLM\X /v a /t REG_QWORD /d 010 /f`:          {10, 0, 0, 0, 0, 0, 0, 0},
		`reg add HKLM\X /v a /t REG_DWORD /d "00000000" /f`:   {0, 0, 0, 0},
		// an odd count of hex digits takes a 0 before the first
		// (/d DeAdBeEf0DD writes 0d ea db ee f0 dd)
		`reg add HKLM\X /v a /t REG_BINARY /d DeAdBeEf0DD /f`: {0x0d, 0xea, 0xdb, 0xee, 0xf0, 0xdd},
		`reg add HKLM\X /v a /t REG_NONE /d 123 /f`:           {0x01, 0x23},
	} {
		args := argv(cmd)
		s, err := regArgs(args[regCommand(args):], hasVariable)
		if err != nil || len(s.Values) != 1 || !bytes.Equal(s.Values[0].Data, want) {
			t.Errorf("%s: %+v, %v, want % x", cmd, s.Values, err, want)
		}
	}
}

func TestRegArgsRefuses(t *testing.T) {
	for _, c := range []struct{ cmd, want string }{
		{`reg add`, "reg add without a key"},
		{`reg add \\host\HKLM\X /v a /d 1`, "a key on another machine"},
		{`reg add HKXX\X /v a`, `key "HKXX\\X" is under no registry root`},
		{`reg add HKLM\X /v`, "/v without its value"},
		{`reg add HKLM\X /v a /q`, `"/q" is not an argument of reg add`},
		{`reg add HKLM\X /v a /t REG_LINK /d x`, `type "REG_LINK" is none of`},
		{`reg add HKLM\X /v a /t REG_BINARY /d xyz`, `REG_BINARY data "xyz" is not hex digits`},
		{`reg add HKLM\X /v a /t REG_BINARY /d 0xDeAdBeEf`, `REG_BINARY data "0xDeAdBeEf" is not hex digits`},
		{`reg add HKLM\X /v a /d %VAL%`, "the data holds a batch variable"},
		{`reg add "!key!" /v a /d 1`, "the key holds a batch variable"},
		{`reg add HKU\%~1\X /v a /d 1`, "the key holds a batch variable"},
		{`reg delete HKLM\X /va /f`, "reg delete /va deletes every value"},
		// reg.exe reads decimal, or hex after 0x (Wine's reg tests,
		// which pass on Windows): neither Go's octal, binary nor
		// underscores
		{`reg add HKLM\X /v a /t REG_DWORD /d 00x123`, `REG_DWORD data "00x123" is not a 32-bit number`},
		{`reg add HKLM\X /v a /t REG_DWORD /d 0b101`, `REG_DWORD data "0b101" is not a 32-bit number`},
		{`reg add HKLM\X /v a /t REG_DWORD /d 1_000`, `REG_DWORD data "1_000" is not a 32-bit number`},
		{`reg add HKLM\X /v a /t REG_DWORD /d 0x1ffffffff`, `REG_DWORD data "0x1ffffffff" is not a 32-bit number`},
		{`reg add HKLM\X /v a /t REG_DWORD /d -1`, `REG_DWORD data "-1" is not a 32-bit number`},
	} {
		args := argv(c.cmd)
		_, err := regArgs(args[regCommand(args):], hasVariable)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.cmd, err, c.want)
		}
	}
}

// FuzzReadBatch: any input is read or refused, never a panic.
func FuzzReadBatch(f *testing.F) {
	b, err := os.ReadFile(filepath.Join("testdata", "tweaks.bat"))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(b)
	f.Add([]byte(`reg add "HKLM\X" /v "a\\\"" /t REG_MULTI_SZ /s , /d "a,b,,c" /f & reg delete HKCU\Y /ve`))
	f.Add([]byte("echo y | reg add HKCU\\A /v b /d 1\r\ncmd /d /c \"echo n | cmd /c \"reg delete \"HKCU\\B C\" /v d\"\" ^| x\r\n"))
	f.Add([]byte("echo y | cmd /k \"set /p a=? & reg add HKCU\\A /v b /d 1 && netsh x | reg delete HKCU\\C /f\"\r\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		got, err := ReadBatch(bytes.NewReader(b))
		if err != nil {
			return
		}
		n := 0
		for _, s := range got.Sections {
			n += len(s.Values)
		}
		if n != got.Values {
			t.Fatalf("%d values in sections, Values %d", n, got.Values)
		}
	})
}

// reg add without /f asks before overwriting a value that exists, and reg
// delete without /f before deleting one: the value is marked Asks, in a
// batch file and run from PowerShell alike; with /f (in any case,
// anywhere among the arguments) it is not.
func TestRegAddAsks(t *testing.T) {
	for _, c := range []struct {
		script string
		ps     bool
		want   bool
	}{
		{`reg add HKCU\X /v a /t REG_DWORD /d 1`, false, true},
		{`reg add HKCU\X /v a /t REG_DWORD /d 1 /f`, false, false},
		{`reg add HKCU\X /f /v a /t REG_DWORD /d 1`, false, false},
		{`REG ADD HKCU\X /V a /D 1 /F`, false, false},
		{`reg add HKCU\X /ve /d x`, false, true},
		{`reg add HKCU\X /v a /d 1 /reg:64`, false, true},
		{`reg add HKCU\X /v a /d 1 /f >nul 2>&1`, false, false},
		{`reg add HKCU\X /v a /d 1 >nul 2>&1`, false, true},
		{`reg delete HKCU\X /v a`, false, true},
		{`reg delete HKCU\X /v a /f`, false, false},
		{`reg delete HKCU\X /ve`, false, true},
		{`reg add HKCU\X /v a /t REG_DWORD /d 1`, true, true},
		{`reg.exe add 'HKCU\X' /v a /t REG_DWORD /d 1 /f`, true, false},
		{`Set-ItemProperty HKCU:\X a 1 -Type DWord`, true, false},
	} {
		read := ReadBatch
		if c.ps {
			read = ReadPowerShell
		}
		f, err := read(strings.NewReader(c.script))
		if err != nil || len(f.Sections) != 1 || len(f.Sections[0].Values) != 1 {
			t.Fatalf("%s: %v %+v", c.script, err, f)
		}
		if got := f.Sections[0].Values[0].Asks; got != c.want {
			t.Errorf("%s: Asks %v, want %v", c.script, got, c.want)
		}
	}
}

// reg delete of a key without /f asks too: the key's deletion is marked
// Asks, and with /f it is not.
func TestRegDeleteKeyAsks(t *testing.T) {
	for _, c := range []struct {
		script string
		want   bool
	}{
		{`reg delete HKCU\X`, true},
		{`reg delete HKCU\X /f`, false},
		{`REG DELETE "HKCU\X Y" /F`, false},
	} {
		f, err := ReadBatch(strings.NewReader(c.script))
		if err != nil || len(f.Sections) != 1 || !f.Sections[0].Delete {
			t.Fatalf("%s: %v %+v", c.script, err, f)
		}
		if got := f.Sections[0].Asks; got != c.want {
			t.Errorf("%s: Asks %v, want %v", c.script, got, c.want)
		}
	}
}

// A y or yes piped into reg (echo y | reg add ...) answers its question:
// the change happens as with /f. An n or no leaves an existing value as
// it is (reg add writes only a new one) and makes reg delete delete
// nothing. Any other input, or a command that does not pipe into reg,
// leaves the question open.
func TestRegAnswered(t *testing.T) {
	const (
		asks    = "asks"
		yes     = "yes"     // written as with /f
		newOnly = "newonly" // an existing value stays
		none    = "none"    // nothing changes: no section, a note
	)
	for _, c := range []struct{ script, want string }{
		{`echo y | reg add HKCU\X /v a /t REG_DWORD /d 1`, yes},
		{`echo Y|reg add HKCU\X /v a /d 1`, yes},
		{`@echo yes | REG ADD HKCU\X /ve /d x`, yes},
		{`echo YES| reg delete HKCU\X /v a`, yes},
		{"echo y\t| reg add HKCU\\X /v a /d 1 | find \"x\"", yes},
		{`reg add HKCU\X /v b /d 1 & echo y | reg add HKCU\X /v a /d 1`, yes},
		{`echo n | reg add HKCU\X /v a /t REG_DWORD /d 1`, newOnly},
		{`echo No | reg add HKCU\X /v a /d 1`, newOnly},
		{`echo n | reg delete HKCU\X /v a`, none},
		{`echo no | reg delete "HKCU\X Y"`, none},
		// /f asks nothing: the answer is not read
		{`echo n | reg add HKCU\X /v a /d 1 /f`, yes},
		{`echo n | reg delete HKCU\X /v a /f`, yes},
		// through cmd /c, on either side of the pipe
		{`cmd /c echo y | reg add HKCU\X /v a /d 1`, yes},
		{`echo y | cmd /c reg add HKCU\X /v a /d 1`, yes},
		{`echo y | C:\Windows\System32\cmd.exe /d /C reg.exe add HKCU\X /v a /d 1`, yes},
		{`CMD.EXE /Q /c echo n | cmd /c reg add HKCU\X /v a /d 1`, newOnly},
		{`cmd /c echo n | reg delete HKCU\X`, none},
		// cmd /c "...": the line it runs, its quotes stripped
		{`cmd /c "echo y | reg add HKCU\X /v a /d 1"`, yes},
		{`cmd /c "echo y| reg add "HKCU\X" /v a /d 1"`, yes},
		{`cmd.exe /s /c "echo n | reg add HKCU\X /v a /d 1"`, newOnly},
		{`cmd /c "echo n | reg delete HKCU\X /v a"`, none},
		{`echo y | cmd /c "reg add HKCU\X /v a /d 1"`, yes},
		{`cmd /c "echo y" | reg add HKCU\X /v a /d 1`, yes},
		{`cmd /c "cmd /c "echo n"" | reg add HKCU\X /v a /d 1`, newOnly},
		{`cmd /c "echo y & echo n" | reg add HKCU\X /v a /d 1`, asks},
		// no answer latlab reads
		{`echo 1 | reg add HKCU\X /v a /d 1`, asks},
		{`echo "y" | reg add HKCU\X /v a /d 1`, asks},
		{`echo yy | reg add HKCU\X /v a /d 1`, asks},
		{`echo. | reg add HKCU\X /v a /d 1`, asks},
		{`type answers.txt | reg add HKCU\X /v a /d 1`, asks},
		{`echo y & reg add HKCU\X /v a /d 1`, asks},
		{`echo y && reg add HKCU\X /v a /d 1`, asks},
		{`echo y || reg add HKCU\X /v a /d 1`, asks},
		{`echo y | PowerRun.exe /SW:0 reg add HKCU\X /v a /d 1`, asks},
		{`echo y | cmd /k reg add HKCU\X /v a /d 1`, yes},
		{`echo y | cmd /k "reg add HKCU\X /v a /d 1"`, yes},
		{`cmd /k "echo n" | reg add HKCU\X /v a /d 1`, newOnly},
		{`echo n | reg delete HKCU\X /va`, ""}, // refused as before
	} {
		f, err := ReadBatch(strings.NewReader(c.script))
		if err != nil {
			t.Fatalf("%s: %v", c.script, err)
		}
		if c.want == "" {
			if len(f.Sections) != 0 || len(f.Notes) != 1 || !strings.Contains(f.Notes[0], "/va deletes every value") {
				t.Errorf("%s: sections %+v notes %q", c.script, f.Sections, f.Notes)
			}
			continue
		}
		if c.want == none {
			if len(f.Sections) != 0 || len(f.Notes) != 1 || !strings.Contains(f.Notes[0], "line 1: reg delete answered no (") ||
				!strings.HasSuffix(f.Notes[0], "): nothing is deleted") {
				t.Errorf("%s: sections %+v notes %q, want none and a note", c.script, f.Sections, f.Notes)
			}
			continue
		}
		s := f.Sections[len(f.Sections)-1]
		if len(f.Notes) != 0 {
			t.Errorf("%s: notes %q", c.script, f.Notes)
		}
		got := yes
		if s.Asks {
			got = asks
		}
		for _, v := range s.Values {
			switch {
			case v.Asks:
				got = asks
			case v.NewOnly && v.AnsweredNo:
				got = newOnly
			case v.NewOnly || v.AnsweredNo:
				got = "inconsistent"
			}
		}
		if got != c.want {
			t.Errorf("%s: %s, want %s (%+v)", c.script, got, c.want, s)
		}
	}
}

// The pipe is seen only outside quotes and carets: an escaped one is
// echoed, and an echo runs nothing.
func TestSplitCommandsPiped(t *testing.T) {
	for in, want := range map[string]string{
		`echo y | reg add k`:      `echo y >| reg add k`,
		`echo y|reg add k`:        `echo y>|reg add k`,
		`a & b | c && d || e`:     `a > b >| c > d > e`,
		`echo y ^| reg add k`:     `echo y ^| reg add k`,
		`reg add k /d "a|b" | x`:  `reg add k /d "a|b" >| x`,
		`a |`:                     `a >|`,
		`reg add k >nul 2>&1 & b`: `reg add k >nul 2>&1 > b`,
		`>nul 2>&1 reg add k`:     `>nul 2>&1 reg add k`,
	} {
		cmds, piped := splitCommands(in)
		var b strings.Builder
		for i, c := range cmds {
			if i > 0 {
				b.WriteString(">")
				if piped[i] {
					b.WriteString("|")
				}
			}
			b.WriteString(c)
		}
		if b.String() != want || len(piped) != len(cmds) || piped[0] {
			t.Errorf("splitCommands(%q) = %q %v, want %q", in, b.String(), piped, want)
		}
	}
	f, err := ReadBatch(strings.NewReader(`echo y ^| reg add HKCU\X /v a /d 1`))
	if err != nil || len(f.Sections) != 0 {
		t.Errorf("an escaped pipe: %v %+v", err, f)
	}
}

// cmd /c "..." runs the line between its first quote and its last: its
// reg commands are read (a quoted key within keeps its quotes to reg),
// its echoes are not run, and a cmd /c without quotes is read as before.
func TestReadBatchCmdC(t *testing.T) {
	for _, c := range []struct {
		line  string
		paths string // the keys written, | between
		other int
	}{
		{`cmd /c "reg add HKCU\X /v a /d 1 /f"`, `HKCU\X`, 0},
		{`@CMD.EXE /D /C "reg add "HKCU\X Y" /v a /d 1 /f & reg delete HKCU\Z /f" >nul`, `HKCU\X Y|HKCU\Z`, 0},
		{`cmd /c "cmd /c "reg add HKCU\X /v a /d 1 /f""`, `HKCU\X`, 0},
		{`cmd /c reg add HKCU\X /v a /d 1 /f`, `HKCU\X`, 0},
		{`"C:\Windows\System32\cmd.exe" /c "reg add HKCU\X /v a /d 1 /f"`, `HKCU\X`, 0},
		{`cmd /c "echo reg add HKCU\X /v a /d 1 /f"`, ``, 1},
		{`cmd /c "netsh int tcp show global"`, ``, 1},
		{`cmd /k "reg add HKCU\X /v a /d 1 /f"`, `HKCU\X`, 0},
		{`cmd.exe /q /k "reg add HKCU\X /v a /d 1 /f & echo done"`, `HKCU\X`, 0},
		{`cmd /k "echo reg add HKCU\X /v a /d 1 /f"`, ``, 1},
		{`cmd /c "` + strings.Repeat(`cmd /c "`, 10) + `reg add HKCU\X /v a /d 1 /f` + strings.Repeat(`"`, 11), ``, 1},
	} {
		f, err := ReadBatch(strings.NewReader(c.line))
		if err != nil {
			t.Fatalf("%s: %v", c.line, err)
		}
		var got []string
		for _, s := range f.Sections {
			got = append(got, s.Path)
		}
		if strings.Join(got, "|") != c.paths || f.Other != c.other || len(f.Notes) != 0 {
			t.Errorf("%s: keys %q other %d notes %q, want %q other %d", c.line, got, f.Other, f.Notes, c.paths, c.other)
		}
	}
}

// An answer piped into cmd /c (or /k) that runs several commands feeds
// them all: the first that reads its input takes it. reg reads only when
// it asks (without /f, over what exists), so the first reg that may ask
// is answered either way; a later one gets the answer only when nothing
// before it may have read it (echo, set, reg with /f read nothing), and
// otherwise its question is left open with a note.
func TestRegAnsweredThroughCmd(t *testing.T) {
	for _, c := range []struct {
		script string
		want   string // each value's state, in order: yes, asks, newonly; - for a reg delete answered no
		note   string // in the one note; "" for none
	}{
		{`echo y | cmd /c "reg add HKCU\X /v b /d 1 & reg add HKCU\X /v a /d 1"`, "yes asks",
			`line 1: reg add ("reg add HKCU\\X /v a /d 1"): the answer piped into cmd ("echo y") goes to the first of its commands that reads it, and the one before ("reg add HKCU\\X /v b /d 1") may: whether reg gets it depends on the machine, so its question is left open`},
		{`echo y | cmd /c "reg add HKCU\X /v b /d 1 /f & reg add HKCU\X /v a /d 1"`, "yes yes", ""},
		{`echo y | cmd /c "echo working & reg add HKCU\X /v a /d 1"`, "yes", ""},
		{`echo y | cmd /c "set x=1 && reg add HKCU\X /v a /d 1"`, "yes", ""},
		{`echo y | cmd /c "set /p x=? & reg add HKCU\X /v a /d 1"`, "asks", `the one before ("set /p x=?") may`},
		{`echo y | cmd /c "netsh int tcp show global & reg add HKCU\X /v a /d 1"`, "asks", `the one before ("netsh int tcp show global") may`},
		{`echo y | cmd /c "PowerRun.exe reg add HKCU\X /v b /d 1 & reg add HKCU\X /v a /d 1"`, "asks asks", `the one before ("PowerRun.exe reg add HKCU\\X /v b /d 1") may`},
		{`echo y | cmd /c "echo n | reg add HKCU\X /v b /d 1 & reg add HKCU\X /v a /d 1"`, "newonly yes", ""},
		{`echo n | cmd /k "reg delete HKCU\X /v a & reg add HKCU\X /v b /d 1"`, "- asks", "reg delete answered no"},
		{`echo 1 | cmd /c "reg add HKCU\X /v b /d 1 & reg add HKCU\X /v a /d 1"`, "asks asks", ""},
		{`cmd /c "reg add HKCU\X /v b /d 1 & reg add HKCU\X /v a /d 1"`, "asks asks", ""},
	} {
		f, err := ReadBatch(strings.NewReader(c.script))
		if err != nil {
			t.Fatalf("%s: %v", c.script, err)
		}
		var got []string
		if strings.HasPrefix(c.want, "-") {
			got = append(got, "-") // dropped: nothing deleted
		}
		for _, s := range f.Sections {
			for _, v := range s.Values {
				switch {
				case v.Asks:
					got = append(got, "asks")
				case v.NewOnly && v.AnsweredNo:
					got = append(got, "newonly")
				default:
					got = append(got, "yes")
				}
			}
		}
		if strings.Join(got, " ") != c.want {
			t.Errorf("%s: %q, want %q", c.script, got, c.want)
		}
		notes := strings.Join(f.Notes, " | ")
		switch {
		case c.note == "" && len(f.Notes) != 0:
			t.Errorf("%s: notes %q", c.script, f.Notes)
		case c.note != "" && !strings.Contains(notes, c.note):
			t.Errorf("%s: notes %q, want %q", c.script, notes, c.note)
		}
	}
}
