package dpcisr

import (
	"os"
	"path/filepath"

	"golang.org/x/sys/windows"
)

func captureSupported() error { return nil }

// xperfPaths are where the Windows Kits put xperf.exe.
func xperfPaths() []string {
	var out []string
	for _, env := range []string{"ProgramFiles(x86)", "ProgramFiles"} {
		if d := os.Getenv(env); d != "" {
			out = append(out, filepath.Join(d, "Windows Kits", "10", "Windows Performance Toolkit", "xperf.exe"))
		}
	}
	return out
}

// checkElevated: a kernel trace needs an elevated token; say so before
// xperf fails with a less clear message.
func checkElevated() error {
	if windows.GetCurrentProcessToken().IsElevated() {
		return nil
	}
	return inputf("dpcisr capture needs elevation: a kernel trace (xperf -on) requires an Administrator prompt; run latlab from one")
}
