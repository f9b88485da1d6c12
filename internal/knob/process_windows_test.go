package knob_test

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/latlab/latlab/internal/knob"
	"github.com/latlab/latlab/internal/knob/backend"
	"github.com/latlab/latlab/internal/testutil"
)

// TestCrashRecoveryRegistry runs real latlab processes against the real
// registry (Wine's in CI): a DWORD that exists, one that does not, and a
// QoS policy whose keys and REG_SZ values are all new.
func TestCrashRecoveryRegistry(t *testing.T) {
	r := backend.Registry{}
	policy := fmt.Sprintf("latlab-test-%d", os.Getpid())
	sets := [][]string{
		{"knob", "set", "win32-priority-separation", "0x26"},
		{"knob", "set", "network-throttling-index", "off"},
		{"knob", "set", "qos-dscp", "46", "--policy", policy, "--app", "game.exe", "--protocol", "udp", "--no-nla"},
		{"knob", "set", "win32-priority-separation", "long,fixed"},
	}
	keys := []string{`HKLM\SYSTEM\CurrentControlSet\Control\PriorityControl`,
		`HKLM\SOFTWARE\Microsoft\Windows NT\CurrentVersion\Multimedia\SystemProfile`,
		knob.QoSKey, knob.NLAKey}
	snap := func() map[string]string {
		s := map[string]string{}
		for _, k := range keys {
			snapKey(t, r, k, s)
		}
		return s
	}
	crashScenario(t, nil, sets, snap, func() string { return testutil.TempDir(t) })
}

// snapKey records a key, its values (type and bytes) and its sub-keys.
func snapKey(t *testing.T, r backend.Registry, key string, s map[string]string) {
	keys, vals, err := r.List(key)
	if err != nil {
		s["key "+strings.ToLower(key)] = "absent"
		return
	}
	s["key "+strings.ToLower(key)] = "exists"
	for _, v := range vals {
		val, err := r.Read(backend.Loc{Backend: backend.BackendRegistry, Path: key, Name: v})
		if err != nil {
			t.Fatal(err)
		}
		s["val "+strings.ToLower(key)+`\`+v] = fmt.Sprintf("%s %x", val.Type, val.Data)
	}
	for _, k := range keys {
		snapKey(t, r, key+`\`+k, s)
	}
}
