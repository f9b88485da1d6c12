package timer

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"testing"
	"time"
)

const holdHelperEnv = "LATLAB_TEST_HOLD_HELPER"

// res is the request of the tests: valid on both OSes, and a slack the
// helper commands inherit on Linux without being slowed by it.
const res = time.Millisecond

// TestHoldHelper is not a test: run with holdHelperEnv set, it is the
// command Hold runs, behaving as the variable says.
func TestHoldHelper(t *testing.T) {
	switch os.Getenv(holdHelperEnv) {
	case "":
		t.Skip("helper process only")
	case "exit5":
		os.Exit(5)
	case "stay": // deaf to SIGINT and SIGTERM, runs until its stdin closes
		signal.Ignore(os.Interrupt, syscall.SIGTERM)
		fmt.Println("ready")
		io.Copy(io.Discard, os.Stdin) //nolint:errcheck // any end will do
		os.Exit(0)
	case "term7": // exits 7 on SIGTERM
		c := make(chan os.Signal, 1)
		signal.Notify(c, syscall.SIGTERM)
		fmt.Println("ready")
		<-c
		os.Exit(7)
	}
	os.Exit(99)
}

// helper is the command that runs this test binary as TestHoldHelper in
// the given mode.
func helper(t *testing.T, mode string) []string {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv(holdHelperEnv, mode)
	return []string{exe, "-test.run=^TestHoldHelper$"}
}

// piped gives the helper a stdin that stays open until the test ends and
// returns a reader of its stdout.
func piped(t *testing.T, o *HoldOptions) *bufio.Reader {
	t.Helper()
	inR, inW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { inW.Close(); inR.Close(); outR.Close(); outW.Close() })
	o.Stdin, o.Stdout = inR, outW
	return bufio.NewReader(outR)
}

// awaitReady waits for the helper's first line. It runs beside Hold, so
// a failure is only reported: the signals that follow still end the hold.
func awaitReady(t *testing.T, r *bufio.Reader) {
	t.Helper()
	if l, err := r.ReadString('\n'); err != nil || l != "ready\n" {
		t.Errorf("helper said %q, %v", l, err)
	}
}

// Bad input is refused before anything is requested.
func TestHoldRefusesBadInput(t *testing.T) {
	granted := false
	g := func(Grant) error { granted = true; return nil }
	_, err := Hold(context.Background(), HoldOptions{Resolution: maxRequest + 1, Granted: g})
	var re *RangeError
	if !errors.As(err, &re) {
		t.Errorf("out of range: %v", err)
	}
	_, err = Hold(context.Background(), HoldOptions{Resolution: res, Command: []string{"no-such-command-latlab"}, Granted: g})
	var ce *CommandError
	if !errors.As(err, &ce) || ce.Name != "no-such-command-latlab" || err.Error() != `command "no-such-command-latlab" not found` {
		t.Errorf("no such command: %v", err)
	}
	if granted {
		t.Error("a request was made")
	}
}

// The command's exit status is the result's, and the grant was reported
// once, before the command ran.
func TestHoldCommandStatus(t *testing.T) {
	var seen []Grant
	r, err := Hold(context.Background(), HoldOptions{Resolution: res, Command: helper(t, "exit5"),
		Granted: func(g Grant) error { seen = append(seen, g); return nil }})
	if err != nil {
		t.Fatal(err)
	}
	if r.ExitStatus == nil || *r.ExitStatus != 5 {
		t.Errorf("exit status %v, want 5", r.ExitStatus)
	}
	if len(seen) != 1 || seen[0] != r.Grant || r.Grant.PID != os.Getpid() || r.Grant.RequestedNs != int64(res) || r.Grant.GrantedNs <= 0 {
		t.Errorf("grant %+v, reported %+v", r.Grant, seen)
	}
}

// An error from Granted ends the hold: the command never runs.
func TestHoldGrantedError(t *testing.T) {
	boom := errors.New("stdout closed")
	r, err := Hold(context.Background(), HoldOptions{Resolution: res, Command: helper(t, "exit5"),
		Granted: func(Grant) error { return boom }})
	if !errors.Is(err, boom) || r == nil || r.ExitStatus != nil {
		t.Errorf("%+v, %v", r, err)
	}
}

// A second signal ends the wait with 128+N while the command, deaf to
// both, runs on.
func TestHoldSecondSignal(t *testing.T) {
	sigs := make(chan os.Signal, 2)
	o := HoldOptions{Resolution: res, Command: helper(t, "stay"), Signals: sigs}
	out := piped(t, &o)
	go func() {
		awaitReady(t, out)
		sigs <- syscall.SIGTERM
		sigs <- syscall.SIGTERM
	}()
	r, err := Hold(context.Background(), o)
	if err != nil || r.ExitStatus == nil || *r.ExitStatus != 128+int(syscall.SIGTERM) {
		t.Errorf("%+v, %v: want exit status 143", r, err)
	}
}

// When For ends first, the command is killed and there is no status to
// pass on; without a command, For or ctx end the hold.
func TestHoldFor(t *testing.T) {
	o := HoldOptions{Resolution: res, For: 1, Command: helper(t, "stay")}
	piped(t, &o)
	if r, err := Hold(context.Background(), o); err != nil || r.ExitStatus != nil {
		t.Errorf("command: %+v, %v", r, err)
	}
	if r, err := Hold(context.Background(), HoldOptions{Resolution: res, For: 1}); err != nil || r.ExitStatus != nil || r.Grant.GrantedNs <= 0 {
		t.Errorf("no command: %+v, %v", r, err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if r, err := Hold(ctx, HoldOptions{Resolution: res}); err != nil || r.ExitStatus != nil {
		t.Errorf("cancelled: %+v, %v", r, err)
	}
}

// A signal that came before the command could start (ctx is done): the
// command is not started.
func TestHoldCancelledBeforeCommand(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	r, err := Hold(ctx, HoldOptions{Resolution: res, Command: helper(t, "exit5")})
	if err != nil || r.ExitStatus != nil {
		t.Errorf("%+v, %v: want no status (the command would exit 5)", r, err)
	}
}

// A death by signal N is reported as a shell reports it, 128+N.
func TestSignalExitCode(t *testing.T) {
	for _, c := range []struct {
		s    os.Signal
		want int
	}{{os.Interrupt, 130}, {syscall.SIGTERM, 143}} {
		if got := signalExitCode(c.s); got != c.want {
			t.Errorf("%v: %d, want %d", c.s, got, c.want)
		}
	}
}
