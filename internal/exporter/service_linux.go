package exporter

// IsService is false: systemd runs the exporter as a plain process.
func IsService() bool { return false }

// InstallService is Windows only.
func InstallService(Service, string, []string) error { return ErrNoServiceManager }

// UninstallService is Windows only.
func UninstallService(Service) error { return ErrNoServiceManager }

// RunService is Windows only.
func RunService(string, RunFunc) error { return ErrNoServiceManager }

// PrepareInstall is Windows only.
func PrepareInstall(string, string) (string, string, error) { return "", "", ErrNoServiceManager }
