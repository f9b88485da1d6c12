package knob

import (
	"bytes"
	"errors"

	"github.com/latlab/latlab/internal/systool"
	"github.com/latlab/latlab/internal/winapi"
)

// ReadTaskOffload reads the global TaskOffload state through PowerShell,
// run by its System32 path (runTool).
func ReadTaskOffload() (string, error) {
	if winapi.UnderWine() {
		// Wine's powershell.exe runs no script.
		return "", errors.New("MSFT_NetOffloadGlobalSetting: not available under Wine")
	}
	out, err := runTool(systool.PowerShell, "-NoProfile", "-NonInteractive", "-Command", TaskOffloadScript)
	if err != nil {
		return "", err
	}
	return ParseTaskOffload(bytes.NewReader(out))
}
