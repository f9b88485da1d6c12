package irq

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"time"

	"github.com/latlab/latlab/internal/badinput"
	"github.com/latlab/latlab/internal/units"
)

// Options are the work of `latlab irq watch`.
type Options struct {
	// Root is where /proc and /sys are read (Linux), as in WatchOptions.
	Root string
	// Interval is the time between readings.
	Interval time.Duration
	// Duration stops the watch after this long; 0 = when ctx is done or
	// Command ends.
	Duration time.Duration
	// Command, if set, is run and watched until it ends; its standard
	// streams are Stdin, Stdout and Stderr.
	Command        []string
	Stdin          io.Reader
	Stdout, Stderr io.Writer
	// MaxStored bounds Result.Intervals: a watch that reads more keeps
	// only the running total, so a long watch does not grow.
	MaxStored int
	// OnInterval, if set, receives every reading with the time since the
	// watch began.
	OnInterval func(elapsed time.Duration, iv *Interval)
	// Watcher reads the counters; nil = NewWatcher over Root. Run closes
	// it.
	Watcher Watcher
}

// Result is the outcome of Run.
type Result struct {
	Total     *Interval   // the whole watch
	Intervals []*Interval // every reading; nil past Options.MaxStored
	Count     int         // readings taken
	Network   *NetInfo
	// ExitStatus is Command's exit code (nil without a Command); a
	// command that did not exit normally counts as -1.
	ExitStatus *int
}

// commandGrace is how long a command interrupted at the end of the watch
// has to exit before it is killed.
const commandGrace = 5 * time.Second

// Validate checks the watch's options, in the flag names of latlab irq
// watch, for every caller; bad input is a badinput.Error.
func (o Options) Validate() error {
	switch {
	case o.Interval <= 0:
		return badinput.Errorf("invalid --interval %s: want a duration above 0", units.Duration(o.Interval))
	case o.Duration < 0:
		return badinput.Errorf("invalid --duration %s: want 0 (until stopped) or a duration above 0", units.Duration(o.Duration))
	}
	if len(o.Command) > 0 {
		if _, err := exec.LookPath(o.Command[0]); err != nil {
			return badinput.Errorf("command %q not found", o.Command[0])
		}
	}
	return nil
}

// Run reads the counters every Interval until Duration has passed, ctx
// is done or Command has ended, and sums what each CPU handled. One
// reading is always taken at the end, so the total covers the whole
// watch.
func Run(ctx context.Context, o Options) (*Result, error) {
	if err := o.Validate(); err != nil {
		if o.Watcher != nil {
			o.Watcher.Close()
		}
		return nil, err
	}
	w := o.Watcher
	if w == nil {
		var err error
		if w, err = NewWatcher(WatchOptions{Root: o.Root}); err != nil {
			return nil, fmt.Errorf("irq watch: %w", err)
		}
	}
	defer w.Close()
	var child *exec.Cmd
	var done <-chan error
	if len(o.Command) > 0 {
		child = exec.Command(o.Command[0], o.Command[1:]...)
		child.Stdin, child.Stdout, child.Stderr = o.Stdin, o.Stdout, o.Stderr
		if err := child.Start(); err != nil {
			return nil, fmt.Errorf("start %s: %w", o.Command[0], err)
		}
		ch := make(chan error, 1)
		go func() { ch <- child.Wait() }()
		done = ch
	}
	var stop <-chan time.Time
	if o.Duration > 0 {
		t := time.NewTimer(o.Duration)
		defer t.Stop()
		stop = t.C
	}
	tick := time.NewTicker(o.Interval)
	defer tick.Stop()
	// The total is a running sum; the intervals themselves are kept only
	// while the result can hold them all.
	var acc Accumulator
	var ivs []*Interval
	var waitErr error
	finished, childDone := false, false
	start := time.Now()
	for !finished {
		select {
		case <-tick.C:
		case waitErr = <-done:
			finished, childDone = true, true
		case <-stop:
			finished = true
		case <-ctx.Done():
			finished = true
		}
		iv, err := w.Next()
		if err != nil {
			return nil, fmt.Errorf("irq watch: %w", err)
		}
		acc.Add(iv)
		if acc.Len() <= o.MaxStored {
			ivs = append(ivs, iv)
		} else {
			ivs = nil
		}
		if o.OnInterval != nil {
			o.OnInterval(time.Since(start), iv)
		}
	}
	if child != nil && !childDone {
		// Stopped by Duration or ctx before the command ended.
		waitErr = stopCommand(child, done)
	}
	r := &Result{Total: acc.Total(), Intervals: ivs, Count: acc.Len(), Network: w.Network()}
	if child != nil {
		code := 0
		var ee *exec.ExitError
		if errors.As(waitErr, &ee) {
			code = ee.ExitCode()
		}
		r.ExitStatus = &code
	}
	return r, nil
}

// stopCommand interrupts a command that is still running and waits for
// it, killing it after commandGrace (Windows has no interrupt to send to
// another process).
func stopCommand(child *exec.Cmd, done <-chan error) error {
	_ = child.Process.Signal(os.Interrupt)
	select {
	case err := <-done:
		return err
	case <-time.After(commandGrace):
		_ = child.Process.Kill()
		return <-done
	}
}
