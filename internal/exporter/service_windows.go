package exporter

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"golang.org/x/sys/windows/svc"
	"golang.org/x/sys/windows/svc/eventlog"
	"golang.org/x/sys/windows/svc/mgr"
)

// IsService reports whether the Service Control Manager started this
// process.
func IsService() bool {
	ok, err := svc.IsWindowsService()
	return err == nil && ok
}

// InstallService registers s to start exe with args at boot, restart it
// when it fails, and log to the Application event log under s.Name;
// then starts it. A half-done install is undone.
func InstallService(s Service, exe string, args []string) error { return install(s, exe, args, true) }

func install(s Service, exe string, args []string, start bool) error {
	m, err := mgr.Connect()
	if err != nil {
		return fmt.Errorf("connect to the service manager: %w (run elevated)", err)
	}
	defer m.Disconnect()
	if old, err := m.OpenService(s.Name); err == nil {
		old.Close()
		return fmt.Errorf("service %s is already installed: latlab exporter uninstall removes it", s.Name)
	}
	sv, err := m.CreateService(s.Name, exe, mgr.Config{
		DisplayName: s.DisplayName, Description: s.Description,
		StartType: mgr.StartAutomatic, ErrorControl: mgr.ErrorNormal,
	}, args...)
	if err != nil {
		return fmt.Errorf("create service %s: %w", s.Name, err)
	}
	defer sv.Close()
	undo := func(err error) error {
		_ = sv.Delete()
		_ = eventlog.Remove(s.Name)
		return err
	}
	if err := setRecovery(sv, defaultRecovery); err != nil {
		return undo(fmt.Errorf("set the restart-on-failure actions of %s: %w", s.Name, err))
	}
	// A source left by an earlier install whose removal failed is
	// replaced: the service did not exist, so nothing else logs under it.
	_ = eventlog.Remove(s.Name)
	if err := eventlog.InstallAsEventCreate(s.Name, eventlog.Error|eventlog.Warning|eventlog.Info); err != nil {
		return undo(fmt.Errorf("register the event-log source %s: %w", s.Name, err))
	}
	if !start {
		return nil
	}
	if err := sv.Start(); err != nil {
		return undo(fmt.Errorf("start service %s: %w", s.Name, err))
	}
	return nil
}

// UninstallService stops s (waiting up to 20 s for it to stop), deletes it
// and removes its event-log source.
func UninstallService(s Service) error {
	m, err := mgr.Connect()
	if err != nil {
		return fmt.Errorf("connect to the service manager: %w (run elevated)", err)
	}
	defer m.Disconnect()
	sv, err := m.OpenService(s.Name)
	if err != nil {
		return fmt.Errorf("service %s is not installed", s.Name)
	}
	defer sv.Close()
	if st, err := sv.Query(); err == nil && st.State != svc.Stopped {
		if _, err := sv.Control(svc.Stop); err != nil {
			return fmt.Errorf("stop service %s: %w", s.Name, err)
		}
		deadline := time.Now().Add(20 * time.Second)
		for {
			st, err := sv.Query()
			if err != nil || st.State == svc.Stopped {
				break
			}
			if time.Now().After(deadline) {
				return fmt.Errorf("service %s did not stop within 20 s; it was not removed", s.Name)
			}
			time.Sleep(200 * time.Millisecond) // polling the SCM, not measuring
		}
	}
	if err := sv.Delete(); err != nil {
		return fmt.Errorf("delete service %s: %w", s.Name, err)
	}
	if err := eventlog.Remove(s.Name); err != nil {
		return fmt.Errorf("service %s removed, but not its event-log source: %w", s.Name, err)
	}
	return nil
}

// recovery is what the service manager does when the service fails.
type recovery struct {
	actions []mgr.RecoveryAction
	reset   time.Duration // the failure count resets after this long
	// onNonCrash makes the manager act also when the service stops by
	// itself with a non-zero exit code, as Execute reports a failed run.
	// Without it the actions run only when the process dies without
	// reporting SERVICE_STOPPED, so an exporter whose listener failed
	// stayed stopped (SERVICE_FAILURE_ACTIONS_FLAG,
	// https://learn.microsoft.com/windows/win32/api/winsvc/ns-winsvc-service_failure_actions_flag).
	onNonCrash bool
}

