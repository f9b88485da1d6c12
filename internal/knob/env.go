package knob

import (
	"fmt"
	"os"
	"strconv"

	"github.com/latlab/latlab/internal/knob/backend"
)

// FaultEnv is the environment variable that makes latlab exit abruptly
// right after its k-th write to the system (a test aid: crash recovery).
const FaultEnv = "LATLAB_FAULT_AFTER_WRITES"

// FaultExitCode is the exit status of an injected crash.
const FaultExitCode = 86

// Env is what knobs read and write through: the backends of this OS (or
// fakes in tests) and the facts about the host they depend on.
type Env struct {
	Backends map[string]backend.Backend

	// Windows facts.
	Build  uint32  // OS build number; 0 = unknown
	Server bool    // Windows Server
	TickMs float64 // the clock interval quantum lengths are counted in

	// Privileged reports why this process may not change system settings
	// (not root, not elevated); nil when it may.
	Privileged func() error
	// Display returns the active display paths (QueryDisplayConfig).
	Display func() ([]DisplayPath, error)
	// RSSState reads the global and per-adapter RSS state (netsh,
	// Get-NetAdapterRss); nil where there is none.
	RSSState func() (*RSSState, error)
	// TaskOffload reads the global TaskOffload state ("enabled",
	// "disabled"); nil where there is none.
	TaskOffload func() (string, error)
	// BootSecurity reads whether BitLocker protects the system drive and
	// whether Secure Boot is on, which decide what a BCD change risks;
	// nil where there is no boot configuration to change.
	BootSecurity func() (BootSecurity, error)

	// OwnSlack is this thread's timer slack in ns (Linux, PR_GET_TIMERSLACK);
	// nil under a fixture root.
	OwnSlack func() (int64, error)

	// KernelConfig reads the running kernel's build configuration
	// (timer.KernelConfig): its CONFIG_ options and the file read; nil
	// where there is none (Windows, fakes).
	KernelConfig func() (map[string]string, string)

	// FaultAfter > 0 calls Crash right after that many writes.
	FaultAfter int
	Crash      func()
	writes     int
}

// NewEnv is the environment of this machine with the filesystem root for
// the Linux backends.
func NewEnv(root string) *Env {
	e := newEnv(root)
	e.Crash = func() { os.Exit(FaultExitCode) } // like a kill: no deferred cleanup runs
	if n, err := strconv.Atoi(os.Getenv(FaultEnv)); err == nil && n > 0 {
		e.FaultAfter = n
	}
	return e
}

// CheckPrivileged says why this process may not change system settings
// (not root, not elevated), before anything is opened or planned to be
// written; nil when it may, or when nothing of the system is at stake
// (a fixture root, fake backends).
func (e *Env) CheckPrivileged() error {
	if e.Privileged == nil {
		return nil
	}
	return e.Privileged()
}

func (e *Env) backend(name string) (backend.Backend, error) {
	b, ok := e.Backends[name]
	if !ok || b == nil {
		return nil, fmt.Errorf("the %s backend is not available on %s", name, HostOS)
	}
	return b, nil
}

func (e *Env) read(l backend.Loc) (backend.Value, error) {
	b, err := e.backend(l.Backend)
	if err != nil {
		return backend.Value{}, err
	}
	return b.Read(l)
}

// write is every write to the system; it counts them for fault injection.
func (e *Env) write(l backend.Loc, v backend.Value) error {
	b, err := e.backend(l.Backend)
	if err != nil {
		return err
	}
	err = b.Write(l, v)
	if err == nil {
		e.writes++
		if e.FaultAfter > 0 && e.writes == e.FaultAfter && e.Crash != nil {
			e.Crash()
		}
	}
	return err
}

// available says why the backend name cannot work on this machine at all
// (an error wrapping backend.ErrUnavailable), before anything is read;
// nil when it may, or when it cannot tell before a read.
func (e *Env) available(name string) error {
	b, err := e.backend(name)
	if err != nil {
		return err
	}
	if a, ok := b.(interface{ Available() error }); ok {
		return a.Available()
	}
	return nil
}

func (e *Env) list(name, path string) (keys, values []string, err error) {
	b, err := e.backend(name)
	if err != nil {
		return nil, nil, err
	}
	l, ok := b.(backend.Lister)
	if !ok {
		return nil, nil, fmt.Errorf("the %s backend cannot list", name)
	}
	return l.List(path)
}
