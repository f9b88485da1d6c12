package backend

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
)

// ErrUnavailable is a backend that cannot work on this machine at all
// (systemd is not running, the store is under a fixture --root): the
// setting is not unreadable, there is nothing to read.
var ErrUnavailable = errors.New("not available")

// ServiceState is what a systemd unit's Value holds: whether it runs
// (systemctl is-active: ActiveState) and whether it starts at boot
// (systemctl is-enabled: UnitFileState), as systemctl names them.
type ServiceState struct {
	Active  string // active, inactive, failed, activating, deactivating, reloading...
	Enabled string // enabled, disabled, masked, static, indirect...; "-" when systemd gives none
}

// Running reports whether the unit runs or is about to: ActiveState
// active, activating, reloading or refreshing. Inactive, failed and
// deactivating are all "not running", which `systemctl stop` leaves.
func (s ServiceState) Running() bool {
	switch s.Active {
	case "active", "activating", "reloading", "refreshing":
		return true
	}
	return false
}

// Value is the stored form: "ACTIVE ENABLED", e.g. "active enabled".
func (s ServiceState) Value() Value {
	return Value{Type: TypeService, Data: []byte(s.Active + " " + s.Enabled)}
}

// maxServiceValue bounds a stored service state: two systemd words.
const maxServiceValue = 64

// DecodeService reads a stored service state. Both words must be plain
// lower-case systemd state names.
func DecodeService(v Value) (ServiceState, error) {
	if v.Type != TypeService {
		return ServiceState{}, fmt.Errorf("not a service state: a %s value", v.Type)
	}
	if len(v.Data) > maxServiceValue {
		return ServiceState{}, fmt.Errorf("a service state of %d bytes", len(v.Data))
	}
	f := strings.Split(string(v.Data), " ")
	if len(f) != 2 || !stateWord(f[0]) || !(stateWord(f[1]) || f[1] == "-") {
		return ServiceState{}, fmt.Errorf("service state %q: want ACTIVE ENABLED, e.g. \"active enabled\"", v.Data)
	}
	return ServiceState{Active: f[0], Enabled: f[1]}, nil
}

// stateWord is a systemd state name: lower-case letters and dashes.
func stateWord(s string) bool {
	if s == "" || len(s) > 24 {
		return false
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r == '-') {
			return false
		}
	}
	return true
}

// ValidUnit reports whether s is a service unit name latlab passes to
// systemctl: a plain name (letters, digits, ":-_.\@") ending in .service,
// never an option or a path.
func ValidUnit(s string) bool {
	name, ok := strings.CutSuffix(s, ".service")
	if !ok || name == "" || len(s) > 255 || name[0] == '-' {
		return false
	}
	for _, r := range name {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune(":-_.\\@", r)) {
			return false
		}
	}
	return true
}

// Service reads and changes systemd service units through systemctl. Loc
// Path is the unit (irqbalance.service); the Value a ServiceState. A
// unit that is not installed reads Absent. Write starts or stops the
// unit and enables or disables it until it matches the value; it never
// masks, unmasks or removes a unit.
type Service struct {
	// Run runs systemctl with args and returns its standard output;
	// tests replace it.
	Run func(args ...string) ([]byte, error)
	// Booted says why systemd cannot be asked (not PID 1, a fixture
	// --root); nil when it can.
	Booted func() error
}

// systemctlPaths are where distributions install systemctl; latlab runs
// it as root, so never from PATH.
var systemctlPaths = []string{"/usr/bin/systemctl", "/bin/systemctl"}

// systemctlEnv is the whole environment systemctl gets: no pager, no
// colours, untranslated messages, and a PATH of root's own directories.
var systemctlEnv = []string{"PATH=/usr/sbin:/usr/bin:/sbin:/bin", "LC_ALL=C", "SYSTEMD_PAGER=", "SYSTEMD_COLORS=0"}

// NewService is the service backend of this machine: systemctl, when
// systemd runs it (sd_booted(3): /run/systemd/system exists). Under a
// fixture --root it is not available, so tests never touch this
// machine's services.
func NewService(root string) *Service {
	return &Service{
		Booted: func() error {
			if root != "/" && root != "" {
				return fmt.Errorf("services are read through systemctl, which is %w under --root %s", ErrUnavailable, root)
			}
			if st, err := os.Stat("/run/systemd/system"); err != nil || !st.IsDir() {
				return fmt.Errorf("systemd is not running on this machine (no /run/systemd/system): services are %w", ErrUnavailable)
			}
			return nil
		},
		Run: func(args ...string) ([]byte, error) {
			exe := ""
			for _, p := range systemctlPaths {
				if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() {
					exe = p
					break
				}
			}
			if exe == "" {
				return nil, fmt.Errorf("systemctl is %w: not in %s", ErrUnavailable, strings.Join(systemctlPaths, " or "))
			}
			cmd := exec.Command(exe, args...)
			// latlab runs it as root: nothing of the caller's
			// environment (SYSTEMD_* settings, an editor, LD_*, a
			// PATH) nor its working directory (which another user may
			// own) reaches it.
			cmd.Env = systemctlEnv
			cmd.Dir = "/"
			out, err := cmd.Output()
			if err != nil {
				var ee *exec.ExitError
				msg := ""
				if errors.As(err, &ee) {
					msg = strings.TrimSpace(string(ee.Stderr))
				}
				return out, fmt.Errorf("systemctl %s: %v: %s", strings.Join(args, " "), err, msg)
			}
			return out, nil
		},
	}
}

