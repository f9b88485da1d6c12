//go:build windows && (amd64 || arm64)

package etw

import (
	"os"
	"os/exec"
	"testing"

	"golang.org/x/sys/windows"
)

// processAlive decides which leftover sessions may be stopped: this
// process is alive, one that has exited is not.
func TestProcessAlive(t *testing.T) {
	if !processAlive(windows.GetCurrentProcessId()) {
		t.Error("this process is not alive")
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, "-test.run=^$")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	if processAlive(uint32(cmd.Process.Pid)) {
		t.Errorf("process %d has exited but is alive", cmd.Process.Pid)
	}
}
