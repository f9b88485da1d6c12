package systool

import (
	"strings"
	"testing"
)

// The tools are found under the system directory, whatever PATH says.
func TestInSystemDir(t *testing.T) {
	tests := []struct{ dir, name, want, err string }{
		{`C:\Windows\system32`, Bcdedit, `C:\Windows\system32\bcdedit.exe`, ""},
		{`C:\Windows\system32\`, Powercfg, `C:\Windows\system32\powercfg.exe`, ""},
		{`D:\WINDOWS\System32`, PowerShell, `D:\WINDOWS\System32\WindowsPowerShell\v1.0\powershell.exe`, ""},
		{`C:\Windows\system32`, Netsh, `C:\Windows\system32\netsh.exe`, ""},
		{`C:\Windows\system32`, Xperf, "", "not a System32 tool"},
		{`C:\Windows\system32`, "cmd", "", "not a System32 tool"},
		{`system32`, Bcdedit, "", "not an absolute path"},
		{``, Bcdedit, "", "not an absolute path"},
	}
	for _, tt := range tests {
		got, err := InSystemDir(tt.dir, tt.name)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("%s in %q: %q, %v; want error %q", tt.name, tt.dir, got, err, tt.err)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("%s in %q: %q, %v; want %q", tt.name, tt.dir, got, err, tt.want)
		}
	}
}

// xperf is taken from the Windows Kits' registered roots, the first that
// holds it; a relative root (a damaged value) is never used.
func TestXperfIn(t *testing.T) {
	have := map[string]bool{`C:\Program Files (x86)\Windows Kits\10\Windows Performance Toolkit\xperf.exe`: true}
	exists := func(p string) bool { return have[p] }
	got, err := XperfIn([]string{`Kits\10\`, `D:\Kits\8.1\`, `C:\Program Files (x86)\Windows Kits\10\`}, exists)
	if err != nil || got != `C:\Program Files (x86)\Windows Kits\10\Windows Performance Toolkit\xperf.exe` {
		t.Errorf("%q, %v", got, err)
	}
	if _, err := XperfIn(nil, exists); err == nil || !strings.Contains(err.Error(), "no Windows Kits installed root in the registry") {
		t.Errorf("no roots: %v", err)
	}
	if _, err := XperfIn([]string{`D:\Kits\8.1`}, exists); err == nil || !strings.Contains(err.Error(), `D:\Kits\8.1\Windows Performance Toolkit\xperf.exe`) {
		t.Errorf("missing: %v", err)
	}
}

func TestIsAbs(t *testing.T) {
	for p, want := range map[string]bool{`C:\x`: true, `c:/x`: true, `\\server\share\x`: true, `C:x`: false, `x\y`: false, `\x`: false, ``: false, `\\`: false} {
		if IsAbs(p) != want {
			t.Errorf("IsAbs(%q) = %v", p, !want)
		}
	}
}

// An elevated PowerShell gets the system's module folder alone: the
// user's Documents folder (first on the default PSModulePath), Program
// Files' and any other spelling of the name are gone.
func TestPowerShellEnv(t *testing.T) {
	env := []string{
		`PATH=C:\Windows\system32`,
		`PSModulePath=C:\Users\u\Documents\WindowsPowerShell\Modules;C:\Program Files\WindowsPowerShell\Modules;C:\Windows\system32\WindowsPowerShell\v1.0\Modules`,
		`psmodulepath=C:\Users\u\evil`,
		`USERPROFILE=C:\Users\u`,
	}
	got, err := PowerShellEnv(env, `C:\Windows\system32\`)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{`PATH=C:\Windows\system32`, `USERPROFILE=C:\Users\u`, `PSModulePath=C:\Windows\system32\WindowsPowerShell\v1.0\Modules`}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("environment\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if _, err := PowerShellEnv(env, `Windows\system32`); err == nil {
		t.Error("a relative system directory accepted")
	}
}
