package knob

import (
	"errors"
	"os"
	"path/filepath"

	"golang.org/x/sys/windows"

	"github.com/latlab/latlab/internal/timer"
)

// HostOS is the OS latlab runs on: the knobs it can read and set.
const HostOS = "windows"

func newEnv(root string) *Env {
	v := windows.RtlGetVersion()
	e := &Env{
		Backends: map[string]Backend{
			BackendRegistry: Registry{},
			BackendBCD:      NewBCD(),
		},
		Build:    v.BuildNumber,
		Server:   v.ProductType != 1, // VER_NT_WORKSTATION
		TickMs:   15.625,
		Display:  QueryDisplayPaths,
		RSSState: ReadRSSState,
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
