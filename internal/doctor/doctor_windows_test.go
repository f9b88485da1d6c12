package doctor

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/latlab/latlab/internal/knob"
	"github.com/latlab/latlab/internal/knob/backend"
	"github.com/latlab/latlab/internal/knob/knobtest"
)

// underKey is the real registry with HKLM moved under a test key of
// HKCU, so the test fills "HKLM" without touching the machine's.
type underKey struct {
	r   backend.Registry
	key string
}

func (u underKey) move(l backend.Loc) backend.Loc {
	if rest, ok := strings.CutPrefix(l.Path, `HKLM\`); ok {
		l.Path = u.key + `\` + rest
	}
	return l
}

func (u underKey) Read(l backend.Loc) (backend.Value, error) { return u.r.Read(u.move(l)) }
func (u underKey) Write(l backend.Loc, v backend.Value) error {
	return fmt.Errorf("the audit must not write (%s)", l)
}
func (u underKey) CheckWrite(l backend.Loc) error {
	return fmt.Errorf("the audit must not check writes (%s)", l)
}
func (u underKey) List(p string) ([]string, []string, error) {
	return u.r.List(u.move(backend.Loc{Path: p}).Path)
}

func (u underKey) set(t *testing.T) (set func(path, name string, v backend.Value), createKey func(string)) {
	createKey = func(path string) {
		if err := u.r.Write(u.move(backend.Loc{Backend: backend.BackendRegistry, Path: path}), backend.KeyValue); err != nil {
			t.Fatal(err)
		}
	}
	set = func(path, name string, v backend.Value) {
		createKey(path)
		if err := u.r.Write(u.move(backend.Loc{Backend: backend.BackendRegistry, Path: path, Name: name}), v); err != nil {
			t.Fatal(err)
		}
	}
	return set, createKey
}

func removeTree(r backend.Registry, key string) {
	keys, vals, err := r.List(key)
	if err != nil {
		return
	}
	for _, k := range keys {
		removeTree(r, key+`\`+k)
	}
	for _, v := range vals {
		r.Write(backend.Loc{Backend: backend.BackendRegistry, Path: key, Name: v}, backend.Absent)
	}
	r.Write(backend.Loc{Backend: backend.BackendRegistry, Path: key}, backend.Absent)
}

// The Windows audit over the real registry (Wine's under test), filled
// by the test, for the builds whose timer rules differ: 17763 (global
// requests), 19041 (per process), 22621 (Windows 11: the value is
// honoured) and 20348 (Server 2022).
func TestAuditRealRegistry(t *testing.T) {
	cases := []struct {
		build          uint32
		server         bool
		global         uint32 // GlobalTimerResolutionRequests; 0 = absent
		prio           uint32
		gtrr, prioRule string
	}{
		{17763, false, 0, 0x2, "gtrr-default", "prisep-default"},
		{17763, false, 1, 0x26, "gtrr-ignored", "prisep-same-class"},
		{19041, false, 1, 0x2, "gtrr-ignored", "prisep-default"},
		{22621, false, 1, 0x28, "gtrr-on", "prisep-other"},
		{22621, false, 0, 0x2, "gtrr-default", "prisep-default"},
		// Server 2022 ships GlobalTimerResolutionRequests=1 (PC-Tuning,
		// "Fixing timing precision in Windows after The Great Rule
		// Change"): 1 is its default, absent a change from it.
		{20348, true, 1, 0x18, "gtrr-server-2022", "prisep-default"},
		{20348, true, 0, 0x26, "gtrr-server-2022-off", "prisep-other"},
		{20348, true, 0, 0x2, "gtrr-server-2022-off", "prisep-same-class"}, // fixed quanta ignore the boost: as 0x18
	}
	for _, c := range cases {
		t.Run(fmt.Sprintf("%d-%v-%d", c.build, c.server, c.global), func(t *testing.T) {
			key := fmt.Sprintf(`HKCU\Software\latlab-test-%d-doctor-%d`, os.Getpid(), c.build)
			t.Cleanup(func() { removeTree(backend.Registry{}, key) })
			u := underKey{key: key}
			set, createKey := u.set(t)
			windowsValues(set, createKey)
			set(prioKey, "Win32PrioritySeparation", backend.DWORD(c.prio))
			if c.global != 0 {
				set(kernelKey, "GlobalTimerResolutionRequests", backend.DWORD(c.global))
			}
			env := &knob.Env{Backends: map[string]backend.Backend{backend.BackendRegistry: u, backend.BackendBCD: knobtest.NewMem()},
				Build: c.build, Server: c.server, TickMs: 15.625, Privileged: func() error { return nil }}
			ss := Audit(env, "windows")
			if s := find(t, ss, "global-timer-resolution-requests", ""); s.Rule != c.gtrr {
				t.Errorf("GlobalTimerResolutionRequests: %s (%s), want %s", s.Rule, s.Reason, c.gtrr)
			}
			if s := find(t, ss, "win32-priority-separation", ""); s.Rule != c.prioRule {
				t.Errorf("Win32PrioritySeparation 0x%X: %s (%s), want %s", c.prio, s.Rule, s.Reason, c.prioRule)
			}
			for _, name := range []string{"rss", "interrupt-moderation"} {
				if s := find(t, ss, name, ""); s.Verdict != knob.Default || !strings.Contains(s.Target, "I210") {
					t.Errorf("%s: %+v", name, s)
				}
			}
			if s := find(t, ss, "display-scaling", ""); s.Rule != "display-default" || strings.Contains(s.Target, "GSM") {
				t.Errorf("display-scaling: %+v", s)
			}
		})
	}
}
