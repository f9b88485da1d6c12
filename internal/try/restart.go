package try

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/latlab/latlab/internal/clock"
	"github.com/latlab/latlab/internal/lazy"

	"github.com/latlab/latlab/internal/badinput"
	"github.com/latlab/latlab/internal/knob"
	"github.com/latlab/latlab/internal/knob/backend"
)

// A network adapter reads its advanced properties (RSS, interrupt
// moderation) when its driver starts, so with --restart-adapter try
// restarts the adapter after each change and each restore, and waits for
// its link before the settle time begins. The restart goes through
// PowerShell's NetAdapter module: Restart-NetAdapter disables and enables
// the adapter, Get-NetAdapter reports its status. Every command finds the
// adapter in the same pipeline by its interface GUID (the class key's
// NetCfgInstanceId), compared with -eq: no name travels back through the
// console's code page (a non-ASCII alias came back mangled) and nothing is
// matched as a wildcard (-Name and -InterfaceDescription take wildcards).

// Runner runs a command line (argv[0] and its arguments) and returns its
// standard output; tests put a fake in its place.
type Runner func(ctx context.Context, argv []string) (string, error)

// LinkTimeout bounds the wait for an adapter's link after a restart.
const LinkTimeout = 60 * time.Second

// linkPoll is the pause between two status reads after a restart; a test
// sets it to 0.
var linkPoll = 500 * time.Millisecond

// AdapterRestart is how the experiment restarts the adapter: planned (the
// commands) and, after a run, done.
type AdapterRestart struct {
	// Adapter is the adapter as the registry names it (DriverDesc, which
	// Get-NetAdapter calls InterfaceDescription), GUID its
	// NetCfgInstanceId (Get-NetAdapter's InterfaceGuid), by which every
	// command finds it.
	Adapter string `json:"adapter"`
	GUID    string `json:"guid"`
	// Planned is the number of restarts a complete run makes: after each
	// change and after each restore.
	Planned int `json:"planned"`
	Done    int `json:"done"`
	// Commands are the command lines: find the adapter (once, before
	// anything changes), restart it, read its status.
	Lookup        string `json:"lookup"`
	Restart       string `json:"restart"`
	Status        string `json:"status"`
	LinkTimeoutNs int64  `json:"link_timeout_ns"`
	// WaitedNs is the longest wait for a link after a restart.
	WaitedNs int64 `json:"link_waited_max_ns,omitempty"`
}

// powershell is the command line of a PowerShell script.
func powershell(script string) []string {
	return []string{"powershell.exe", "-NoProfile", "-NonInteractive", "-Command", script}
}

// reGUID is a NetCfgInstanceId: a braced GUID.
var reGUID = lazy.Regexp(`^\{[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}\}$`)

// adapterByGUID is a pipeline of the one adapter whose InterfaceGuid is
// guid, and fails when there is not exactly one.
func adapterByGUID(guid string) string {
	q := knob.PSQuote(guid)
	return fmt.Sprintf("$a = @(Get-NetAdapter -IncludeHidden | Where-Object { $_.InterfaceGuid -eq %s }); "+
		"if ($a.Count -ne 1) { throw ([string]$a.Count + ' adapters have the interface GUID ' + %s) }; ", q, q)
}

// lookupScript prints the adapter's status: it checks before anything
// changes that the adapter is there and the NetAdapter module works.
func lookupScript(guid string) string { return adapterByGUID(guid) + "$a[0].Status" }

func restartScript(guid string) string {
	return adapterByGUID(guid) + "$a | Restart-NetAdapter -Confirm:$false"
}

func statusScript(guid string) string { return adapterByGUID(guid) + "$a[0].Status" }

