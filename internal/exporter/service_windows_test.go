package exporter

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/windows"

	"github.com/latlab/latlab/internal/testutil"
	"golang.org/x/sys/windows/registry"
	"golang.org/x/sys/windows/svc"
	"golang.org/x/sys/windows/svc/mgr"
)

// runExecute drives serviceHandler.Execute as the service manager would,
// sending reqs, and returns the states it reported and its exit.
func runExecute(t *testing.T, run RunFunc, reqs ...svc.ChangeRequest) (states []svc.State, retry bool, code uint32) {
	t.Helper()
	h := &serviceHandler{run: run, log: slog.New(slog.DiscardHandler)}
	req := make(chan svc.ChangeRequest, len(reqs))
	status := make(chan svc.Status, 16)
	for _, r := range reqs {
		req <- r
	}
	done := make(chan struct{})
	go func() {
		retry, code = h.Execute(nil, req, status)
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("Execute did not return within 30 s")
	}
	close(status)
	for s := range status {
		states = append(states, s.State)
	}
	return states, retry, code
}

func TestServiceStops(t *testing.T) {
	stopped := false
	run := func(ctx context.Context, log *slog.Logger) error {
		<-ctx.Done()
		stopped = true
		return nil
	}
	running := svc.Status{State: svc.Running}
	states, retry, code := runExecute(t, run,
		svc.ChangeRequest{Cmd: svc.Interrogate, CurrentStatus: running}, svc.ChangeRequest{Cmd: svc.Stop})
	want := []svc.State{svc.StartPending, svc.Running, svc.Running, svc.StopPending}
	if fmt.Sprint(states) != fmt.Sprint(want) || retry || code != 0 || !stopped {
		t.Fatalf("states %v (want %v), retry %v, code %d, stopped %v", states, want, retry, code, stopped)
	}
}

// A run that fails by itself ends the service with an error the manager's
// recovery actions act on.
func TestServiceRunFails(t *testing.T) {
	run := func(context.Context, *slog.Logger) error { return errors.New("listen: address in use") }
	states, retry, code := runExecute(t, run)
	if states[len(states)-1] != svc.StopPending || !retry || code != exitRunFailed {
		t.Fatalf("states %v, retry %v, code %d", states, retry, code)
	}
}

// A run that returns nil without being asked to stop has failed too (the
// exporter serves until stopped): the manager must see a non-zero exit.
func TestServiceRunEndsByItself(t *testing.T) {
	run := func(context.Context, *slog.Logger) error { return nil }
	_, retry, code := runExecute(t, run)
	if !retry || code == 0 {
		t.Fatalf("retry %v, code %d: the service manager would not restart it", retry, code)
	}
}

// A stop the manager asked for exits 0 even when the run returned an
// error, so that recovery does not restart a service an administrator
// stopped.
func TestServiceStopWithError(t *testing.T) {
	run := func(ctx context.Context, log *slog.Logger) error {
		<-ctx.Done()
		return errors.New("flush: disk full")
	}
	_, retry, code := runExecute(t, run, svc.ChangeRequest{Cmd: svc.Stop})
	if retry || code != 0 {
		t.Fatalf("retry %v, code %d after a requested stop", retry, code)
	}
}

type fakeRecovery struct {
	actions  []mgr.RecoveryAction
	reset    uint32
	nonCrash *bool
}

func (f *fakeRecovery) SetRecoveryActions(a []mgr.RecoveryAction, reset uint32) error {
	f.actions, f.reset = a, reset
	return nil
}

func (f *fakeRecovery) SetRecoveryActionsOnNonCrashFailures(v bool) error {
	f.nonCrash = &v
	return nil
}

type wineRecovery struct{ *mgr.Service }

func (w wineRecovery) SetRecoveryActionsOnNonCrashFailures(v bool) error {
	err := w.Service.SetRecoveryActionsOnNonCrashFailures(v)
	if errors.Is(err, windows.ERROR_INVALID_LEVEL) {
		return nil
	}
	return err
}

