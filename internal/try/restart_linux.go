package try

import "context"

// runCommand refuses: the adapter restarts try makes are Windows'
// (Restart-NetAdapter); Linux knobs of NICs take effect at once.
func runCommand(context.Context, []string) (string, error) { return "", errNoRestart }
