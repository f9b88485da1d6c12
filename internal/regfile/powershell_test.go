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
	"unicode/utf16"

	"github.com/latlab/latlab/internal/badinput"
	"github.com/latlab/latlab/internal/knob/backend"
	"github.com/latlab/latlab/internal/textdec"
)

func dw(n uint32) []byte { return binary.LittleEndian.AppendUint32(nil, n) }
func qw(n uint64) []byte { return binary.LittleEndian.AppendUint64(nil, n) }
func multi(s ...string) []byte {
	var b []byte
	for _, p := range s {
		b = append(b, backend.UTF16Bytes(p)...)
	}
	return append(b, 0, 0)
}

// psRow is one value (or deleted key) read, as the tests compare it.
type psRow struct {
	line   int
	path   string
	name   string // "@" for the default value
	del    bool
	typ    uint32
	data   []byte
	keyDel bool
	open   bool // TypeNote set: the type is the machine's
}

func psRows(f *File) []psRow {
	var got []psRow
	for _, s := range f.Sections {
		if s.Delete {
			got = append(got, psRow{line: s.Line, path: s.Path, keyDel: true})
			continue
		}
		for _, v := range s.Values {
			name := v.Name
			if v.Default {
				name = "@"
			}
			got = append(got, psRow{v.Line, s.Path, name, v.Delete, v.Type, v.Data, false, v.TypeNote != ""})
		}
	}
	return got
}

func sameRow(g, w psRow) bool {
	return g.line == w.line && g.path == w.path && g.name == w.name && g.del == w.del && g.keyDel == w.keyDel &&
		g.typ == w.typ && bytes.Equal(g.data, w.data) && g.open == w.open
}

// The fixture: each form a tweak script writes the registry with, read;
// what only the running script knows, noted; the rest counted.
func TestReadPowerShell(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("testdata", "tweaks.ps1"))
	if err != nil {
		t.Fatal(err)
	}
	f, err := ReadPowerShell(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	const sp = `HKLM\SOFTWARE\Microsoft\Windows NT\CurrentVersion\Multimedia\SystemProfile`
	const x = `HKCU\Software\latlab-test`
	want := []psRow{
		{8, sp, "NetworkThrottlingIndex", false, 4, dw(0xFFFFFFFF), false, false},
		{9, sp, "SystemResponsiveness", false, 4, dw(0), false, false},
		{10, `HKLM\SYSTEM\CurrentControlSet\Control\PriorityControl`, "Win32PrioritySeparation", false, 4, dw(38), false, true},
		{11, `HKLM\SYSTEM\CurrentControlSet\Control\Session Manager\kernel`, "GlobalTimerResolutionRequests", false, 4, dw(1), false, false},
		{15, x, "", false, 0, nil, true, false},
		{15, x, "Fresh", false, 4, dw(5), false, false},
		{16, x, "Text", false, 1, backend.UTF16Bytes(`it's "quoted"`), false, false},
		{17, x, "Expand", false, 2, backend.UTF16Bytes("%SystemRoot%\tx"), false, false},
		{18, x, "Multi", false, 7, multi("a", "b"), false, false},
		{19, x, "Multi2", false, 7, multi("one", "two"), false, false},
		{20, x, "Bin", false, 3, []byte{1, 2, 0xff}, false, false},
		{21, x, "Big", false, 11, qw(1 << 32), false, false},
		{22, x, "Empty", false, 4, dw(0), false, false},
		{23, sp, "NoLazyMode", true, 0, nil, false, false},
		{24, `HKLM\SOFTWARE\Policies\Microsoft\Windows\Psched`, "", false, 0, nil, true, false},
		{25, `HKCU\Control Panel\Desktop`, "MenuShowDelay", false, 1, backend.UTF16Bytes("0"), false, false},
		{26, `HKCU\Control Panel\Mouse`, "MouseSpeed", false, 1, backend.UTF16Bytes("100%"), false, false},
	}
	got := psRows(f)
	if len(got) != len(want) {
		t.Fatalf("got %d entries:\n%+v", len(got), got)
	}
	for i, w := range want {
		if !sameRow(got[i], w) {
			t.Errorf("entry %d = %+v, want %+v", i, got[i], w)
		}
	}
	wantNotes := []string{
		"line 28: Set-ItemProperty: the key holds the variable $i",
		`line 30: Set-ItemProperty: the type "REG_DWORD" is no RegistryValueKind`,
		`line 31: Set-ItemProperty: the key "HKLM:\\SYSTEM\\CurrentControlSet\\Services\\*" holds wildcards`,
		`line 32: Invoke-Expression is not a command latlab reads`,
	}
	if len(f.Notes) != len(wantNotes) {
		t.Fatalf("notes %q", f.Notes)
	}
	for i, w := range wantNotes {
		if !strings.HasPrefix(f.Notes[i], w) {
			t.Errorf("note %q, want %q", f.Notes[i], w)
		}
	}
	// $ErrorActionPreference = ..., Write-Host, Stop-Service, bcdedit;
	// not foreach (a statement) nor | Out-Null (a stage of a command)
	// 18 sections from 17 commands: New-Item -Force is a deletion, then a key
	if !f.PowerShell || f.Batch || f.Other != 4 || f.Commands != 17 || len(f.Sections) != 18 || f.Values != 15 || f.Encoding != textdec.UTF8 {
		t.Errorf("powershell %v other %d commands %d sections %d values %d encoding %s", f.PowerShell, f.Other, f.Commands, len(f.Sections), f.Values, f.Encoding)
	}
}

func readPS(t *testing.T, text string) *File {
	t.Helper()
	f, err := ReadPowerShell(strings.NewReader(text))
	if err != nil {
		t.Fatalf("%q: %v", text, err)
	}
	return f
}

