package exporter

import (
	"context"
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
	// Restart after a failure: 5 s, then 30 s, then every minute; the
	// count of failures resets after a day.
	actions := []mgr.RecoveryAction{
		{Type: mgr.ServiceRestart, Delay: 5 * time.Second},
		{Type: mgr.ServiceRestart, Delay: 30 * time.Second},
		{Type: mgr.ServiceRestart, Delay: time.Minute},
	}
	if err := sv.SetRecoveryActions(actions, uint32((24 * time.Hour).Seconds())); err != nil {
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
			h.err = err
			status <- svc.Status{State: svc.StopPending}
			if err != nil {
				return true, exitRunFailed
			}
			return false, 0
		case c := <-req:
			switch c.Cmd {
			case svc.Interrogate:
				status <- c.CurrentStatus
			case svc.Stop, svc.Shutdown:
				status <- svc.Status{State: svc.StopPending}
				cancel()
				h.err = <-done
				if h.err != nil {
					return true, exitRunFailed
				}
				return false, 0
			}
		}
	}
}
