package knob

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"golang.org/x/sys/windows"
	"golang.org/x/sys/windows/registry"

	"github.com/latlab/latlab/internal/knob/backend"
	"github.com/latlab/latlab/internal/systool"

	"github.com/latlab/latlab/internal/timer"
)

// HostOS is the OS latlab runs on: the knobs it can read and set.
const HostOS = "windows"

func newEnv(root string) *Env {
	v := windows.RtlGetVersion()
	e := &Env{
		Backends: map[string]backend.Backend{
			backend.BackendRegistry: backend.Registry{},
			backend.BackendBCD:      backend.NewBCD(),
		},
		Build:        v.BuildNumber,
		Server:       v.ProductType != 1, // VER_NT_WORKSTATION
		TickMs:       15.625,
		Display:      QueryDisplayPaths,
		RSSState:     ReadRSSState,
		TaskOffload:  ReadTaskOffload,
		BootSecurity: bootSecurity,
		Privileged: func() error {
			if !windows.GetCurrentProcessToken().IsElevated() {
				return errors.New("changing system settings needs an elevated prompt (Run as administrator); nothing was changed")
			}
			return nil
		},
	}
	// Quanta are counted against the longest clock interval (the default
	// tick), not the current resolution.
	if coarsest, _, _, err := timer.QueryResolution(); err == nil && coarsest > 0 {
		e.TickMs = float64(coarsest) / 1e4
	}
	return e
}

// DefaultStateDir is %ProgramData%\latlab.
func DefaultStateDir(root string) string {
	pd := os.Getenv("ProgramData")
	if pd == "" {
		pd = `C:\ProgramData`
	}
	return filepath.Join(pd, "latlab")
}

// bootSecurity reads Secure Boot's state from the registry
// (SecureBoot\State UEFISecureBootEnabled; absent on a legacy-BIOS boot,
// which has none) and BitLocker's protection of the system drive and its
// TPM protectors' validation profiles from WMI's Win32_EncryptableVolume
// (BitLockerScript), which Windows editions without the BitLocker
// PowerShell module have too.
func bootSecurity() (BootSecurity, error) {
	var s BootSecurity
	if k, err := registry.OpenKey(registry.LOCAL_MACHINE, `SYSTEM\CurrentControlSet\Control\SecureBoot\State`, registry.QUERY_VALUE|registry.WOW64_64KEY); err == nil {
		v, _, err := k.GetIntegerValue("UEFISecureBootEnabled")
		k.Close()
		s.SecureBoot = err == nil && v == 1
	}
	out, err := runTool(systool.PowerShell, "-NoProfile", "-NonInteractive", "-Command", BitLockerScript)
	if err != nil {
		return s, fmt.Errorf("Win32_EncryptableVolume through PowerShell: %w", err)
	}
	return s, ParseBitLocker(bytes.NewReader(out), &s)
}