// One command each: what PowerShell stores, or why it is skipped.
func TestReadPowerShellCommands(t *testing.T) {
	const k = `HKCU\X`
	for _, c := range []struct {
		script string
		want   []psRow // line 1 unless said
		note   string
	}{
		// types fixed by -Type / -PropertyType, as ConvertValueToKind converts
		{`Set-ItemProperty HKCU:\X a 0xFFFFFFFF -Type DWord`, []psRow{{1, k, "a", false, 4, dw(0xFFFFFFFF), false, false}}, ""},
		{`Set-ItemProperty HKCU:\X a 4294967295 -Type DWord`, []psRow{{1, k, "a", false, 4, dw(0xFFFFFFFF), false, false}}, ""},
		{`Set-ItemProperty HKCU:\X a -1 -Type dword`, []psRow{{1, k, "a", false, 4, dw(0xFFFFFFFF), false, false}}, ""},
		{`Set-ItemProperty HKCU:\X a '0x26' -Type DWord`, []psRow{{1, k, "a", false, 4, dw(0x26), false, false}}, ""},
		{`Set-ItemProperty HKCU:\X a ' 7 ' -Type DWord`, []psRow{{1, k, "a", false, 4, dw(7), false, false}}, ""},
		{`Set-ItemProperty HKCU:\X a 4294967296 -Type DWord`, nil, "the number 4294967296 as REG_DWORD: PowerShell refuses it"},
		{`Set-ItemProperty HKCU:\X a 1.5 -Type DWord`, nil, "the number 1.5 (a form latlab does not read)"},
		// a number argument written otherwise than its value keeps its
		// text: a string of it is the text; another number type parses
		// the text again, to the same number
		{`Set-ItemProperty HKCU:\X a 0xFFFFFFFF -Type QWord`, []psRow{{1, k, "a", false, 11, qw(^uint64(0)), false, false}}, ""},
		{`Set-ItemProperty HKCU:\X a '0xFFFFFFFF' -Type QWord`, []psRow{{1, k, "a", false, 11, qw(^uint64(0)), false, false}}, ""},
		{`Set-ItemProperty HKCU:\X a '4294967295' -Type DWord`, []psRow{{1, k, "a", false, 4, dw(0xFFFFFFFF), false, false}}, ""},
		{`Set-ItemProperty HKCU:\X a 0x26 -Type QWord`, []psRow{{1, k, "a", false, 11, qw(0x26), false, false}}, ""},
		{`Set-ItemProperty HKCU:\X a 0x26 -Type String`, []psRow{{1, k, "a", false, 1, backend.UTF16Bytes("0x26"), false, false}}, ""},
		{`Set-ItemProperty HKCU:\X a 007 -Type ExpandString`, []psRow{{1, k, "a", false, 2, backend.UTF16Bytes("007"), false, false}}, ""},
		{`Set-ItemProperty HKCU:\X a 0x26 -Type MultiString`, []psRow{{1, k, "a", false, 7, multi("0x26"), false, false}}, ""},
		{`Set-ItemProperty HKCU:\X a @(0x26) -Type MultiString`, []psRow{{1, k, "a", false, 7, multi("38"), false, false}}, ""},
		{`Set-ItemProperty HKCU:\X a 5 -Type Binary`, []psRow{{1, k, "a", false, 3, []byte{5}, false, false}}, ""},
		{`Set-ItemProperty HKCU:\X a 0x05 -Type Binary`, []psRow{{1, k, "a", false, 3, []byte{5}, false, false}}, ""},
		{`Set-ItemProperty HKCU:\X a 0x100000000 -Type DWord`, nil, "the number 0x100000000 as REG_DWORD"},
		{`Set-ItemProperty HKCU:\X a 0x26`, []psRow{{1, k, "a", false, 4, dw(0x26), false, true}}, ""},
		{`Set-ItemProperty HKCU:\X a 0x100000000`, []psRow{{1, k, "a", false, 1, backend.UTF16Bytes("4294967296"), false, true}}, ""},
		{`Set-ItemProperty HKCU:\X a 0x100000000 -Type QWord`, []psRow{{1, k, "a", false, 11, qw(1 << 32), false, false}}, ""},
		{`Set-ItemProperty HKCU:\X a 5 -Type String`, []psRow{{1, k, "a", false, 1, backend.UTF16Bytes("5"), false, false}}, ""},
		{`Set-ItemProperty HKCU:\X a $null -Type String`, []psRow{{1, k, "a", false, 1, backend.UTF16Bytes(""), false, false}}, ""},
		{`Set-ItemProperty HKCU:\X a $null -Type MultiString`, []psRow{{1, k, "a", false, 7, []byte{0, 0}, false, false}}, ""},
		{`Set-ItemProperty HKCU:\X a $null -Type Binary`, []psRow{{1, k, "a", false, 3, []byte{}, false, false}}, ""},
		{`Set-ItemProperty HKCU:\X a @(1,2) -Type Binary`, []psRow{{1, k, "a", false, 3, []byte{1, 2}, false, false}}, ""},
		{`Set-ItemProperty HKCU:\X a ([byte[]](1,256)) -Type Binary`, nil, "a [byte[]] of something other than numbers"},
		{`Set-ItemProperty HKCU:\X a ([byte[]]@(0xde,0xad)) -Type None`, []psRow{{1, k, "a", false, 0, []byte{0xde, 0xad}, false, false}}, ""},
		{`Set-ItemProperty HKCU:\X a 1 -Type None`, nil, "the number 1 as REG_NONE: PowerShell refuses it"},
		{`Set-ItemProperty HKCU:\X a "x","y" -Type MultiString`, []psRow{{1, k, "a", false, 7, multi("x", "y"), false, false}}, ""},
		{`Set-ItemProperty HKCU:\X a @(` + "\n" + `  'x'` + "\n" + `  'y'` + "\n" + `) -Type MultiString`, []psRow{{1, k, "a", false, 7, multi("x", "y"), false, false}}, ""},
		{"Set-ItemProperty HKCU:\\X a \"`é`\"\" -Type String", []psRow{{1, k, "a", false, 1, backend.UTF16Bytes(`é"`), false, false}}, ""},
		{"Set-ItemProperty HKCU:\\X a \"a`tb`$c\" -Type String", []psRow{{1, k, "a", false, 1, backend.UTF16Bytes("a\tb$c"), false, false}}, ""},
		{`Set-ItemProperty HKCU:\X a 'it''s' -Type String`, []psRow{{1, k, "a", false, 1, backend.UTF16Bytes("it's"), false, false}}, ""},
		{`Set-ItemProperty HKCU:\X a "say ""hi""" -Type String`, []psRow{{1, k, "a", false, 1, backend.UTF16Bytes(`say "hi"`), false, false}}, ""},
		{"Set-ItemProperty HKCU:\\X a @'\nline one\nline 'two'\n'@ -Type String", []psRow{{1, k, "a", false, 1, backend.UTF16Bytes("line one\nline 'two'"), false, false}}, ""},
		{`Set-ItemProperty HKCU:\X a 1 -Type 4`, []psRow{{1, k, "a", false, 4, dw(1), false, false}}, ""},
		{`Set-ItemProperty HKCU:\X a 1 -Type REG_DWORD`, nil, `the type "REG_DWORD" is no RegistryValueKind`},
		// no type: the machine's when the value exists
		{`Set-ItemProperty HKCU:\X a 1`, []psRow{{1, k, "a", false, 4, dw(1), false, true}}, ""},
		{`Set-ItemProperty HKCU:\X a 1 -Type Unknown`, []psRow{{1, k, "a", false, 4, dw(1), false, true}}, ""},
		{`Set-ItemProperty HKCU:\X a 4294967295`, []psRow{{1, k, "a", false, 11, qw(4294967295), false, true}}, ""},
		{`Set-ItemProperty HKCU:\X a "1"`, []psRow{{1, k, "a", false, 1, backend.UTF16Bytes("1"), false, true}}, ""},
		{`Set-ItemProperty HKCU:\X a $null`, []psRow{{1, k, "a", false, 1, backend.UTF16Bytes(""), false, true}}, ""},
		{`Set-ItemProperty HKCU:\X a @(1,2)`, nil, "an array without -Type"},
		{`New-ItemProperty HKCU:\X a -Value 1`, []psRow{{1, k, "a", false, 4, dw(1), false, false}}, ""},
		{`New-ItemProperty HKCU:\X a -Value 1 -Force`, []psRow{{1, k, "a", false, 4, dw(1), false, true}}, ""},
		{`New-ItemProperty HKCU:\X a -PropertyType QWord`, []psRow{{1, k, "a", false, 11, qw(0), false, false}}, ""},
		{`Set-ItemProperty HKCU:\X a`, nil, "no -Value"},
		// parameters: any case, prefixes, aliases, positions, -Name:value
		{`set-itemproperty -pat HKCU:\X -na a -va 2 -ty DWORD -Fo -EA 0`, []psRow{{1, k, "a", false, 4, dw(2), false, false}}, ""},
		{`Set-ItemProperty -LP HKCU:\X -PSProperty a -Value 2 -Type:DWord -Force:$true`, []psRow{{1, k, "a", false, 4, dw(2), false, false}}, ""},
		{`Set-ItemProperty -Name a HKCU:\X 2 -Type DWord`, []psRow{{1, k, "a", false, 4, dw(2), false, false}}, ""},
		{`sp HKCU:\X a 2 -Type DWord; rp HKCU:\X b`, []psRow{{1, k, "a", false, 4, dw(2), false, false}, {1, k, "b", true, 0, nil, false, false}}, ""},
		{`Microsoft.PowerShell.Management\Set-ItemProperty HKCU:\X a 2 -Type DWord`, []psRow{{1, k, "a", false, 4, dw(2), false, false}}, ""},
		{`New-ItemProperty -P HKCU:\X -Name a -Value 1`, nil, "-P is ambiguous for New-ItemProperty"},
		{`New-ItemProperty HKCU:\X a -Value 1 -Pr DWord`, nil, "-Pr is ambiguous for New-ItemProperty (-PropertyType, -ProgressAction)"},
		{`Set-ItemProperty HKCU:\X -Name: a -Value:1 -Type: DWord`, []psRow{{1, k, "a", false, 4, dw(1), false, false}}, ""},
		{`Set-ItemProperty HKCU:\X a 1 -Type:`, nil, "-Type: without its value"},
		{`Set-ItemProperty HKCU:\X a 1 -Bogus`, nil, "Set-ItemProperty has no parameter -Bogus"},
		{`Set-ItemProperty HKCU:\X a 1 extra`, nil, `"extra" is an argument Set-ItemProperty takes at no position`},
		{`Set-ItemProperty HKCU:\X -Name "(Default)" -Value x -Type String`, []psRow{{1, k, "@", false, 1, backend.UTF16Bytes("x"), false, false}}, ""},
		{"Set-ItemProperty `\n  -Path HKCU:\\X `\n  -Name a `\n  -Value 3 -Type DWord", []psRow{{1, k, "a", false, 4, dw(3), false, false}}, ""},
		{`Set-ItemProperty HKCU:\X a 1 -Type DWord -WhatIf`, nil, "-WhatIf changes nothing"},
		{`Set-ItemProperty HKCU:\X a 1 -Type DWord -Include b*`, nil, "Set-ItemProperty -Include"},
		{`Get-Item HKCU:\X | Set-ItemProperty -Name a -Value 1`, nil, "the key comes from the pipeline"},
		{`Set-ItemProperty HKCU:\X a 1 -Type DWord | Out-Null`, []psRow{{1, k, "a", false, 4, dw(1), false, false}}, ""},
		{`Set-ItemProperty HKCU:\X a 1 -Type DWord *>$null`, []psRow{{1, k, "a", false, 4, dw(1), false, false}}, ""},
		// paths
		{`Set-ItemProperty Registry::HKEY_CURRENT_USER\X a 1 -Type DWord`, []psRow{{1, k, "a", false, 4, dw(1), false, false}}, ""},
		{`Set-ItemProperty Microsoft.PowerShell.Core\Registry::HKCU\X\ a 1 -Type DWord`, []psRow{{1, k, "a", false, 4, dw(1), false, false}}, ""},
		{`New-Item -Force HKCU:/X/Y`, nil, "holds a /, which PowerShell reads as a separator or as part of a name"},
		{`Set-ItemProperty 'HKU:\.DEFAULT\X' a 1 -Type DWord`, nil, "no drive HKU: (PowerShell has HKLM: and HKCU: alone, and the script has not run New-PSDrive -Name HKU -PSProvider Registry -Root HKEY_USERS before this line): PowerShell fails the command, so it is not written"},
		{`Set-ItemProperty 'Registry::HKEY_USERS\.DEFAULT\X' a 1 -Type DWord`, []psRow{{1, `HKU\.DEFAULT\X`, "a", false, 4, dw(1), false, false}}, ""},
		{`Set-ItemProperty HKEY_CURRENT_USER\X a 1 -Type DWord`, nil, "is no registry path latlab reads"},
		{`Set-ItemProperty -LiteralPath HKCU:\X* a 1 -Type DWord`, []psRow{{1, `HKCU\X*`, "a", false, 4, dw(1), false, false}}, ""},
		{`Set-ItemProperty HKCU:\X\* a 1 -Type DWord`, nil, "holds wildcards"},
		{`Set-ItemProperty "HKCU:\$env:USERNAME" a 1 -Type DWord`, nil, "the key holds a variable or subexpression"},
		{`Set-ItemProperty HKCU:\X a $v -Type DWord`, nil, "the data holds the variable $v"},
		{`Set-ItemProperty HKCU:\X $n 1 -Type DWord`, nil, "the value name holds the variable $n"},
		{`Set-ItemProperty HKCU:\X a (Get-Random) -Type DWord`, nil, "the data holds the expression"},
		{`Set-ItemProperty HKCU:\X a 1 -Type $t`, nil, "the type holds the variable $t"},
		// splatting binds a hashtable's keys as parameters
		{"$p = @{ Path = 'HKCU:\\X'; Name = 'a'; Value = 1 }\nSet-ItemProperty @p", nil, "its parameters come from the splatted variable @p"},
		{`Set-ItemProperty HKCU:\X a 1 -Type DWord @more`, nil, "its parameters come from the splatted variable @more"},
		// a method's arguments are the method's, not the command's
		// (Disassembler0/Win10-Initial-Setup-Script Win10.psm1 line
		// 4056: -Value $data.Split(","))
		{`Set-ItemProperty HKCU:\X a -Value $data.Split(",") -Type Binary`, nil, "the data holds the variable $data"},
		{`Set-ItemProperty HKCU:\X a $d.Trim() -Type String`, nil, "the data holds the variable $d"},
		// in a command's arguments a [ starts a word, not a type: the
		// string [byte[]], then (1,2), an argument too many; PowerShell
		// binds none of it
		{`Set-ItemProperty HKCU:\X -Name a -Value [byte[]](1,2) -Type Binary`, nil, "a list is an argument Set-ItemProperty takes at no position"},
		{`Set-ItemProperty HKCU:\X a [byte[]]@(1,2) -Type Binary`, nil, "a list is an argument Set-ItemProperty takes at no position"},
		{`Set-ItemProperty HKCU:\X a [int]5`, []psRow{{1, k, "a", false, 1, backend.UTF16Bytes("[int]5"), false, true}}, ""},
		{`Set-ItemProperty HKCU:\X a [Environment]::GetFolderPath('Desktop') -Type String`, nil, `"Desktop" is an argument Set-ItemProperty takes at no position`},
		{`Set-ItemProperty HKCU:\X a ([byte[]](1,2)) -Type Binary`, []psRow{{1, k, "a", false, 3, []byte{1, 2}, false, false}}, ""},
		// a quoted argument ends at its closing quote: what follows
		// against it is the next argument (simeononsecurity/
		// Windows-Optimize-Harden-Debloat sos-optimize-windows.ps1 line
		// 1060: New-Item -Path "HKLM:\...\SSL 2.0\Client"-Force)
		{`New-Item -Path "HKCU:\X"-Force`, []psRow{{1, k, "", false, 0, nil, true, false}}, ""},
		{`Set-ItemProperty -Path 'HKCU:\X'-Name a -Value 1 -Type DWord`, []psRow{{1, k, "a", false, 4, dw(1), false, false}}, ""},
		{`Set-ItemProperty "HKCU:\X" "a"2 -Type DWord`, []psRow{{1, k, "a", false, 4, dw(2), false, false}}, ""},
		{`Set-ItemProperty "HKCU:\X".Trim() a 1 -Type DWord`, nil, "the key holds the expression"},
		{`Set-ItemProperty HKCU:\X a 1 -Type "DWord"[0]`, nil, "the type holds the expression"},
		// a key on a drive without \ after the colon is relative to the
		// drive's location: its root, unless the script moves it
		// (shoober420/windows11-scripts AMD_GPUScaling.ps1 line 129:
		// "HKLM:SYSTEM\ControlSet001\...", no Set-Location)
		{`Set-ItemProperty HKCU:X a 1 -Type DWord`, []psRow{{1, k, "a", false, 4, dw(1), false, false}}, ""},
		{"Set-ItemProperty HKCU:X a 1 -Type DWord\ncd HKCU:\\Software", nil, "is relative to the drive's current location, which the script's cd of line 2 may move"},
		{"Push-Location 'HKCU:\\Software'\nSet-ItemProperty \"HKCU:X\" a 1 -Type DWord", nil, "which the script's Push-Location of line 1 may move"},
		{"Set-Location C:\\\nSet-ItemProperty HKCU:\\X a 1 -Type DWord\nSet-ItemProperty Registry::HKCU\\X a 1 -Type DWord", []psRow{{2, k, "a", false, 4, dw(1), false, false}, {3, k, "a", false, 4, dw(1), false, false}}, ""},
		// keys
		{`New-Item HKCU:\X\Y`, []psRow{}, ""},
		{`New-Item -Path HKCU:\X -Name Y -Force | Out-Null`, []psRow{{1, `HKCU\X\Y`, "", false, 0, nil, true, false}}, ""},
		{`New-Item HKCU:\X -Value v`, []psRow{{1, k, "@", false, 1, backend.UTF16Bytes("v"), false, false}}, ""},
		{`mkdir HKCU:\X -Force`, []psRow{{1, k, "", false, 0, nil, true, false}}, ""},
		{`Remove-Item -Path 'HKCU:\X' -Recurse -Force -ErrorAction SilentlyContinue`, []psRow{{1, k, "", false, 0, nil, true, false}}, ""},
		{`Remove-Item -LiteralPath Registry::HKEY_CURRENT_USER\X`, []psRow{{1, k, "", false, 0, nil, true, false}}, ""},
		{`ri HKCU:\X\*`, nil, "holds wildcards"},
		{`Remove-Item C:\Temp\x.txt -Force`, []psRow{}, ""},
		{`Remove-Item $env:TEMP\* -Recurse`, []psRow{}, ""},
		{`Remove-ItemProperty HKCU:\X -Name a, b`, []psRow{{1, k, "a", true, 0, nil, false, false}, {1, k, "b", true, 0, nil, false, false}}, ""},
		{`Remove-ItemProperty HKCU:\X -Name *`, nil, "holds wildcards"},
		// reg.exe, with PowerShell's quoting
		{`reg add 'HKCU\X' /v a /t REG_DWORD /d 0x10 /f`, []psRow{{1, k, "a", false, 4, dw(16), false, false}}, ""},
		{`& reg.exe add "HKCU\X" /v a /d '50%' /f 2>&1 | Out-Null`, []psRow{{1, k, "a", false, 1, backend.UTF16Bytes("50%"), false, false}}, ""},
		{`C:\Windows\System32\reg.exe delete HKCU\X /v a /f`, []psRow{{1, k, "a", true, 0, nil, false, false}}, ""},
		{`reg add HKCU\X /v a /d "" /f`, nil, "an empty argument, which Windows PowerShell 5.1 does not pass"},
		{`reg add "HKCU\$sid" /v a /d 1 /f`, nil, "reg: an argument holds a variable"},
		{`reg add HKCU\X /v a /d '{"k":1}' /f`, nil, "holds a double quote"},
		{`reg import tweaks.reg`, nil, "reg import is not a command latlab reads"},
		{`reg query HKCU\X`, []psRow{}, ""},
		// not run, or not registry commands
		{"# Set-ItemProperty HKCU:\\X a 1\n<# Remove-Item HKCU:\\X\n#>\nWrite-Host 'Set-ItemProperty HKCU:\\X a 1'", []psRow{}, ""},
		{`Set-ItemPropertyVerified -Path HKCU:\X -Name a -Value 1`, nil, "Set-ItemPropertyVerified is not a command latlab reads"},
		{`$null = New-ItemProperty HKCU:\X a -Value 1`, nil, "a registry command in an expression"},
		{`Invoke-Expression 'reg add HKCU\X /v a /d 1 /f'`, nil, "Invoke-Expression is not a command latlab reads"},
		{`[Microsoft.Win32.Registry]::SetValue('HKEY_CURRENT_USER\X', 'a', 1)`, nil, "a registry command in an expression"},
		{`Set-Service SysMain -StartupType Disabled`, []psRow{}, ""},
		{`Get-ItemProperty -Path HKCU:\X -Name a; Get-ItemPropertyValue HKCU:\X a`, []psRow{}, ""},
	} {
		f := readPS(t, c.script)
		got := psRows(f)
		if c.note != "" {
			if len(f.Notes) != 1 || !strings.Contains(f.Notes[0], c.note) || len(got) != 0 {
				t.Errorf("%s: notes %q, values %+v; want a note with %q", c.script, f.Notes, got, c.note)
			}
			continue
		}
		if len(f.Notes) != 0 || len(got) != len(c.want) {
			t.Errorf("%s: notes %q, got %+v, want %+v", c.script, f.Notes, got, c.want)
			continue
		}
		for i, w := range c.want {
			if !sameRow(got[i], w) {
				t.Errorf("%s: entry %d = %+v, want %+v", c.script, i, got[i], w)
			}
		}
	}
}