// maxShowOutput bounds what `systemctl show` of three properties prints.
const maxShowOutput = 4096

// State reads the unit's state; ok is false when it is not installed
// (LoadState not-found).
func (b *Service) State(unit string) (ServiceState, bool, error) {
	if !ValidUnit(unit) {
		return ServiceState{}, false, fmt.Errorf("%q is not a service unit name", unit)
	}
	if b.Booted != nil {
		if err := b.Booted(); err != nil {
			return ServiceState{}, false, err
		}
	}
	out, err := b.Run("show", "--property=LoadState,ActiveState,UnitFileState", unit)
	if err != nil {
		return ServiceState{}, false, err
	}
	return ParseServiceShow(out)
}

// ParseServiceShow reads `systemctl show --property=LoadState,
// ActiveState,UnitFileState` output: KEY=VALUE lines.
func ParseServiceShow(out []byte) (ServiceState, bool, error) {
	if len(out) > maxShowOutput {
		return ServiceState{}, false, fmt.Errorf("systemctl show printed %d bytes, more than three properties take", len(out))
	}
	props := map[string]string{}
	sc := bufio.NewScanner(strings.NewReader(string(out)))
	for sc.Scan() {
		k, v, ok := strings.Cut(strings.TrimSpace(sc.Text()), "=")
		if ok {
			props[k] = v
		}
	}
	load, ok := props["LoadState"]
	if !ok {
		return ServiceState{}, false, fmt.Errorf("systemctl show printed no LoadState: %q", strings.TrimSpace(string(out)))
	}
	if load == "not-found" {
		return ServiceState{}, false, nil
	}
	s := ServiceState{Active: props["ActiveState"], Enabled: props["UnitFileState"]}
	if s.Enabled == "" {
		s.Enabled = "-"
	}
	if !stateWord(s.Active) || !(stateWord(s.Enabled) || s.Enabled == "-") {
		return ServiceState{}, false, fmt.Errorf("systemctl show: unexpected state %q %q", s.Active, s.Enabled)
	}
	return s, true, nil
}

func (b *Service) Read(l Loc) (Value, error) {
	s, ok, err := b.State(l.Path)
	if err != nil {
		return Value{}, err
	}
	if !ok {
		return Absent, nil
	}
	return s.Value(), nil
}

// Write brings the unit to v: stop before and start after a change of
// its enablement, so "off" stops it first and "on" enables it first.
// Only enabled and disabled are made; any other enablement (masked,
// static) must already hold.
func (b *Service) Write(l Loc, v Value) error {
	if v.IsAbsent() {
		return fmt.Errorf("%s: latlab does not install or remove services", l)
	}
	want, err := DecodeService(v)
	if err != nil {
		return err
	}
	cur, ok, err := b.State(l.Path)
	if err != nil {
		return err
	}
	if !ok {
		return fmt.Errorf("%s is not installed", l.Path)
	}
	if cur.Running() && !want.Running() {
		if _, err := b.Run("stop", l.Path); err != nil {
			return err
		}
	}
	if cur.Enabled != want.Enabled {
		verb := ""
		switch want.Enabled {
		case "enabled":
			verb = "enable"
		case "disabled":
			verb = "disable"
		default:
			return fmt.Errorf("%s is %s: latlab makes a unit only enabled or disabled, not %s", l.Path, cur.Enabled, want.Enabled)
		}
		if _, err := b.Run(verb, l.Path); err != nil {
			return err
		}
	}
	if !cur.Running() && want.Running() {
		if _, err := b.Run("start", l.Path); err != nil {
			return err
		}
	}
	return nil
}

// CheckWrite reads the unit: systemd must be running and the unit
// installed.
func (b *Service) CheckWrite(l Loc) error {
	_, ok, err := b.State(l.Path)
	if err == nil && !ok {
		err = fmt.Errorf("%s is not installed", l.Path)
	}
	return err
}
