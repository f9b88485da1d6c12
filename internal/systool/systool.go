// Package systool finds the Windows tools latlab runs, often elevated
// (bcdedit, powercfg, powershell, netsh, xperf), where Windows and the
// Windows Kits install them, never through PATH: an elevated latlab that
// took the first bcdedit.exe on PATH would run whatever a user had put in
// a PATH folder the user can write.
package systool

import (
	"errors"
	"fmt"
	"strings"
)

// The tools, by the names latlab uses for them.
const (
	Bcdedit    = "bcdedit"
	Powercfg   = "powercfg"
	PowerShell = "powershell"
	Netsh      = "netsh"
	Xperf      = "xperf"
)

// inSystem32 is where each System32 tool lies under the system directory.
var inSystem32 = map[string]string{
	Bcdedit:    `bcdedit.exe`,
	Powercfg:   `powercfg.exe`,
	PowerShell: `WindowsPowerShell\v1.0\powershell.exe`,
	Netsh:      `netsh.exe`,
}

// ErrNotWindows is returned off Windows, where none of the tools exists.
var ErrNotWindows = errors.New("the Windows tools (bcdedit, powercfg, powershell, netsh, xperf) exist only on Windows")

// IsAbs reports whether p is an absolute Windows path: a drive letter, a
// colon and a backslash, or a UNC path.
func IsAbs(p string) bool {
	if strings.HasPrefix(p, `\\`) {
		return len(p) > 2
	}
	return len(p) >= 3 && (p[0]|0x20 >= 'a' && p[0]|0x20 <= 'z') && p[1] == ':' && (p[2] == '\\' || p[2] == '/')
}

// InSystemDir is the path of the System32 tool name under sysdir, the
// directory GetSystemDirectory returns.
func InSystemDir(sysdir, name string) (string, error) {
	rel, ok := inSystem32[name]
	if !ok {
		return "", fmt.Errorf("%q is not a System32 tool latlab runs", name)
	}
	if !IsAbs(sysdir) {
		return "", fmt.Errorf("the system directory %q is not an absolute path", sysdir)
	}
	return strings.TrimRight(sysdir, `\/`) + `\` + rel, nil
}

// xperfUnder is where the Windows Performance Toolkit puts xperf.exe
// under an installed Kits root.
const xperfUnder = `Windows Performance Toolkit\xperf.exe`

// XperfIn is xperf.exe under the first of the Windows Kits installed
// roots (the registry's KitsRoot10, then KitsRoot81) where exists finds it.
func XperfIn(roots []string, exists func(string) bool) (string, error) {
	var tried []string
	for _, r := range roots {
		if !IsAbs(r) {
			continue
		}
		p := strings.TrimRight(r, `\/`) + `\` + xperfUnder
		tried = append(tried, p)
		if exists(p) {
			return p, nil
		}
	}
	if len(tried) == 0 {
		return "", errors.New("xperf.exe not found: no Windows Kits installed root in the registry (HKLM\\SOFTWARE\\Microsoft\\Windows Kits\\Installed Roots): install the Windows Performance Toolkit (part of the Windows ADK and the Windows SDK) and run again")
	}
	return "", fmt.Errorf("xperf.exe not found in the Windows Kits (%s): install the Windows Performance Toolkit (part of the Windows ADK and the Windows SDK) and run again", strings.Join(tried, ", "))
}

// PowerShellEnv is the environment of a PowerShell latlab starts: environ
// with PSModulePath replaced by the one module folder Windows installs
// under the system directory sysdir (System32\WindowsPowerShell\v1.0\Modules,
// $PSHOME\Modules, which holds NetAdapter, NetTCPIP and CimCmdlets).
// -NoProfile still loads modules on first use through PSModulePath, whose
// first folder is in the user's Documents: an elevated latlab would
// otherwise run a module any program of the user could plant there.
// Administrators alone may write under the system directory. Environment
// names are case-insensitive on Windows: every spelling is dropped.
func PowerShellEnv(environ []string, sysdir string) ([]string, error) {
	if !IsAbs(sysdir) {
		return nil, fmt.Errorf("the system directory %q is not an absolute path", sysdir)
	}
	out := make([]string, 0, len(environ)+1)
	for _, kv := range environ {
		k, _, _ := strings.Cut(kv, "=")
		if strings.EqualFold(k, "PSModulePath") {
			continue
		}
		out = append(out, kv)
	}
	return append(out, "PSModulePath="+strings.TrimRight(sysdir, `\/`)+`\WindowsPowerShell\v1.0\Modules`), nil
}