// planRestart finds the adapter the arms' changes write to (its class
// key) and plans its restarts.
func (x *experiment) planRestart() error {
	var key string
	for _, a := range x.res.Arms[1:] {
		for _, c := range a.plan {
			k, ok := adapterKey(c.Loc.Path)
			if !ok {
				return fmt.Errorf("internal: %s writes %s, not under an adapter's key", x.info.Name, c.Loc)
			}
			if key != "" && !strings.EqualFold(k, key) {
				return badinput.Errorf("the values write to two adapters (%s and %s): --restart-adapter restarts one", key, k)
			}
			key = k
		}
	}
	read := func(name string) string {
		b := x.env.Backends[backend.BackendRegistry]
		if b == nil {
			return ""
		}
		v, err := b.Read(backend.Loc{Backend: backend.BackendRegistry, Path: key, Name: name})
		if err != nil || v.IsAbsent() {
			return ""
		}
		return v.String()
	}
	r := &AdapterRestart{Adapter: read("DriverDesc"), GUID: read("NetCfgInstanceId"), LinkTimeoutNs: LinkTimeout.Nanoseconds()}
	if r.Adapter == "" {
		r.Adapter = key
	}
	if !reGUID().MatchString(r.GUID) {
		return fmt.Errorf("the adapter at %s has no interface GUID (NetCfgInstanceId %q, want {8-4-4-4-12 hex digits}): cannot find it to restart it", key, r.GUID)
	}
	values := 0
	for _, a := range x.res.Order {
		if a != 0 {
			values++
		}
	}
	r.Planned = 2 * values
	r.Lookup = strings.Join(powershell(lookupScript(r.GUID)), " ")
	r.Restart = strings.Join(powershell(restartScript(r.GUID)), " ")
	r.Status = strings.Join(powershell(statusScript(r.GUID)), " ")
	x.res.Restart = r
	x.res.Writes = append(x.res.Writes, fmt.Sprintf("network adapter %q: restarted (Restart-NetAdapter) after each change and each restore, %d restarts in all; each waits for the link (Get-NetAdapter status Up, at most %s) before the settle time",
		r.Adapter, r.Planned, LinkTimeout))
	return nil
}

// adapterKey is the class key of the adapter a registry path lies under
// (NetClassKey\0007).
func adapterKey(path string) (string, bool) {
	pre := knob.NetClassKey + `\`
	if len(path) < len(pre)+4 || !strings.EqualFold(path[:len(pre)], pre) {
		return "", false
	}
	return path[:len(pre)+4], true
}

func (x *experiment) runner() Runner {
	if x.opts.Runner != nil {
		return x.opts.Runner
	}
	return runCommand
}

// lookupAdapter finds the adapter by its GUID; it runs before anything
// changes, so a system without the NetAdapter module (Wine, an old
// Windows) or without the adapter stops the run with nothing to undo.
func (x *experiment) lookupAdapter(ctx context.Context) error {
	r := x.res.Restart
	out, err := x.runner()(ctx, powershell(lookupScript(r.GUID)))
	if err != nil {
		return fmt.Errorf("find network adapter %q (interface GUID %s) to restart it: %w", r.Adapter, r.GUID, err)
	}
	if st := strings.TrimSpace(out); st == "" || strings.Contains(st, "\n") {
		return fmt.Errorf("Get-NetAdapter gave no single status for the interface GUID %s of %q: cannot restart it", r.GUID, r.Adapter)
	}
	return nil
}

// restartAdapter restarts the adapter and waits until its status is Up,
// at most LinkTimeout.
func (x *experiment) restartAdapter(ctx context.Context) error {
	r := x.res.Restart
	run := x.runner()
	if _, err := run(ctx, powershell(restartScript(r.GUID))); err != nil {
		return fmt.Errorf("restart network adapter %q: %w", r.Adapter, err)
	}
	r.Done++
	start := time.Now()
	status := ""
	for {
		out, err := run(ctx, powershell(statusScript(r.GUID)))
		if err != nil {
			return fmt.Errorf("status of network adapter %q after its restart: %w", r.Adapter, err)
		}
		status = strings.TrimSpace(out)
		if strings.EqualFold(status, "Up") {
			r.WaitedNs = max(r.WaitedNs, time.Since(start).Nanoseconds())
			return nil
		}
		if time.Since(start) >= LinkTimeout {
			return fmt.Errorf("network adapter %q restarted but its link is not up after %s (status %q): check the cable or the link partner", r.Adapter, LinkTimeout, status)
		}
		if err := clock.Pause(ctx, linkPoll); err != nil {
			return fmt.Errorf("waiting for the link of network adapter %q: %w", r.Adapter, err)
		}
	}
}

// errNoRestart is returned where no adapter can be restarted.
var errNoRestart = errors.New("restarting a network adapter needs Windows' NetAdapter PowerShell module (Restart-NetAdapter)")
