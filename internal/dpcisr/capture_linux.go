package dpcisr

// captureSupported: xperf and the NT kernel logger exist only on Windows.
func captureSupported() error {
	return inputf("dpcisr capture is Windows-only (it runs xperf, from the Windows Performance Toolkit); on Linux analyse a report copied from Windows with 'latlab dpcisr FILE'")
}

func checkElevated() error { return nil }