// Literals are typed as PowerShell types them.
func TestPSNumber(t *testing.T) {
	for _, c := range []struct {
		in   string
		n    int64
		kind psKind
		ok   bool
	}{
		{"0", 0, psInt, true}, {"38", 38, psInt, true}, {"-1", -1, psInt, true},
		{"2147483647", 2147483647, psInt, true}, {"2147483648", 2147483648, psLong, true},
		{"0x26", 0x26, psInt, true}, {"0X7fffffff", 0x7fffffff, psInt, true},
		{"0xFFFFFFFF", -1, psInt, true}, {"0x80000000", -2147483648, psInt, true},
		{"0x100000000", 1 << 32, psLong, true}, {"5l", 5, psLong, true}, {"0xFFFFFFFFl", 0xFFFFFFFF, psLong, true},
		{"1.5", 0, psNull, false}, {"1kb", 0, psNull, false}, {"0x", 0, psNull, false}, {"99999999999999999999", 0, psNull, false},
		{"DWord", 0, psString, false}, {"HKLM:\\X", 0, psString, false}, {"-", 0, psString, false},
	} {
		n, kind, ok := psNumber(c.in)
		if n != c.n || kind != c.kind || ok != c.ok {
			t.Errorf("psNumber(%q) = %d %d %v, want %d %d %v", c.in, n, kind, ok, c.n, c.kind, c.ok)
		}
	}
}

