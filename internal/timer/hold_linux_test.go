package timer

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/latlab/latlab/internal/testutil"
)

const foregroundEnv = "LATLAB_TEST_PRINT_FOREGROUND"

// TestTerminalForegroundHelper is not a test: run with foregroundEnv set,
// it prints what terminalForegroundIsOurs says in the process it runs in.
func TestTerminalForegroundHelper(t *testing.T) {
	if os.Getenv(foregroundEnv) != "1" {
		t.Skip("helper process only")
	}
	fmt.Printf("foreground=%v\n", terminalForegroundIsOurs())
	os.Exit(0)
}

// latlab skips forwarding a SIGINT exactly when the terminal sent it to
// latlab's whole process group: when that group is the foreground group
// of its controlling terminal.
func TestTerminalForeground(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	run := func(attr *syscall.SysProcAttr, tty *os.File) string {
		cmd := exec.Command(exe, "-test.run=^TestTerminalForegroundHelper$")
		cmd.Env = append(os.Environ(), foregroundEnv+"=1")
		cmd.SysProcAttr = attr
		var out strings.Builder
		cmd.Stdout = &out
		if tty != nil {
			cmd.Stdin = tty
		}
		if err := cmd.Run(); err != nil {
			t.Fatalf("helper: %v", err)
		}
		return strings.TrimSpace(out.String())
	}
	if got := run(&syscall.SysProcAttr{Setsid: true}, nil); got != "foreground=false" {
		t.Errorf("no controlling terminal: %s", got)
	}
	if got := run(&syscall.SysProcAttr{Setpgid: true}, nil); got != "foreground=false" {
		t.Errorf("a background process group: %s", got)
	}
	master, tty, err := testutil.OpenPTY()
	if err != nil {
		t.Skipf("no pseudo-terminal: %v", err)
	}
	defer master.Close()
	defer tty.Close()
	go io.Copy(io.Discard, master) //nolint:errcheck // keep the terminal drained
	if got := run(&syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0}, tty); got != "foreground=true" {
		t.Errorf("the foreground group of its terminal: %s", got)
	}
}

// A SIGTERM goes to the command, whose own status then ends the hold.
func TestHoldForwardsSignal(t *testing.T) {
	sigs := make(chan os.Signal, 2)
	o := HoldOptions{Resolution: res, Command: helper(t, "term7"), Signals: sigs}
	out := piped(t, &o)
	go func() {
		awaitReady(t, out)
		sigs <- syscall.SIGTERM
	}()
	r, err := Hold(context.Background(), o)
	if err != nil || r.ExitStatus == nil || *r.ExitStatus != 7 {
		t.Errorf("%+v, %v: want the command's 7", r, err)
	}
}

// A command killed by signal N gives 128+N, not the -1 of ExitCode; and
// it inherits the holding thread's slack.
func TestHoldLinuxCommand(t *testing.T) {
	r, err := Hold(context.Background(), HoldOptions{Resolution: res, Command: []string{"sh", "-c", "kill -TERM $$"}})
	if err != nil || r.ExitStatus == nil || *r.ExitStatus != 143 {
		t.Errorf("%+v, %v: want 143", r, err)
	}
	var out strings.Builder
	r, err = Hold(context.Background(), HoldOptions{Resolution: 1500 * time.Nanosecond, Command: []string{"cat", "/proc/self/timerslack_ns"}, Stdout: &out})
	if err != nil || r.ExitStatus == nil || *r.ExitStatus != 0 || strings.TrimSpace(out.String()) != "1500" {
		t.Errorf("%+v, %v: the command's slack %q, want 1500", r, err, out.String())
	}
}