// defaultRecovery restarts after 5 s, then 30 s, then every minute; the
// count of failures resets after a day.
var defaultRecovery = recovery{
	actions: []mgr.RecoveryAction{
		{Type: mgr.ServiceRestart, Delay: 5 * time.Second},
		{Type: mgr.ServiceRestart, Delay: 30 * time.Second},
		{Type: mgr.ServiceRestart, Delay: time.Minute},
	},
	reset:      24 * time.Hour,
	onNonCrash: true,
}

// recoverySetter is the part of *mgr.Service that applyRecovery uses.
type recoverySetter interface {
	SetRecoveryActions(actions []mgr.RecoveryAction, resetPeriod uint32) error
	SetRecoveryActionsOnNonCrashFailures(flag bool) error
}

// setRecovery is applyRecovery; the Wine test replaces it, as Wine's
// service manager lacks the SERVICE_CONFIG_FAILURE_ACTIONS_FLAG level.
var setRecovery = func(sv *mgr.Service, r recovery) error { return applyRecovery(sv, r) }

// applyRecovery configures r on sv.
func applyRecovery(sv recoverySetter, r recovery) error {
	if err := sv.SetRecoveryActions(r.actions, uint32(r.reset.Seconds())); err != nil {
		return fmt.Errorf("ChangeServiceConfig2(SERVICE_CONFIG_FAILURE_ACTIONS): %w", err)
	}
	if err := sv.SetRecoveryActionsOnNonCrashFailures(r.onNonCrash); err != nil {
		return fmt.Errorf("ChangeServiceConfig2(SERVICE_CONFIG_FAILURE_ACTIONS_FLAG): %w", err)
	}
	return nil
}

// RunService runs run under the Service Control Manager as service name,
// logging to the event log, until the manager stops it.
func RunService(name string, run RunFunc) error {
	el, err := eventlog.Open(name)
	if err != nil {
		return fmt.Errorf("open event log %s: %w", name, err)
	}
	defer el.Close()
	h := &serviceHandler{run: run, log: slog.New(&eventHandler{w: el, min: slog.LevelInfo})}
	if err := svc.Run(name, h); err != nil {
		return fmt.Errorf("run service %s: %w", name, err)
	}
	return h.err
}

// serviceHandler answers the Service Control Manager while run works.
type serviceHandler struct {
	run RunFunc
	log *slog.Logger
	err error
}

// exitRunFailed is the service-specific exit code of a failed run.
const exitRunFailed = 3

// stopExit is what Execute returns, and so what svc.Run reports with
// SERVICE_STOPPED, when the run ended. A run that ended by itself
// is a failure even without an error (the exporter runs until stopped), and
// a non-zero service-specific exit code makes the manager's recovery
// actions restart it (they act on non-crash failures, see
// defaultRecovery). A run the manager stopped exits 0 whatever it
// returned: the error is logged, and restarting a service the
// administrator stopped would overrule them.
func stopExit(requested bool) (svcSpecific bool, code uint32) {
	if requested {
		return false, 0
	}
	return true, exitRunFailed
}

func (h *serviceHandler) Execute(_ []string, req <-chan svc.ChangeRequest, status chan<- svc.Status) (bool, uint32) {
	status <- svc.Status{State: svc.StartPending}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- h.run(ctx, h.log) }()
	const accepts = svc.AcceptStop | svc.AcceptShutdown
	status <- svc.Status{State: svc.Running, Accepts: accepts}
	for {
		select {
		case err := <-done:
			// The work ended by itself: a failure the manager's
			// recovery actions restart.
			if err == nil {
				err = errors.New("the exporter stopped by itself")
			}
			h.err = err
			h.log.Error("latlab exporter failed; the service manager restarts it", "err", err)
			status <- svc.Status{State: svc.StopPending}
			return stopExit(false)
		case c := <-req:
			switch c.Cmd {
			case svc.Interrogate:
				status <- c.CurrentStatus
			case svc.Stop, svc.Shutdown:
				status <- svc.Status{State: svc.StopPending}
				cancel()
				h.err = <-done
				if h.err != nil {
					h.log.Error("latlab exporter stopped with an error", "err", h.err)
				}
				return stopExit(true)
			}
		}
	}
}
