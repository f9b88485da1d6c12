package systool

import (
	"fmt"
	"os"

	"golang.org/x/sys/windows"
	"golang.org/x/sys/windows/registry"
)

// Path is the full path of tool name: System32's for bcdedit, powercfg,
// powershell and netsh (GetSystemDirectory), the Windows Kits' for xperf.
func Path(name string) (string, error) {
	if name == Xperf {
		return XperfIn(kitsRoots(), isFile)
	}
	dir, err := windows.GetSystemDirectory()
	if err != nil {
		return "", fmt.Errorf("GetSystemDirectory: %w", err)
	}
	return InSystemDir(dir, name)
}

// Env is the environment to run tool name with: for PowerShell, this
// process's with PSModulePath limited to the system's module folder
// (PowerShellEnv); nil (this process's own) for the others.
func Env(name string) ([]string, error) {
	if name != PowerShell {
		return nil, nil
	}
	dir, err := windows.GetSystemDirectory()
	if err != nil {
		return nil, fmt.Errorf("GetSystemDirectory: %w", err)
	}
	return PowerShellEnv(os.Environ(), dir)
}

// kitsRoots reads the Windows Kits installed roots, newest kit first. The
// Kits' installer is 32-bit: its key lies in the 32-bit registry view.
func kitsRoots() []string {
	var out []string
	for _, view := range []uint32{registry.WOW64_32KEY, registry.WOW64_64KEY} {
		k, err := registry.OpenKey(registry.LOCAL_MACHINE, `SOFTWARE\Microsoft\Windows Kits\Installed Roots`, registry.QUERY_VALUE|view)
		if err != nil {
			continue
		}
		for _, v := range []string{"KitsRoot10", "KitsRoot81"} {
			if s, _, err := k.GetStringValue(v); err == nil && s != "" {
				out = append(out, s)
			}
		}
		k.Close()
	}
	return out
}

func isFile(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.Mode().IsRegular()
}
