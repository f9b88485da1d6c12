package dpcisr

import "github.com/latlab/latlab/internal/badinput"

// captureSupported: xperf and the NT kernel logger exist only on Windows.
func captureSupported() error {
	return badinput.Errorf("dpcisr capture is Windows-only (it runs xperf, from the Windows Performance Toolkit); on Linux analyse a report copied from Windows with 'latlab dpcisr FILE'")
}

func checkElevated() error { return nil }