// An untyped Set-ItemProperty over an existing value: the data
// converted to the value's type, as ConvertValueToKind does.
func TestLiteralAsKind(t *testing.T) {
	lit := func(script string) *Literal {
		f := readPS(t, script)
		return f.Sections[0].Values[0].Literal
	}
	for _, c := range []struct {
		script string
		typ    uint32
		want   []byte
		ok     bool
	}{
		{`sp HKCU:\X a 38`, 4, dw(38), true},
		{`sp HKCU:\X a 38`, 1, backend.UTF16Bytes("38"), true},
		{`sp HKCU:\X a 38`, 11, qw(38), true},
		{`sp HKCU:\X a '38'`, 4, dw(38), true},
		{`sp HKCU:\X a 'fast'`, 4, nil, false},
		{`sp HKCU:\X a 'x'`, 7, multi("x"), true},
		{`sp HKCU:\X a 0x26`, 1, backend.UTF16Bytes("0x26"), true},
		{`sp HKCU:\X a 38`, 0, nil, false},  // REG_NONE: GetValueKind says Unknown
		{`sp HKCU:\X a 38`, 5, nil, false},  // REG_DWORD_BIG_ENDIAN likewise
		{`sp HKCU:\X a 300`, 3, nil, false}, // no byte
	} {
		typ, data, ok := lit(c.script).AsKind(c.typ)
		if ok != c.ok || ok && (typ != c.typ || !bytes.Equal(data, c.want)) {
			t.Errorf("%s as %d: %d % x %v, want % x %v", c.script, c.typ, typ, data, ok, c.want, c.ok)
		}
	}
}

func utf16le(s string, bom bool) []byte {
	var b []byte
	if bom {
		b = []byte{0xff, 0xfe}
	}
	for _, u := range utf16.Encode([]rune(s)) {
		b = binary.LittleEndian.AppendUint16(b, u)
	}
	return b
}

// Scripts saved by Windows PowerShell ISE and editors: UTF-16LE with a
// BOM, UTF-8 with or without one, CRLF line ends.
func TestReadPowerShellEncodings(t *testing.T) {
	const script = "# tweak\r\nSet-ItemProperty -Path 'HKCU:\\Software\\Ä' -Name 'ü' -Value 1 -Type DWord\r\n"
	for _, c := range []struct {
		in   []byte
		want textdec.Encoding
	}{
		{utf16le(script, true), textdec.UTF16LE},
		{append([]byte{0xef, 0xbb, 0xbf}, script...), textdec.UTF8BOM},
		{[]byte(script), textdec.UTF8},
	} {
		f, err := ReadPowerShell(bytes.NewReader(c.in))
		if err != nil {
			t.Fatal(err)
		}
		got := psRows(f)
		if f.Encoding != c.want || len(got) != 1 || got[0].path != `HKCU\Software\Ä` || got[0].name != "ü" || got[0].line != 2 {
			t.Errorf("%s: %s %+v", c.want, f.Encoding, got)
		}
	}
}

// What is no script is bad input in one line; every bound holds.
func TestReadPowerShellBounds(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"", "empty file: expected a PowerShell script"},
		{" \r\n\t", "empty file"},
		{"Set-ItemProperty\x00\x01", "not text"},
		// the bounds on the input and its values: TestReadBounds
	} {
		_, err := ReadPowerShell(strings.NewReader(c.in))
		var bad *badinput.Error
		if err == nil || !errors.As(err, &bad) || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%.40q: %v, want a one-line bad input error with %q", c.in, err, c.want)
		}
	}
	// at most MaxNotes notes, the rest counted
	f := readPS(t, strings.Repeat("sp HKCU:\\X $a 1\n", MaxNotes+7))
	if len(f.Notes) != MaxNotes+1 || f.Notes[MaxNotes] != "7 more commands skipped" {
		t.Errorf("%d notes, last %q", len(f.Notes), f.Notes[len(f.Notes)-1])
	}
	// a command longer than maxStatement is skipped, and the next read;
	// one within it is read (the bound lowered: TestBoundsAsDocumented
	// checks the real one)
	lower(t, &maxStatement, 4096)
	long := func(n int) string {
		return "sp HKCU:\\X a '" + strings.Repeat("x", n) + "' -Type String\nsp HKCU:\\X b 1 -Type DWord\n"
	}
	f = readPS(t, long(maxStatement))
	if got := psRows(f); len(f.Notes) != 1 || !strings.Contains(f.Notes[0], "a command longer than 4096 bytes") || len(got) != 1 || got[0].name != "b" {
		t.Errorf("overlong: notes %q values %+v", f.Notes, got)
	}
	if f = readPS(t, long(maxStatement-64)); len(f.Notes) != 0 || len(psRows(f)) != 2 {
		t.Errorf("within the bound: notes %q values %+v", f.Notes, psRows(f))
	}
	// nesting beyond maxDepth is an expression, not a deep recursion
	deep := "sp HKCU:\\X a " + strings.Repeat("(", 100000) + "1" + strings.Repeat(")", 100000) + " -Type DWord\n"
	if f := readPS(t, deep); len(f.Notes) != 1 || f.Values != 0 {
		t.Errorf("deep: notes %q values %d", f.Notes, f.Values)
	}
	// strings within subexpressions within strings: skipped without
	// recursing, however deep
	if f := readPS(t, "sp HKCU:\\X a "+strings.Repeat(`"$(`, 1<<20)); f.Values != 0 || len(f.Notes) != 1 {
		t.Errorf("nested strings: notes %q values %d", f.Notes, f.Values)
	}
	// an unclosed string or comment is a script PowerShell refuses
	// whole: bad input, not a script of no commands
	for _, s := range []string{"sp HKCU:\\X a 'open", "<# open\nsp HKCU:\\X a 1", "sp HKCU:\\X a @'\nopen", "sp HKCU:\\X a $(open"} {
		if _, err := ReadPowerShell(strings.NewReader(s)); !badinput.Is(err) {
			t.Errorf("%q: %v, want bad input", s, err)
		}
	}
}

// FuzzReadPowerShell: any input is read or refused, never a panic; the
// values counted are those in the sections, each on a line of the input.
func FuzzReadPowerShell(f *testing.F) {
	b, err := os.ReadFile(filepath.Join("testdata", "tweaks.ps1"))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(b)
	f.Add([]byte("sp HKCU:\\X a @(\n'x',\"y`$\"\n) -Ty MultiString; rp -LP Registry::HKU\\.DEFAULT\\Y -Name (default)\n"))
	f.Add([]byte("New-ItemProperty -Path \"HKLM:\\A\" -Name b -Value ([byte[]](0x01,2)) -PropertyType Binary -Force | Out-Null\n"))
	f.Add([]byte("reg.exe add 'HKCU\\A' /v \"b\" /t REG_QWORD /d 0x1 /f 2>&1 | Out-Null\n$x = @{ a = { Set-ItemProperty HKCU:\\A b 1 } }\n"))
	f.Add([]byte("$t = @'\n)}\n'@ <# ( #> # {\nif ($a[ 0 ]) { sp HKCU:\\A \"b$(\"(\")\" 1 }\n--% ) | sp HKCU:\\A c `u{31} -Type String\n"))
	f.Add([]byte("sp HKCU:\\A b 1 -Type DWord\r\nif ($a) {\r\n@\"\r\nx\r\n  \"@\r\n"))
	f.Add([]byte("$null = (ndr -PSProvider Registry -Name HKU -Root HKEY_USERS)\nsp HKU:\\.DEFAULT\\A b 1\nNew-PSDrive P Registry HKLM:\\SOFTWARE\nrp P:\\X a; Remove-PSDrive HKU; rp HKCR:\\Y b\n"))
	f.Add([]byte("function Map\n{ ndr HKU Registry HKEY_USERS -Scope 1 }\n. Map\n& { New-PSDrive P Registry HKLM:\\A; sp P:\\X a 1 }\nswitch ($x) { 'a' { $sb = { mount Q Registry HKU -Persist } } }\nsp HKU:\\B c 1; rp Q:\\C d\n"))
	f.Add([]byte("function F { ndr HKLM Registry HKLM:\\SOFTWARE; rdr HK* -Scope 1 }\nNew-PSDrive Env Registry HKCU:\\A -Scope $s\nRemove-PSDrive -LiteralName HKU, $x -PSProvider Reg*\nF; sp HKLM:\\B c 1; rp Env:\\C d\nNew-PSDrive C Registry HKCU -Scope Global; rdr C -Scope 3\n"))
	f.Add([]byte("New-PSDrive HKU Registry HKEY_USERS\nfunction F { Remove-PSDrive HKU; G }\nfunction G { F; sp HKU:\\A b 1 }\n& G\n. F\nsp HKU:\\B c 1\n$sb = { rdr HKLM -Scope Global }\n"))
	f.Add([]byte("[CmdletBinding()]param(\n[int]$a = (1)\n) sp HKCU:\\A b 1\n{\n{ rp HKCU:\\B c }\n}.Invoke()\n$sb =\n{ sp HKCU:\\C d 1 }\nParam\n(\n) { }\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		got, err := ReadPowerShell(bytes.NewReader(b))
		if err != nil {
			if strings.Contains(err.Error(), "\n") {
				t.Fatalf("error of several lines: %q", err)
			}
			return
		}
		lines := bytes.Count(b, []byte("\n")) + bytes.Count(b, []byte("\r")) + 1
		n := 0
		for _, s := range got.Sections {
			n += len(s.Values)
			if s.Line < 1 || s.Line > lines {
				t.Fatalf("section on line %d of %d", s.Line, lines)
			}
		}
		if n != got.Values {
			t.Fatalf("%d values in sections, Values %d", n, got.Values)
		}
		if len(got.Notes) > MaxNotes+1 {
			t.Fatalf("%d notes", len(got.Notes))
		}
	})
}

