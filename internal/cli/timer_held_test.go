package cli

import (
	"os"
	"testing"
)

const heldExitEnv = "LATLAB_TEST_HELD_EXIT"

// TestHeldExitHelper is not a test: run with heldExitEnv set, it is a
// command that exits with status 5.
func TestHeldExitHelper(t *testing.T) {
	if os.Getenv(heldExitEnv) != "1" {
		t.Skip("helper process only")
	}
	os.Exit(5)
}

// The command's exit status is latlab's, on both OSes.
func TestTimerSetCommandStatus(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv(heldExitEnv, "1")
	code, _, errs := runCLI(t, "timer", "set", "1ms", "--", exe, "-test.run=^TestHeldExitHelper$")
	if code != 5 {
		t.Errorf("exit %d, want the command's 5: %s", code, errs)
	}
}
