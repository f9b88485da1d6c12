package knobtest

import (
	"fmt"
	"strings"
	"sync"

	"github.com/latlab/latlab/internal/knob/backend"
)

// Systemctl is systemctl over units in memory: the commands the service
// backend runs (show, start, stop, enable, disable) change the states
// the way systemd does, and every command is recorded.
type Systemctl struct {
	mu    sync.Mutex
	Units map[string]backend.ServiceState // unit name -> state; missing: not installed
	Calls []string                        // every command, "verb unit"
	Fail  map[string]bool                 // "verb unit" commands that fail
}

// NewSystemctl returns a systemd with the given units.
func NewSystemctl(units map[string]backend.ServiceState) *Systemctl {
	return &Systemctl{Units: units, Fail: map[string]bool{}}
}

// Backend is the service backend over this fake.
func (s *Systemctl) Backend() *backend.Service { return &backend.Service{Run: s.Run} }

// Run is systemctl with args.
func (s *Systemctl) Run(args ...string) ([]byte, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(args) < 2 {
		return nil, fmt.Errorf("systemctl %s: too few arguments", strings.Join(args, " "))
	}
	verb, unit := args[0], args[len(args)-1]
	call := verb + " " + unit
	s.Calls = append(s.Calls, call)
	if s.Fail[call] {
		return nil, fmt.Errorf("systemctl %s: exit status 1", call)
	}
	st, ok := s.Units[unit]
	if verb == "show" {
		if !ok {
			return []byte("LoadState=not-found\nActiveState=inactive\nUnitFileState=\n"), nil
		}
		load, enabled := "loaded", st.Enabled
		if strings.HasPrefix(enabled, "masked") {
			load = "masked"
		}
		if enabled == "-" {
			enabled = ""
		}
		return []byte(fmt.Sprintf("LoadState=%s\nActiveState=%s\nUnitFileState=%s\n", load, st.Active, enabled)), nil
	}
	if !ok {
		return nil, fmt.Errorf("systemctl %s %s: unit not found", verb, unit)
	}
	switch verb {
	case "start":
		if strings.HasPrefix(st.Enabled, "masked") {
			return nil, fmt.Errorf("systemctl start %s: unit is masked", unit)
		}
		st.Active = "active"
	case "stop":
		if st.Active != "failed" {
			st.Active = "inactive"
		}
	case "enable":
		if strings.HasPrefix(st.Enabled, "masked") {
			return nil, fmt.Errorf("systemctl enable %s: unit file is masked", unit)
		}
		if st.Enabled == "disabled" {
			st.Enabled = "enabled"
		}
	case "disable":
		if st.Enabled == "enabled" {
			st.Enabled = "disabled"
		}
	default:
		return nil, fmt.Errorf("systemctl %s: not faked", verb)
	}
	s.Units[unit] = st
	return nil, nil
}

// State is a unit's state now.
func (s *Systemctl) State(unit string) (backend.ServiceState, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	st, ok := s.Units[unit]
	return st, ok
}