// New-ItemProperty without -Force writes only a value that does not exist
// yet (NewProperty): NewOnly marks it, and only it.
func TestPowerShellNewOnly(t *testing.T) {
	for _, c := range []struct {
		script string
		want   bool
	}{
		{`New-ItemProperty HKCU:\X a -Value 1`, true},
		{`New-ItemProperty HKCU:\X a -Value 1 -PropertyType DWord`, true},
		{`New-ItemProperty HKCU:\X a -Value 1 -Force:$false`, true},
		{`New-ItemProperty HKCU:\X a -Value 1 -Force`, false},
		{`New-ItemProperty HKCU:\X a -Value 1 -fo`, false},
		{`Set-ItemProperty HKCU:\X a -Value 1`, false},
		{`Set-ItemProperty HKCU:\X a -Value 1 -Type DWord`, false},
		{`reg add HKCU\X /v a /t REG_DWORD /d 1`, false},
	} {
		f, err := ReadPowerShell(strings.NewReader(c.script))
		if err != nil || len(f.Sections) != 1 || len(f.Sections[0].Values) != 1 {
			t.Fatalf("%s: %v %+v", c.script, err, f)
		}
		if got := f.Sections[0].Values[0].NewOnly; got != c.want {
			t.Errorf("%s: NewOnly %v, want %v", c.script, got, c.want)
		}
	}
}

// HKLM: and HKCU: are PowerShell's in every session; any other registry
// drive exists once the script maps it with New-PSDrive, whatever its
// name and root. A path on HKU:, HKCR: or HKCC: before that fails, so it
// is not written, and the note names the New-PSDrive it lacks.
func TestPowerShellDrives(t *testing.T) {
	for _, c := range []struct {
		name   string
		script string
		path   string // the key written; "" when none is
		note   string
	}{
		{"HKLM", `sp HKLM:\SOFTWARE\X a 1 -Type DWord`, `HKLM\SOFTWARE\X`, ""},
		{"hkcu any case", `sp hkcu:\X a 1 -Type DWord`, `HKCU\X`, ""},
		{"HKU unmapped", `sp HKU:\.DEFAULT\X a 1 -Type DWord`, "", "no drive HKU: (PowerShell has HKLM: and HKCU: alone, and the script has not run New-PSDrive -Name HKU -PSProvider Registry -Root HKEY_USERS before this line)"},
		{"HKCR unmapped", `New-ItemProperty HKCR:\.txt a -Value 1 -PropertyType DWord`, "", "New-PSDrive -Name HKCR -PSProvider Registry -Root HKEY_CLASSES_ROOT"},
		{"HKCC unmapped", `Remove-ItemProperty HKCC:\X a`, "", "New-PSDrive -Name HKCC -PSProvider Registry -Root HKEY_CURRENT_CONFIG"},
		{"HKU mapped", "New-PSDrive -Name HKU -PSProvider Registry -Root HKEY_USERS | Out-Null\nsp HKU:\\.DEFAULT\\X a 1 -Type DWord", `HKU\.DEFAULT\X`, ""},
		{"mapped after use", "sp HKU:\\.DEFAULT\\X a 1 -Type DWord\nNew-PSDrive HKU Registry HKEY_USERS", "", "no drive HKU:"},
		{"positional, quoted", "New-PSDrive 'HKCR' \"Registry\" 'HKEY_CLASSES_ROOT'\nsp HKCR:\\.txt a 1 -Type DWord", `HKCR\.txt`, ""},
		{"named in any order", "ndr -PSProvider Registry -Root HKEY_CLASSES_ROOT -Scope Global -Name HKCR\nsp HKCR:\\.txt a 1 -Type DWord", `HKCR\.txt`, ""},
		{"assigned", "$null = (New-PSDrive -PSProvider Registry -Name HKU -Root HKEY_USERS)\nsp HKU:\\S-1-5-18\\X a 1 -Type DWord", `HKU\S-1-5-18\X`, ""},
		{"in an if", "if (!(Test-Path 'HKU:\\')) { New-PSDrive -PSProvider Registry -Name HKU -Root HKEY_USERS | Out-Null }\nsp HKU:\\.DEFAULT\\X a 1 -Type DWord", `HKU\.DEFAULT\X`, ""},
		{"short root", "New-PSDrive -Name U -PSProvider Registry -Root HKU\nsp U:\\.DEFAULT\\X a 1 -Type DWord", `HKU\.DEFAULT\X`, ""},
		{"provider root", "New-PSDrive -Name U -PSProvider Microsoft.PowerShell.Core\\Registry -Root Registry::HKEY_USERS\\.DEFAULT\nsp U:\\X a 1 -Type DWord", `HKU\.DEFAULT\X`, ""},
		{"any name, a key below a drive", "New-PSDrive -Name Pol -PSProvider Registry -Root HKLM:\\SOFTWARE\\Policies\nsp Pol:\\Microsoft\\X a 1 -Type DWord", `HKLM\SOFTWARE\Policies\Microsoft\X`, ""},
		{"HKU named otherwise", "New-PSDrive -Name Users -PSProvider Registry -Root HKEY_USERS\nsp HKU:\\.DEFAULT\\X a 1 -Type DWord", "", "no drive HKU:"},
		{"a file drive", "New-PSDrive -Name HKU -PSProvider FileSystem -Root C:\\\nsp HKU:\\X a 1 -Type DWord", "", "no drive HKU:"},
		{"removed", "New-PSDrive HKU Registry HKEY_USERS\nRemove-PSDrive HKU\nsp HKU:\\X a 1 -Type DWord", "", "no drive HKU:"},
		{"arguments not bound", "New-PSDrive HKU Registry HKEY_USERS Users\nsp HKU:\\X a 1 -Type DWord", "", "latlab does not read the New-PSDrive of line 1 (its arguments, or a name or root only the running script knows): skipped"},
		{"a name only the script knows", "New-PSDrive -Name $n -PSProvider Registry -Root HKEY_USERS\nsp HKU:\\X a 1 -Type DWord", "", "latlab does not read the New-PSDrive of line 1"},
		{"a drive of another name", "sp Users:\\X a 1 -Type DWord", "", "is no registry path"},
		{"Registry:: needs no drive", `sp Registry::HKEY_CLASSES_ROOT\.txt a 1 -Type DWord`, `HKCR\.txt`, ""},
		{"provider path", `sp Microsoft.PowerShell.Core\Registry::HKCC\X a 1 -Type DWord`, `HKCC\X`, ""},
	} {
		f := readPS(t, c.script)
		got := ""
		for _, s := range f.Sections {
			got = s.Path
		}
		if got != c.path {
			t.Errorf("%s: key %q, want %q (notes %q)", c.name, got, c.path, f.Notes)
		}
		notes := strings.Join(f.Notes, " | ")
		if c.note == "" && notes != "" || !strings.Contains(notes, c.note) {
			t.Errorf("%s: notes %q, want %q", c.name, notes, c.note)
		}
	}
}