// Install asks the manager to act on non-crash failures too: without the
// flag, a service that reports SERVICE_STOPPED with an exit code is never
// restarted.
func TestInstallRecovery(t *testing.T) {
	var f fakeRecovery
	if err := applyRecovery(&f, defaultRecovery); err != nil {
		t.Fatal(err)
	}
	if f.nonCrash == nil || !*f.nonCrash {
		t.Errorf("SetRecoveryActionsOnNonCrashFailures: %v, want true", f.nonCrash)
	}
	if len(f.actions) != 3 || f.reset != 86400 {
		t.Errorf("actions %v, reset %d s", f.actions, f.reset)
	}
	for _, a := range f.actions {
		if a.Type != mgr.ServiceRestart || a.Delay < time.Second {
			t.Errorf("action %+v: want a restart after a delay", a)
		}
	}
}

// Install and uninstall through the real service manager (Wine's under
// test), without starting the service.
func TestInstallUninstall(t *testing.T) {
	s := Service{Name: fmt.Sprintf("latlab-exporter-test-%d", os.Getpid()), DisplayName: "latlab exporter test", Description: "test"}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	args := ServiceArgs([]string{"--listen=:9977", "--duty=1%"})
	// Wine's manager refuses the failure-actions flag level that every
	// Windows since Vista has (TestInstallRecovery checks it is asked for).
	setRecovery = func(sv *mgr.Service, r recovery) error { return applyRecovery(wineRecovery{sv}, r) }
	t.Cleanup(func() { setRecovery = func(sv *mgr.Service, r recovery) error { return applyRecovery(sv, r) } })
	if err := install(s, exe, args, false); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = UninstallService(s) })
	if err := install(s, exe, args, false); err == nil || !strings.Contains(err.Error(), "already installed") {
		t.Errorf("second install: %v", err)
	}
	// The service's configuration as the manager stores it (Wine's
	// manager lacks the QueryServiceConfig2 levels mgr's Config reads).
	k, err := registry.OpenKey(registry.LOCAL_MACHINE, `SYSTEM\CurrentControlSet\Services\`+s.Name, registry.QUERY_VALUE)
	if err != nil {
		t.Fatal(err)
	}
	image, _, err1 := k.GetStringValue("ImagePath")
	start, _, err2 := k.GetIntegerValue("Start")
	display, _, err3 := k.GetStringValue("DisplayName")
	k.Close()
	if err := errors.Join(err1, err2, err3); err != nil {
		t.Fatal(err)
	}
	if start != mgr.StartAutomatic || display != s.DisplayName || !strings.Contains(image, "exporter --listen=:9977 --duty=1%") {
		t.Errorf("ImagePath %q, Start %d, DisplayName %q", image, start, display)
	}
	if !sourceRegistered(s.Name) {
		t.Error("the event-log source was not registered")
	}
	m, err := mgr.Connect()
	if err != nil {
		t.Fatal(err)
	}
	defer m.Disconnect()
	if err := UninstallService(s); err != nil {
		t.Fatal(err)
	}
	if _, err := m.OpenService(s.Name); err == nil {
		t.Error("the service is still there after uninstall")
	}
	if sourceRegistered(s.Name) {
		t.Error("the event-log source is still registered after uninstall")
	}
	if err := UninstallService(s); err == nil || !strings.Contains(err.Error(), "is not installed") {
		t.Errorf("second uninstall: %v", err)
	}
}

func sourceRegistered(name string) bool {
	k, err := registry.OpenKey(registry.LOCAL_MACHINE, `SYSTEM\CurrentControlSet\Services\EventLog\Application\`+name, registry.QUERY_VALUE)
	if err != nil {
		return false
	}
	k.Close()
	return true
}

// fileAccess reads a real security descriptor (Wine's, under test): a
// file that exists is read without error, a missing one is reported as
// missing.
func TestFileAccess(t *testing.T) {
	dir := testutil.TempDir(t)
	p := dir + `\web.yml`
	if err := os.WriteFile(p, []byte("basic_auth_users: {}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, exists, err := fileAccess(p); err != nil || !exists {
		t.Errorf("%s: exists %v, %v", p, exists, err)
	}
	if _, exists, err := fileAccess(dir + `\gone.yml`); err != nil || exists {
		t.Errorf("missing file: exists %v, %v", exists, err)
	}
}
