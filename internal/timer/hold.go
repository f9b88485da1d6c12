package timer

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"runtime"
	"syscall"
	"time"
)

// HoldOptions are the work of `latlab timer set`.
type HoldOptions struct {
	// Resolution is the request (Validate's range).
	Resolution time.Duration
	// For, when positive, ends the hold after this long; a Command still
	// running then is killed. 0 holds until ctx is done or Command ends.
	For time.Duration
	// Command, if set, runs while the request is held, with Stdin, Stdout
	// and Stderr; Hold ends when it does.
	Command        []string
	Stdin          io.Reader
	Stdout, Stderr io.Writer
	// Granted, if set, is called once the request is in force, before
	// the hold begins (and before Command starts); an error ends the hold.
	Granted func(Grant) error
	// Signals delivers the signals meant for Command. Nil: Hold receives
	// SIGINT and SIGTERM itself while Command runs (signal.Notify).
	Signals <-chan os.Signal
}

// HoldResult is the outcome of Hold.
type HoldResult struct {
	Grant Grant
	// ExitStatus is Command's exit status, or 128+N when signal N killed
	// it or when a second signal N ended the wait, as a shell reports it.
	// Nil without Command, when For ended it, or when a signal came before
	// it could start.
	ExitStatus *int
}

// CommandError is a HoldOptions.Command that cannot be found.
type CommandError struct {
	Name string
	Err  error
}

func (e *CommandError) Error() string { return fmt.Sprintf("command %q not found", e.Name) }
func (e *CommandError) Unwrap() error { return e.Err }

// Hold requests a timer resolution and holds it until ctx is done, For
// elapses or Command ends; the request is released before Hold returns.
// A bad Resolution is a *RangeError and a Command not found a
// *CommandError, both returned before anything is requested.
//
// While Command runs, SIGINT and SIGTERM go to it (see forwardSignal)
// and Hold waits for its end; a second signal ends the wait at once, so a
// stuck command never traps the user. ctx is not watched then: it is
// cancelled by the same signals, which Hold receives itself and must tell
// apart.
func Hold(ctx context.Context, o HoldOptions) (*HoldResult, error) {
	if err := Validate(o.Resolution); err != nil {
		return nil, err
	}
	if len(o.Command) > 0 {
		if _, err := exec.LookPath(o.Command[0]); err != nil {
			return nil, &CommandError{Name: o.Command[0], Err: err}
		}
	}
	// The request and any child must come from one OS thread: on Linux the
	// slack belongs to the thread and is what a forked child inherits.
	type res struct {
		r   *HoldResult
		err error
	}
	c := make(chan res, 1)
	go func() {
		runtime.LockOSThread() // never unlocked: the thread carries the slack and is discarded
		r, err := hold(ctx, o)
		c <- res{r, err}
	}()
	r := <-c
	return r.r, r.err
}

func hold(ctx context.Context, o HoldOptions) (*HoldResult, error) {
	req, err := Set(o.Resolution)
	if err != nil {
		return nil, fmt.Errorf("timer set: %w", err)
	}
	defer req.Release()
	r := &HoldResult{Grant: Grant{RequestedNs: int64(req.Requested), GrantedNs: int64(req.Granted), PID: os.Getpid()}}
	if o.Granted != nil {
		if err := o.Granted(r.Grant); err != nil {
			return r, err
		}
	}
	if len(o.Command) > 0 {
		r.ExitStatus, err = runHeld(ctx, o)
		return r, err
	}
	var timeout <-chan time.Time
	if o.For > 0 {
		t := time.NewTimer(o.For)
		defer t.Stop()
		timeout = t.C
	}
	select {
	case <-ctx.Done():
	case <-timeout:
	}
	return r, nil
}

// runHeld runs Command while the caller holds the request. latlab stays
// the parent so that it can hold the request (Windows) and report the
// command's status; signals meant for the command go to it:
//
//   - SIGINT or SIGTERM: forwarded (see forwardSignal), then Hold waits;
//   - a second one: forwarded too, and Hold returns at once with 128+N;
//   - the command's end: its exit status, or 128+N if signal N killed it.
func runHeld(ctx context.Context, o HoldOptions) (*int, error) {
	sigs := o.Signals
	if sigs == nil {
		c := make(chan os.Signal, 2)
		signal.Notify(c, os.Interrupt, syscall.SIGTERM)
		defer signal.Stop(c)
		sigs = c
	}
	if ctx.Err() != nil {
		return nil, nil // a signal came before the command could start
	}
	cmd := exec.Command(o.Command[0], o.Command[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = o.Stdin, o.Stdout, o.Stderr
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s: %w", o.Command[0], err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var timeout <-chan time.Time
	if o.For > 0 {
		t := time.NewTimer(o.For)
		defer t.Stop()
		timeout = t.C
	}
	signalled := false
	for {
		select {
		case err := <-done:
			return heldExit(err)
		case s := <-sigs:
			forwardSignal(cmd.Process, s)
			if signalled {
				code := signalExitCode(s)
				return &code, nil
			}
			signalled = true
		case <-timeout:
			_ = cmd.Process.Kill()
			<-done
			return nil, nil
		}
	}
}

// heldExit turns the command's end into its status: the exit status, or
// 128+N when signal N killed it (a status of -1 would otherwise become
// 255). An error that is not an exit status is returned as it is.
func heldExit(err error) (*int, error) {
	code := 0
	var ee *exec.ExitError
	switch {
	case err == nil:
	case !errors.As(err, &ee):
		return nil, err
	default:
		code = ee.ExitCode()
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			code = 128 + int(ws.Signal())
		}
	}
	return &code, nil
}

// signalExitCode is the shell's status for a death by s: 128+N.
func signalExitCode(s os.Signal) int {
	if n, ok := s.(syscall.Signal); ok {
		return 128 + int(n)
	}
	return 128 + int(syscall.SIGINT)
}