// A drive lives in the scope New-PSDrive makes it in: a function's or a
// script block's own unless -Scope says Global or Script, gone when that
// ends. Where how a block runs is the script's to say (dot-sourcing, a
// stored script block, a -Scope counted from a caller), the command is
// skipped with a note that says so, neither read nor refused.
func TestPowerShellDriveScopes(t *testing.T) {
	const mapHKU = "New-PSDrive -Name HKU -PSProvider Registry -Root HKEY_USERS"
	const use = "sp HKU:\\X a 1 -Type DWord"
	const gone = "no drive HKU: here: the New-PSDrive of line "
	const maybe = "the drive HKU: may not exist here"
	for _, c := range []struct {
		name   string
		script string
		paths  []string // the keys written, in order
		note   string   // in the notes; "" for none
	}{
		{"function, used after", "function Map {\n  " + mapHKU + "\n}\nMap\n" + use, nil,
			gone + "2 maps HKU: within the function Map (line 1), and without -Scope Global or Script the drive goes when the function returns: PowerShell fails the command, so it is not written"},
		{"function, used within", "function Set-Tweak {\n  " + mapHKU + "\n  " + use + "\n}\nSet-Tweak", []string{`HKU\X`}, ""},
		{"within, then after", "function F {\n  if ($true) { " + mapHKU + " }\n  " + use + "\n}\nF\nsp HKU:\\Y a 1 -Type DWord", []string{`HKU\X`}, gone + "2 maps HKU: within the function F"},
		{"brace on the next line", "function F\n{\n  " + mapHKU + "\n}\nF\n" + use, nil, gone + "3 maps HKU: within the function F (line 1)"},
		{"parameters and scope prefix", "function global:F($x) { " + mapHKU + " }\nF 1\n" + use, nil, "within the function F (line 1)"},
		{"filter", "filter F { " + mapHKU + " }\n" + use, nil, "within the function F"},
		{"-Scope Global", "function F { " + mapHKU + " -Scope Global }\nF\n" + use, []string{`HKU\X`}, ""},
		{"-Scope script, any case", "function F { " + mapHKU + " -Scope script }\nF\n" + use, []string{`HKU\X`}, ""},
		{"-Scope Local", "function F { " + mapHKU + " -Scope Local }\nF\n" + use, nil, gone},
		{"-Scope Private", "function F { " + mapHKU + " -Scope Private }\nF\n" + use, nil, gone},
		{"-Scope 0", "function F { " + mapHKU + " -Scope 0 }\nF\n" + use, nil, gone},
		{"-Scope 1 in a function", "function F { " + mapHKU + " -Scope 1 }\nF\n" + use, nil,
			maybe + ": the New-PSDrive of line 1 maps HKU: with -Scope 1, a scope that depends on where the function F (line 1) is called from: skipped"},
		{"-Scope 1 in & { }", "& { " + mapHKU + " -Scope 1 }\n" + use, []string{`HKU\X`}, ""},
		{"-Scope of a variable", "function F { " + mapHKU + " -Scope $s }\nF\n" + use, nil, "with a -Scope only the running script knows"},
		{"-Scope of a variable at the top", mapHKU + " -Scope $s\n" + use, []string{`HKU\X`}, ""},
		{"-Scope PowerShell refuses", mapHKU + " -Scope Parent\n" + use, nil, "no drive HKU: (PowerShell has HKLM: and HKCU: alone"},
		{"-Persist", mapHKU + " -Persist\n" + use, nil,
			"no drive HKU: here: the New-PSDrive of line 1 maps no HKU: (PowerShell takes -Persist for FileSystem drives only and refuses the command): PowerShell fails the command, so it is not written"},
		{"-Persist -Scope Global in a function", "function F { " + mapHKU + " -Persist -Scope Global }\nF\n" + use, nil, "takes -Persist for FileSystem drives only"},
		{"dot-sourced", "function Map { " + mapHKU + " }\n. Map\n" + use, nil,
			maybe + ": the New-PSDrive of line 1 maps HKU: within the function Map (line 1), which the script dot-sources on line 2 (. Map runs it in the caller's scope, where the drive stays); called otherwise it goes when the function returns: skipped"},
		{"dot-sourced below", "function map { " + mapHKU + " }\n" + use + "\n. Map", nil, "which the script dot-sources on line 3"},
		{"& { }", "& { " + mapHKU + " }\n" + use, nil, gone + "1 maps HKU: within the script block of line 1, run in a scope of its own, and without -Scope Global or Script the drive goes when the block ends"},
		{"& { } on its lines", "&{\n" + mapHKU + "\n" + use + "\n}\n" + use, []string{`HKU\X`}, gone + "2 maps HKU:"},
		{". { }", ". { " + mapHKU + " }\n" + use, []string{`HKU\X`}, ""},
		{".{ }", ".{ " + mapHKU + " }\n" + use, []string{`HKU\X`}, ""},
		{"trap", "trap { " + mapHKU + "; continue }\n" + use, nil, gone + "1 maps HKU: within the script block of line 1, run in a scope of its own"},
		{"stored script block", "$sb = { " + mapHKU + " }\n& $sb\n" + use, nil,
			maybe + ": the New-PSDrive of line 1 maps HKU: within the script block of line 1, which the script stores or hands to a command: whether the drive outlives it depends on how that runs it: skipped"},
		{"Invoke-Command", "Invoke-Command -ScriptBlock {\n" + mapHKU + "\n}\n" + use, nil, "which the script stores or hands to a command"},
		{"if, else, try, loops", "if ($a) {\n} else {\n" + mapHKU + "\n}\ntry { " + use + " } catch { }\nforeach ($i in 1..2) { sp HKU:\\Y a 1 -Type DWord }", []string{`HKU\X`, `HKU\Y`}, ""},
		{"else on its own line", "if ($a) { }\nelse\n{\n" + mapHKU + "\n}\n" + use, []string{`HKU\X`}, ""},
		{"switch clauses", "switch ($x) {\n  'a' { " + mapHKU + " }\n  default { }\n}\n" + use, []string{`HKU\X`}, ""},
		{"ForEach-Object", "1 | ForEach-Object { " + mapHKU + " }\n" + use, []string{`HKU\X`}, ""},
		{"ForEach-Object -Parallel", "1 | ForEach-Object -Parallel { " + mapHKU + " }\n" + use, nil, gone + "1 maps HKU: within the script block of line 1, run in a scope of its own"},
		{"in another function", "function Map { " + mapHKU + " }\nfunction Apply { " + use + " }\nMap\nApply", nil,
			maybe + ": the New-PSDrive of line 1 maps HKU: within the function Map (line 1), and without -Scope Global or Script the drive goes when the function returns, but this line is in the function Apply (line 2), which sees it if called from there: skipped"},
		{"-Scope of a variable in & { }", "& { " + mapHKU + " -Scope $s }\n" + use, nil,
			maybe + ": the New-PSDrive of line 1 maps HKU: with a -Scope only the running script knows: skipped"},
		{"-Scope 2 through & { } in a function", "function F { & { " + mapHKU + " -Scope 2 } }\nF\n" + use, nil,
			"with -Scope 2, a scope that depends on where the function F (line 1) is called from"},
		{"a file drive of the name in a function", "function G { " + use + " }\nNew-PSDrive HKU FileSystem C:\\\nG", nil,
			"no drive HKU: (PowerShell has HKLM: and HKCU: alone"},
		{"a function above the mapping", "function Apply { " + use + " }\n" + mapHKU + "\nApply", nil,
			"the drive HKU: may exist here: this line is in the function Apply (line 1), which runs where it is called, and the New-PSDrive of line 2 maps it: skipped"},
		{"a name of its own", "function F { New-PSDrive Pol Registry HKLM:\\SOFTWARE\\Policies }\nF\nsp Pol:\\X a 1 -Type DWord", nil, "no drive POL: here: the New-PSDrive of line 1 maps POL: within the function F"},
		{"a name of its own before its mapping", "sp Pol:\\X a 1 -Type DWord\nNew-PSDrive Pol Registry HKLM:\\SOFTWARE\\Policies", nil, "no drive POL: on this line (the script's New-PSDrive of line 2 does not map it here)"},
		{"the script's drive comes back", mapHKU + "\nfunction F { New-PSDrive HKU Registry HKLM:\\SOFTWARE; sp HKU:\\Y a 1 -Type DWord }\n" + use, []string{`HKLM\SOFTWARE\Y`, `HKU\X`}, ""},
		{"mapped twice in one scope: the first stays", "New-PSDrive P Registry HKLM:\\A\nNew-PSDrive P Registry HKLM:\\B\nsp P:\\X a 1 -Type DWord", []string{`HKLM\A\X`}, ""},
		{"mapped again after the function", "function F { " + mapHKU + " }\nF\n" + mapHKU + "\n" + use, []string{`HKU\X`}, ""},
		{"assigned in a function", "function F { $null = New-PSDrive HKU Registry HKEY_USERS }\nF\n" + use, nil, gone + "1 maps HKU: within the function F"},
	} {
		f := readPS(t, c.script)
		var got []string
		for _, s := range f.Sections {
			got = append(got, s.Path)
		}
		if strings.Join(got, "|") != strings.Join(c.paths, "|") {
			t.Errorf("%s: keys %q, want %q (notes %q)", c.name, got, c.paths, f.Notes)
		}
		notes := strings.Join(f.Notes, " | ")
		if c.note == "" && notes != "" || !strings.Contains(notes, c.note) {
			t.Errorf("%s: notes %q, want %q", c.name, notes, c.note)
		}
	}
}

