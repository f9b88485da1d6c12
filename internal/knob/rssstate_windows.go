package knob

import (
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"strings"
	"time"

	"github.com/latlab/latlab/internal/systool"
	"github.com/latlab/latlab/internal/winapi"
)

// rssCommandTimeout bounds each command; PowerShell takes seconds to start.
const rssCommandTimeout = 30 * time.Second

// ReadRSSState runs PowerShell by its System32 path (never through PATH)
// for MSFT_NetOffloadGlobalSetting and Get-NetAdapterRss and parses their
// output. A command that fails is said in Errors; the other's result
// stays.
func ReadRSSState() (*RSSState, error) {
	s := &RSSState{}
	if winapi.UnderWine() {
		// Wine's powershell.exe runs no script.
		s.Errors = append(s.Errors, "MSFT_NetOffloadGlobalSetting and Get-NetAdapterRss: not available under Wine")
		return s, nil
	}
	out, err := runTool(systool.PowerShell, "-NoProfile", "-NonInteractive", "-Command", OffloadGlobalScript)
	if err == nil {
		s.Offload, err = ParseOffloadGlobal(bytes.NewReader(out))
	}
	if err != nil {
		s.Errors = append(s.Errors, "MSFT_NetOffloadGlobalSetting: "+err.Error())
	}
	out, err = runTool(systool.PowerShell, "-NoProfile", "-NonInteractive", "-Command",
		// The module's own list view (BaseProcessor: [Group:Number] and the
		// indirection table as text), wide enough not to cut it.
		"Get-NetAdapterRss | Format-List | Out-String -Width 4096")
	if err == nil {
		s.Adapters, err = ParseNetAdapterRSS(bytes.NewReader(out))
	}
	if err != nil {
		s.Errors = append(s.Errors, "Get-NetAdapterRss: "+err.Error())
	}
	return s, nil
}

// runTool runs a System32 tool by its path (systool), never through PATH,
// PowerShell with only the system's module folder on PSModulePath.
func runTool(name string, args ...string) ([]byte, error) {
	exe, err := systool.Path(name)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), rssCommandTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, exe, args...)
	if cmd.Env, err = systool.Env(name); err != nil {
		return nil, err
	}
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &capped{&out, maxStateOutput}, &capped{&errOut, 4 << 10}
	if err := cmd.Run(); err != nil {
		msg := strings.Join(strings.Fields(errOut.String()), " ")
		if len(msg) > 200 {
			msg = msg[:200] + "..."
		}
		if msg != "" {
			return nil, fmt.Errorf("%w: %s", err, msg)
		}
		return nil, err
	}
	return out.Bytes(), nil
}

// capped keeps the first n bytes written and discards the rest.
type capped struct {
	b *bytes.Buffer
	n int
}

func (c *capped) Write(p []byte) (int, error) {
	if room := c.n - c.b.Len(); room > 0 {
		c.b.Write(p[:min(len(p), room)])
	}
	return len(p), nil
}
