package knob

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

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
// which has none) and BitLocker's protection of the system drive from
// WMI's Win32_EncryptableVolume (ProtectionStatus 1 = on, 0 = off), which
// Windows editions without the BitLocker PowerShell module have too.
func bootSecurity() (BootSecurity, error) {
	var s BootSecurity
	if k, err := registry.OpenKey(registry.LOCAL_MACHINE, `SYSTEM\CurrentControlSet\Control\SecureBoot\State`, registry.QUERY_VALUE); err == nil {
		v, _, err := k.GetIntegerValue("UEFISecureBootEnabled")
		k.Close()
		s.SecureBoot = err == nil && v == 1
	}
	exe, err := systool.Path(systool.PowerShell)
	if err != nil {
		return s, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	const script = `(Get-CimInstance -Namespace root/cimv2/Security/MicrosoftVolumeEncryption -ClassName Win32_EncryptableVolume -ErrorAction Stop | Where-Object { $_.DriveLetter -eq $env:SystemDrive }).ProtectionStatus`
	out, err := exec.CommandContext(ctx, exe, "-NoProfile", "-NonInteractive", "-Command", script).Output()
	if err != nil {
		return s, fmt.Errorf("Win32_EncryptableVolume through PowerShell: %w", err)
	}
	switch st := strings.TrimSpace(string(out)); st {
	case "1":
		s.BitLocker = true
	case "0", "": // not protected, or not an encryptable volume
	default:
		return s, fmt.Errorf("Win32_EncryptableVolume ProtectionStatus %q of the system drive", st)
	}
	return s, nil
}
