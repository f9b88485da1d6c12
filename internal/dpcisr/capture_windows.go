package dpcisr

import (
	"github.com/latlab/latlab/internal/badinput"
	"golang.org/x/sys/windows"
)

func captureSupported() error { return nil }

// checkElevated: a kernel trace needs an elevated token; say so before
// xperf fails with a less clear message.
func checkElevated() error {
	if windows.GetCurrentProcessToken().IsElevated() {
		return nil
	}
	return badinput.Errorf("dpcisr capture needs elevation: a kernel trace (xperf -on) requires an Administrator prompt; run latlab from one")
}