// A string piped into reg.exe from PowerShell is a line of its input: y
// or yes answers its question yes, n or no answers no, as in a batch
// file; anything else leaves it open.
func TestPowerShellRegAnswered(t *testing.T) {
	for _, c := range []struct{ script, want string }{
		{`echo y | reg add HKCU\X /v a /t REG_DWORD /d 1`, "yes"},
		{`'Y' | reg.exe add 'HKCU\X' /v a /d 1`, "yes"},
		{`Write-Output yes | & reg add HKCU\X /v a /d 1 | Out-Null`, "yes"},
		{`"yes" | reg delete HKCU\X /v a`, "yes"},
		{`echo n | reg add HKCU\X /v a /d 1`, "newonly"},
		{`write 'No' | reg add HKCU\X /v a /d 1`, "newonly"},
		{`echo n | reg delete HKCU\X /v a`, "none"},
		{`'n' | reg delete HKCU\X`, "none"},
		{`echo n | reg add HKCU\X /v a /d 1 /f`, "yes"},
		{`echo $a | reg add HKCU\X /v a /d 1`, "asks"},
		{`echo y, y | reg add HKCU\X /v a /d 1`, "asks"},
		{`Get-Content y.txt | reg add HKCU\X /v a /d 1`, "asks"},
		{`Write-Host y | reg add HKCU\X /v a /d 1`, "asks"},
		{`echo y; reg add HKCU\X /v a /d 1`, "asks"},
		{"echo y\nreg add HKCU\\X /v a /d 1", "asks"},
		{`y | reg add HKCU\X /v a /d 1`, "asks"},
	} {
		f := readPS(t, c.script)
		got := "none"
		if len(f.Sections) > 0 {
			got = "yes"
			s := f.Sections[len(f.Sections)-1]
			if s.Asks {
				got = "asks"
			}
			for _, v := range s.Values {
				switch {
				case v.Asks:
					got = "asks"
				case v.NewOnly && v.AnsweredNo:
					got = "newonly"
				}
			}
			if len(f.Notes) != 0 {
				t.Errorf("%s: notes %q", c.script, f.Notes)
			}
		} else if len(f.Notes) != 1 || !strings.Contains(f.Notes[0], "line 1: reg delete answered no (") {
			t.Errorf("%s: notes %q, want one saying nothing is deleted", c.script, f.Notes)
		}
		if got != c.want {
			t.Errorf("%s: %s, want %s", c.script, got, c.want)
		}
	}
}

// A { } that starts a statement is a script block PowerShell makes and
// does not run: its commands are not read, and a note names the first
// registry command within. A { } that ends a statement (function F,
// $sb =, a switch clause) is read as before.
func TestPowerShellBareBlock(t *testing.T) {
	const set = "sp HKCU:\\X a 1 -Type DWord"
	const notRun = "line 1: the script block { } of this line is a statement of its own, which PowerShell makes and does not run: its registry commands (line %d on) are not run, so not read"
	for _, c := range []struct {
		name   string
		script string
		paths  []string
		note   string // "" for none
	}{
		{"one line", "{ " + set + " }", nil, fmt.Sprintf(notRun, 1)},
		{"on its lines", "{\n  Write-Host x\n  " + set + "\n}\n" + set, []string{`HKCU\X`}, fmt.Sprintf(notRun, 3)},
		{"nested", "{ & { " + set + " } }", nil, fmt.Sprintf(notRun, 1)},
		{"no registry command", "{ Write-Host hi }", nil, ""},
		{"reg.exe", "{ reg add HKCU\\X /v a /d 1 /f }", nil, fmt.Sprintf(notRun, 1)},
		{"a drive it would map", "{ New-PSDrive P Registry HKLM:\\A }\nsp P:\\X a 1", nil, "no drive P: on this line"},
		{"a method called on it", "{ " + set + " }.Invoke()", nil, "a value whose method (.Invoke() and the like) the script calls, which latlab does not follow: its registry commands (line 1 on) are not read: skipped"},
		{"& { }", "& { " + set + " }", []string{`HKCU\X`}, ""},
		{". { }", ". { " + set + " }", []string{`HKCU\X`}, ""},
		{"stored, { on the next line", "$sb =\n{ " + set + " }", []string{`HKCU\X`}, ""},
		{"function, { on the next line", "function F\n{ " + set + " }\nF", []string{`HKCU\X`}, ""},
		{"if, { on the next line", "if ($a)\n{ " + set + " }", []string{`HKCU\X`}, ""},
		// Sycnex/Windows10Debloater Windows10Debloater.ps1 line 687,
		// "If(Test-Path $layoutFile)", { on the next line; and
		// simeononsecurity/Windows-Optimize-Harden-Debloat
		// .../PSWindowsUpdate/Update-WUModule.ps1 lines 74 and 128
		{"If(, { on the next line", "If(Test-Path $a)\n{ " + set + " }", []string{`HKCU\X`}, ""},
		{"ForEach(, { on the next line", "ForEach($c in $d)\n{ " + set + " }", []string{`HKCU\X`}, ""},
		{"while(, { on the next line", "while($a)\n{ " + set + " }", []string{`HKCU\X`}, ""},
		// farag2/Sophia-Script-for-Windows, Sophia_Script_for_Windows_10
		// Module/Sophia.psm1 lines 10865-10870: if, then its condition
		// on lines of its own, then {
		{"if, its condition below", "if\n(\n  ($a -eq 1) -or\n  (-not $b)\n)\n{\n  " + set + "\n}", []string{`HKCU\X`}, ""},
		{"a command, then ( and {", "Write-Host\n($a)\n{ " + set + " }", nil, "line 3: the script block"},
		{"class, { on the next line", "class C\n{\n  [void] M() { " + set + " }\n}", []string{`HKCU\X`}, ""},
		{"switch clause conditions", "switch ($x) {\n  { $_ -gt 1 } { " + set + " }\n}", []string{`HKCU\X`}, ""},
	} {
		f := readPS(t, c.script)
		var got []string
		for _, s := range f.Sections {
			got = append(got, s.Path)
		}
		if strings.Join(got, "|") != strings.Join(c.paths, "|") {
			t.Errorf("%s: keys %q, want %q (notes %q)", c.name, got, c.paths, f.Notes)
		}
		notes := strings.Join(f.Notes, " | ")
		if c.note == "" && notes != "" || !strings.Contains(notes, c.note) {
			t.Errorf("%s: notes %q, want %q", c.name, notes, c.note)
		}
	}
}

// param(...) ends its statement: a command after it on the same line is
// read, whatever stands between (blanks, line ends, attributes).
func TestPowerShellParamBlock(t *testing.T) {
	for _, c := range []struct {
		script string
		lines  []int // the lines of the values read
		other  int
	}{
		{"param($x) Set-ItemProperty HKCU:\\X a 1 -Type DWord", []int{1}, 0},
		{"Param ( [int]$n = 1 ); sp HKCU:\\X a 1 -Type DWord", []int{1}, 0},
		{"[CmdletBinding()]param(\n  $a\n) sp HKCU:\\X a 1 -Type DWord\nsp HKCU:\\X b 1 -Type DWord", []int{3, 4}, 0},
		{"[CmdletBinding()] param\n(\n  $a\n) sp HKCU:\\X a 1 -Type DWord", []int{4}, 0},
		{"function F { param([string]$p = 'a,b') sp HKCU:\\X a 1 -Type DWord }\nF", []int{1}, 1},
		{"Write-Host param (1) sp HKCU:\\X a 1", nil, 1},
	} {
		f := readPS(t, c.script)
		var got []int
		for _, r := range psRows(f) {
			got = append(got, r.line)
		}
		if fmt.Sprint(got) != fmt.Sprint(c.lines) || f.Other != c.other || len(f.Notes) != 0 {
			t.Errorf("%q: lines %v other %d notes %q, want %v other %d", c.script, got, f.Other, f.Notes, c.lines, c.other)
		}
	}
}

