package knob

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
)

// GamingPCSetup's I225-V procedure ("Getting the RSS Indirection Table to
// Populate") first makes sure that RSS and TaskOffload are enabled on the
// Windows side (netsh int ip show global, or Get-NetOffloadGlobalSetting)
// before it adds the adapter's RSS keys. The global TaskOffload state is
// the TaskOffload property of MSFT_NetOffloadGlobalSetting
// (root/StandardCimv2), the class behind Get-NetOffloadGlobalSetting:
// an EnabledDisabledEnum, Disabled 0 and Enabled 1 (Microsoft,
// Set-NetOffloadGlobalSetting: "-TaskOffload <EnabledDisabledEnum>
// {Disabled | Enabled}"). It is read as JSON, whose names and numbers are
// the same in every display language; netsh's labels are not.

// TaskOffloadScript prints the global TaskOffload state as JSON.
const TaskOffloadScript = `Get-CimInstance -Namespace root/StandardCimv2 -ClassName MSFT_NetOffloadGlobalSetting -ErrorAction Stop | Select-Object TaskOffload | ConvertTo-Json -Compress`

// maxTaskOffloadOutput bounds what ParseTaskOffload reads.
const maxTaskOffloadOutput = 64 << 10

// ParseTaskOffload reads TaskOffloadScript's output: one JSON object (or
// an array of one) with a TaskOffload number. It returns "enabled",
// "disabled" or the number when it is neither.
func ParseTaskOffload(r io.Reader) (string, error) {
	b, err := io.ReadAll(io.LimitReader(r, maxTaskOffloadOutput))
	if err != nil {
		return "", fmt.Errorf("MSFT_NetOffloadGlobalSetting: %w", err)
	}
	b = bytes.TrimSpace(bytes.TrimPrefix(b, []byte("\ufeff")))
	type raw struct{ TaskOffload *json.Number }
	var one raw
	if len(b) > 0 && b[0] == '[' {
		var all []raw
		if err := json.Unmarshal(b, &all); err != nil || len(all) != 1 {
			return "", fmt.Errorf("MSFT_NetOffloadGlobalSetting: want one JSON object, got %q", clip(string(b)))
		}
		one = all[0]
	} else if err := json.Unmarshal(b, &one); err != nil {
		return "", fmt.Errorf("MSFT_NetOffloadGlobalSetting: want a JSON object, got %q", clip(string(b)))
	}
	if one.TaskOffload == nil {
		return "", fmt.Errorf("MSFT_NetOffloadGlobalSetting: no TaskOffload in %q", clip(string(b)))
	}
	switch n := one.TaskOffload.String(); n {
	case "0":
		return "disabled", nil
	case "1":
		return "enabled", nil
	default:
		return clip(n), nil
	}
}

// taskOffloadNote starts the note of the global TaskOffload state.
const taskOffloadNote = "global TaskOffload (MSFT_NetOffloadGlobalSetting): "

// addTaskOffload notes the global TaskOffload state in an rss reading,
// with a warning when it is not enabled: GamingPCSetup's I225-V procedure
// enables it along with RSS before the indirection table can populate.
func addTaskOffload(env *Env, r *Reading) {
	if env.TaskOffload == nil {
		return
	}
	st, err := env.TaskOffload()
	if err != nil {
		r.Notes = append(r.Notes, "global TaskOffload not read: "+err.Error())
		return
	}
	r.Notes = append(r.Notes, taskOffloadNote+st)
	if st != "enabled" {
		r.Notes = append(r.Notes, "TaskOffload is not enabled: GamingPCSetup's I225-V procedure enables it with RSS before adding the adapter's RSS keys (Set-NetOffloadGlobalSetting -TaskOffload Enabled, or netsh int ip set global taskoffload=enabled)")
	}
}
