package timer

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"

	"golang.org/x/sys/windows"

	"github.com/latlab/latlab/internal/systool"
)

// WhoDefaultSeconds is the window Who is given by default on Windows:
// the length of the powercfg /energy trace.
const WhoDefaultSeconds = 10

func who(ctx context.Context, o WhoOptions) (*WhoResult, error) {
	res := &WhoResult{OS: "windows"}
	coarsest, finest, current, err := QueryResolution()
	if err != nil {
		return nil, err
	}
	res.Coarsest100ns, res.Finest100ns, res.Current100ns = coarsest, finest, current
	rep, err := runEnergy(ctx, o.Seconds)
	if err != nil {
		res.EnergyError = err.Error()
		return res, nil
	}
	res.Energy = rep
	return res, nil
}

// runEnergy traces with 'powercfg /energy' for seconds and reads the XML
// report it writes.
func runEnergy(ctx context.Context, seconds int) (*EnergyReport, error) {
	exe, err := systool.Path(systool.Powercfg) // System32's, never one on PATH
	if err != nil {
		return nil, err
	}
	if st, err := os.Stat(exe); err != nil || !st.Mode().IsRegular() {
		return nil, errors.New("powercfg.exe not found in the system directory: the requesters come from 'powercfg /energy', which this system lacks")
	}
	if !windows.GetCurrentProcessToken().IsElevated() {
		return nil, errors.New("'powercfg /energy' needs an elevated (Administrator) prompt: run latlab from one to see the requesters")
	}
	dir, err := os.MkdirTemp("", "latlab-timer-who-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	out := filepath.Join(dir, "energy.xml")
	seconds = max(seconds, 1)
	cmd := exec.CommandContext(ctx, exe, "/energy", "/xml", "/output", out, "/duration", strconv.Itoa(seconds))
	msg, runErr := cmd.CombinedOutput()
	// powercfg exits non-zero when its analysis finds errors, and still
	// writes the report: the report decides.
	f, err := os.Open(out)
	if err != nil {
		line := strings.TrimSpace(string(msg))
		if i := strings.IndexByte(line, '\n'); i >= 0 {
			line = strings.TrimSpace(line[:i])
		}
		return nil, fmt.Errorf("powercfg /energy wrote no report (%v): %s", runErr, line)
	}
	defer f.Close()
	rep, err := ParseEnergyReport(f)
	if err != nil {
		return nil, fmt.Errorf("powercfg /energy report: %w", err)
	}
	return rep, nil
}
