package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"syscall"
	"time"
)

// runHeld runs COMMAND while the caller holds the timer request. latlab
// stays the parent so that it can hold the request (Windows) and report the
// command's status; signals meant for the command go to it:
//
//   - SIGINT or SIGTERM: forwarded (see forwardSignal), then latlab waits;
//   - a second one: forwarded too, and latlab exits at once with 128+N, so
//     a stuck command never traps the user in latlab;
//   - the command's end: its exit status, or 128+N if signal N killed it,
//     as a shell reports it.
//
// ctx is not watched: it is cancelled by the same signals, which this
// function receives itself and must tell apart.
func runHeld(ctx context.Context, o *TimerSetOptions) error {
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(sigs)
	if ctx.Err() != nil {
		return nil // a signal came before the command could start
	}
	cmd := exec.Command(o.Command[0], o.Command[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = o.IO.In, o.IO.Out, o.IO.Err
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("start %s: %w", o.Command[0], err)
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
				return &ExitStatusError{Code: signalExitCode(s)}
			}
			signalled = true
		case <-timeout:
			_ = cmd.Process.Kill()
			<-done
			return nil
		}
	}
}

// heldExit turns the command's end into latlab's: its exit status, or
// 128+N when signal N killed it (a status of -1 would otherwise become 255).
func heldExit(err error) error {
	var ee *exec.ExitError
	if !errors.As(err, &ee) {
		return err
	}
	if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return &ExitStatusError{Code: 128 + int(ws.Signal())}
	}
	return &ExitStatusError{Code: ee.ExitCode()}
}

// signalExitCode is the shell's status for a death by s: 128+N.
func signalExitCode(s os.Signal) int {
	if n, ok := s.(syscall.Signal); ok {
		return 128 + int(n)
	}
	return 128 + int(syscall.SIGINT)
}
