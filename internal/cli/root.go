// Package cli wires latlab's commands. Each command is a file with an
// Options struct, a constructor that binds flags to it, and a run function
// that tests call directly with fake IO. The work lives in other packages.
package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sort"
	"sync/atomic"
	"syscall"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/latlab/latlab/internal/buildinfo"
	"github.com/latlab/latlab/internal/dpcwatch"
	"github.com/latlab/latlab/internal/probe"
)

// IO is where a command reads and writes.
type IO struct {
	In       io.Reader
	Out      io.Writer
	Err      io.Writer
	Terminal bool // Out is an interactive terminal (progress bars, colour)

	// Root is the filesystem root that Linux parsers and setting backends
	// read /proc and /sys under (global flag --root, default "/"). It is a
	// testing aid: tests point it at a fixture tree.
	Root string

	// progressForce draws the progress line on a non-terminal (tests).
	progressForce bool
}

// commands holds the constructors of the top-level commands; each command
// file registers itself in init so that adding one touches no other file.
var commands []func(*IO) *cobra.Command

func register(f func(*IO) *cobra.Command) { commands = append(commands, f) }

// NewRoot builds the command tree. With no subcommand, latlab runs the
// check-up (doctor).
func NewRoot(io *IO) *cobra.Command {
	root := &cobra.Command{
		Use:   "latlab",
		Short: "latency laboratory: measure, tune and verify OS timer and wake-up latency",
		Long: `latlab measures how precisely the OS wakes threads, controls the timer
resolution, decodes and safely changes latency settings, analyses evidence
files and says with statistics whether a change helped.

Run without arguments for a quick check-up of this machine.`,
		SilenceUsage:  true,
		SilenceErrors: true,
		Args:          cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runDoctor(cmd.Context(), &DoctorOptions{IO: io})
		},
	}
	if io.Root == "" {
		io.Root = "/"
	}
	// --version prints what `latlab version` prints.
	root.Version = buildinfo.Get().Version
	root.SetVersionTemplate(buildinfo.Get().Long())
	root.PersistentFlags().StringVar(&io.Root, "root", io.Root, "filesystem root for /proc and /sys (a testing aid)")
	_ = root.PersistentFlags().MarkHidden("root") // the tests' fixture trees, not a user's
	addInputFlags(root)
	root.SetOut(io.Out)
	root.SetErr(io.Err)
	root.SetFlagErrorFunc(flagError)
	cs := make([]*cobra.Command, 0, len(commands))
	for _, f := range commands {
		cs = append(cs, f(io))
	}
	sort.Slice(cs, func(i, j int) bool { return cs[i].Name() < cs[j].Name() })
	for _, c := range cs {
		root.AddCommand(c)
	}
	finish(root, io)
	return root
}

// Main runs latlab with args and returns the process exit code:
// 0 success, 1 an expectation set by the user failed, 2 bad input,
// 3 the work could not be done (an OS call failed, a peer vanished).
func Main(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	ctx, stop := signalContext()
	defer stop()
	io := &IO{In: stdin, Out: withWidth(stdout), Err: stderr, Terminal: isTerminal(stdout), Root: "/"}
	if len(args) == 0 && startedByExplorer() {
		if err := doubleClick(ctx, io, doubleClickDefaults()); err != nil {
			return ExitCode(err)
		}
		return 0
	}
	return Run(ctx, args, io)
}

// signalContext is cancelled by the first SIGINT or SIGTERM, which lets a
// command stop cleanly (revert what it set, write what it measured). The
// second signal is the default one and ends the process: a command stuck
// where it cannot see the cancel must not make latlab unkillable but by
// SIGKILL.
func signalContext() (context.Context, context.CancelFunc) {
	ctx, cancelCause := context.WithCancelCause(context.Background())
	cancel := func() { cancelCause(nil) }
	c := make(chan os.Signal, 2) // both signals, however close together
	signal.Notify(c, os.Interrupt, syscall.SIGTERM)
	go func() {
		select {
		case s := <-c:
			cancelCause(&Interrupted{Signal: s})
		case <-ctx.Done():
			signal.Stop(c)
			return
		}
		for s := range c {
			if !ownSignals.Load() {
				dieBy(s)
			}
		}
	}()
	return ctx, cancel
}

// ownSignals is set once a command acts on every SIGINT and SIGTERM
// itself: `timer set -- COMMAND` forwards both to the command and returns
// on the second, with the command's status. It stays set until latlab
// exits (see runTimerSet).
var ownSignals atomic.Bool

// Interrupted is the cause of a context that SIGINT (Ctrl-C) or SIGTERM
// cancelled.
type Interrupted struct{ Signal os.Signal }

func (e *Interrupted) Error() string { return "interrupted by " + e.Signal.String() }

// interruptedCode is the exit status of a run a signal stopped: 128 + the
// signal's number, as a shell reports a process the signal killed (130
// for Ctrl-C), after the command stopped, undid what it changed and
// printed what it measured, marked interrupted.
func interruptedCode(ctx context.Context) (int, bool) {
	var in *Interrupted
	if !errors.As(context.Cause(ctx), &in) {
		return 0, false
	}
	if s, ok := in.Signal.(syscall.Signal); ok {
		return 128 + int(s), true
	}
	return 130, true
}

// Run is Main with a caller-supplied context and IO, for tests.
func Run(ctx context.Context, args []string, io *IO) int {
	root := NewRoot(io)
	root.SetArgs(separateNegativeArgs(root, args))
	root.SetIn(io.In)
	err := root.ExecuteContext(ctx)
	var xe *ExitStatusError
	if errors.As(err, &xe) {
		return xe.Code // a child's status (timer set -- COMMAND), signals included
	}
	if code, ok := interruptedCode(ctx); ok {
		switch {
		case stoppedBeforeASample(err):
			// "no samples were taken" is what the signal did: one line
			fmt.Fprintln(io.Err, "latlab: interrupted before the first sample")
			return code
		case err != nil && !errors.Is(err, context.Canceled):
			fmt.Fprintf(io.Err, "latlab: %s\n", oneLine(err.Error()))
		}
		fmt.Fprintln(io.Err, "latlab: interrupted")
		return code
	}
	if err == nil {
		return 0
	}
	code := ExitCode(err)
	fmt.Fprintf(io.Err, "latlab: %s\n", oneLine(err.Error()))
	return code
}

// ExitCode maps an error to latlab's exit codes.
func ExitCode(err error) int {
	var ee *ExpectationError
	var xe *ExitStatusError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &xe):
		return xe.Code
	case errors.Is(err, dpcwatch.ErrInterrupted):
		return 130
	case errors.As(err, &ee):
		return 1
	case isUsage(err):
		return 2
	}
	return 3
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// stoppedBeforeASample says that err is a probe's "nothing measured" and
// nothing else: no wake-up came late past the run's end (that is a
// finding, said in full).
func stoppedBeforeASample(err error) bool {
	var nw *probe.NoWakeupsError
	return errors.Is(err, probe.ErrNoSamples) || errors.As(err, &nw) && nw.WarmupNs == 0
}