// Remove-PSDrive removes the drive of the name a path finds, the
// innermost (PowerShell's own HKLM: too), or with -Scope the one made in
// that scope: a path on a name left without a drive is not written, and
// the note names the Remove-PSDrive. One within a function, for a drive
// made outside it, removes it wherever the function is called.
func TestPowerShellRemoveDrive(t *testing.T) {
	const mapHKU = "New-PSDrive -Name HKU -PSProvider Registry -Root HKEY_USERS\n"
	const use = "sp HKU:\\X a 1 -Type DWord"
	const gone = "no drive HKU: here: the Remove-PSDrive of line 2 removes it (the New-PSDrive of line 1 mapped it): PowerShell fails the command, so it is not written"
	for _, c := range []struct {
		name   string
		script string
		paths  []string
		note   string
	}{
		{"by name", mapHKU + "Remove-PSDrive HKU\n" + use, nil, gone},
		{"by alias, -LiteralName", mapHKU + "rdr -LiteralName hku -Force\n" + use, nil, gone},
		{"-Scope Script at the top", mapHKU + "Remove-PSDrive -Name HKU -Scope Script\n" + use, nil, gone},
		{"-Scope Local at the top", mapHKU + "Remove-PSDrive -Name HKU -Scope Local\n" + use, nil, gone},
		{"-Scope Global: none there", mapHKU + "Remove-PSDrive -Name HKU -Scope Global\n" + use, []string{`HKU\X`}, ""},
		{"-Scope 1 from & { }", mapHKU + "& { Remove-PSDrive HKU -Scope 1 }\n" + use, nil, "the Remove-PSDrive of line 2 removes it"},
		{"-Scope 0 in & { }: none there", mapHKU + "& { Remove-PSDrive HKU -Scope 0 }\n" + use, []string{`HKU\X`}, ""},
		{"from & { }, the innermost", mapHKU + "& { Remove-PSDrive HKU }\n" + use, nil, "the Remove-PSDrive of line 2 removes it"},
		{"the innermost, then the one around", mapHKU + "function F { New-PSDrive HKU Registry HKLM:\\A; Remove-PSDrive HKU; " + use + " }\nF",
			[]string{`HKU\X`}, ""},
		{"with -Scope, the one made there", mapHKU + "New-PSDrive HKU Registry HKLM:\\A -Scope Global\n" + use + "\nRemove-PSDrive HKU -Scope Global\n" + use + "\nRemove-PSDrive HKU\n" + use,
			[]string{`HKU\X`, `HKU\X`}, "line 7: Set-ItemProperty: no drive HKU: here: the Remove-PSDrive of line 6 removes it"},
		{"wildcards", mapHKU + "Remove-PSDrive HK*\nsp HKLM:\\X a 1 -Type DWord\n" + use, nil,
			"line 3: Set-ItemProperty: no drive HKLM: here: the Remove-PSDrive of line 2 removes it (PowerShell's own)"},
		{"a list", mapHKU + "Remove-PSDrive HKU, HKCR\n" + use, nil, gone},
		{"PowerShell's own", "Remove-PSDrive HKCU\nsp HKCU:\\X a 1 -Type DWord\nsp HKLM:\\X a 1 -Type DWord", []string{`HKLM\X`},
			"line 2: Set-ItemProperty: no drive HKCU: here: the Remove-PSDrive of line 1 removes it (PowerShell's own)"},
		{"mapped again", mapHKU + "Remove-PSDrive HKU\n" + mapHKU + use, []string{`HKU\X`}, ""},
		{"another provider", mapHKU + "Remove-PSDrive HKU -PSProvider FileSystem\n" + use, []string{`HKU\X`}, ""},
		{"a name the script does not map", "Remove-PSDrive Q\nsp HKLM:\\X a 1 -Type DWord", []string{`HKLM\X`}, ""},
		{"in a function, where it is called", mapHKU + "function F { Remove-PSDrive HKU }\n" + use + "\nF\n" + use, []string{`HKU\X`},
			"line 5: Set-ItemProperty: no drive HKU: here: the Remove-PSDrive of line 2, in the function F, run by the call on line 4, removes it (the New-PSDrive of line 1 mapped it)"},
		{"in a function, its lines below", mapHKU + "function F {\n  Remove-PSDrive HKU\n  " + use + "\n}\n" + use, []string{`HKU\X`},
			"line 4: Set-ItemProperty: no drive HKU: here: the Remove-PSDrive of line 3 removes it (the New-PSDrive of line 1 mapped it): PowerShell fails the command, so it is not written"},
		{"in a function another calls", mapHKU + "function F { rdr HKU }\nfunction G { F }\n" + use + "\n& G\n" + use, []string{`HKU\X`},
			"line 6: Set-ItemProperty: no drive HKU: here: the Remove-PSDrive of line 2, in the function F, run by the call on line 5, removes it"},
		{"in a function dot-sourced", mapHKU + "function F { Remove-PSDrive HKU }\n. F\n" + use, nil, "run by the call on line 3, removes it"},
		{"in a function never called", mapHKU + "function F { Remove-PSDrive HKU }\n" + use, []string{`HKU\X`}, ""},
		{"in a stored script block", mapHKU + "$sb = { Remove-PSDrive HKU }\n" + use, nil,
			"the drive HKU: may not exist here, or not be the one it seems: the Remove-PSDrive of line 2, within the script block of line 2, removes it wherever that runs: skipped"},
		{"a name only the script knows", mapHKU + "Remove-PSDrive $d\n" + use, nil,
			"the Remove-PSDrive of line 2 removes a drive only the running script names: skipped"},
		{"a -Scope only the script knows", mapHKU + "Remove-PSDrive HKU -Scope $s\n" + use, nil,
			"the Remove-PSDrive of line 2 may remove it, with a -Scope only the running script knows: skipped"},
		{"-Scope PowerShell refuses", mapHKU + "Remove-PSDrive HKU -Scope 2\n" + use, []string{`HKU\X`}, ""},
	} {
		f := readPS(t, c.script)
		var got []string
		for _, s := range f.Sections {
			got = append(got, s.Path)
		}
		if strings.Join(got, "|") != strings.Join(c.paths, "|") {
			t.Errorf("%s: keys %q, want %q (notes %q)", c.name, got, c.paths, f.Notes)
		}
		notes := strings.Join(f.Notes, " | ")
		if c.note == "" && notes != "" || !strings.Contains(notes, c.note) {
			t.Errorf("%s: notes %q, want %q", c.name, notes, c.note)
		}
	}
}

// A drive of a name the global scope has (HKLM, HKCU, Env...) can be
// made in any other scope, where it hides the global one until that
// scope ends; in the global scope New-PSDrive fails. A Private drive is
// the current scope's, and is found from the scopes below it as any
// other: drives have no Private option.
func TestPowerShellHideDrive(t *testing.T) {
	const hide = "New-PSDrive -Name HKLM -PSProvider Registry -Root HKLM:\\SOFTWARE\\Policies"
	const use = "sp HKLM:\\X a 1 -Type DWord"
	for _, c := range []struct {
		name   string
		script string
		paths  []string
		note   string
	}{
		{"in a function", "function F {\n  " + hide + "\n  " + use + "\n}\nF\n" + use, []string{`HKLM\SOFTWARE\Policies\X`, `HKLM\X`}, ""},
		{"in & { }", "& { " + hide + "; " + use + " }\n" + use, []string{`HKLM\SOFTWARE\Policies\X`, `HKLM\X`}, ""},
		{"at the script's top", hide + "\n" + use, []string{`HKLM\SOFTWARE\Policies\X`}, ""},
		{"-Scope Script in a function", "function F { " + hide + " -Scope Script }\nF\n" + use, []string{`HKLM\SOFTWARE\Policies\X`}, ""},
		{"-Scope Global fails", hide + " -Scope Global\n" + use, []string{`HKLM\X`}, ""},
		{"-Scope 1 at the top: the global scope", hide + " -Scope 1\n" + use, []string{`HKLM\X`}, ""},
		{"HKCU", "function F { New-PSDrive HKCU Registry HKEY_USERS\\.DEFAULT; sp HKCU:\\X a 1 -Type DWord }\nF", []string{`HKU\.DEFAULT\X`}, ""},
		{"Env", "function F { New-PSDrive Env Registry HKLM:\\SOFTWARE; sp Env:\\X a 1 -Type DWord }\nF\nsp Env:\\X a 1 -Type DWord",
			[]string{`HKLM\SOFTWARE\X`}, `"Env:\\X" is no registry path latlab reads`},
		{"Env in the global scope fails", "New-PSDrive Env Registry HKLM:\\SOFTWARE -Scope Global\nsp Env:\\X a 1 -Type DWord", nil, `"Env:\\X" is no registry path latlab reads`},
		{"a -Scope only the script knows", hide + " -Scope $s\n" + use, nil,
			"the drive HKLM: may not exist here, or not be the one it seems: the New-PSDrive of line 1 maps HKLM: with a -Scope only the running script knows: PowerShell refuses it in the global scope, which has a drive HKLM:, and elsewhere the new drive hides that one: skipped"},
		{"a disk's letter in the global scope", "New-PSDrive C Registry HKLM:\\SOFTWARE -Scope Global\nsp C:\\X a 1 -Type DWord", nil,
			"the New-PSDrive of line 1 maps C: in the global scope, which has a drive C: on some machines or versions of PowerShell, where the command fails: skipped"},
		{"a disk's letter in the script's scope", "New-PSDrive C Registry HKLM:\\SOFTWARE\nsp C:\\X a 1 -Type DWord", []string{`HKLM\SOFTWARE\X`}, ""},
		{"a function's line, called from within the scope", "function Apply { " + use + " }\nfunction F { " + hide + "; Apply }\nF", nil,
			"line 1: Set-ItemProperty: the drive HKLM: may be another here: this line is in the function Apply (line 1), which runs where it is called, and the New-PSDrive of line 2 maps a drive of that name, which hides PowerShell's own in its scope: skipped"},
		{"-Scope Private, seen by a function it calls", "New-PSDrive HKU Registry HKEY_USERS -Scope Private\nfunction F { sp HKU:\\X a 1 -Type DWord }\nF",
			[]string{`HKU\X`}, ""},
		{"-Scope Private in & { }, seen by the function it calls", "function F { sp HKU:\\X a 1 -Type DWord }\n& {\n  New-PSDrive HKU Registry HKEY_USERS -Scope Private\n  F\n}", nil,
			"the drive HKU: may exist here: this line is in the function F (line 1)"},
	} {
		f := readPS(t, c.script)
		var got []string
		for _, s := range f.Sections {
			got = append(got, s.Path)
		}
		if strings.Join(got, "|") != strings.Join(c.paths, "|") {
			t.Errorf("%s: keys %q, want %q (notes %q)", c.name, got, c.paths, f.Notes)
		}
		notes := strings.Join(f.Notes, " | ")
		if c.note == "" && notes != "" || !strings.Contains(notes, c.note) {
			t.Errorf("%s: notes %q, want %q", c.name, notes, c.note)
		}
	}
}
