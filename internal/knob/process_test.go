package knob_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/latlab/latlab/internal/cli"
	"github.com/latlab/latlab/internal/knob"
	"github.com/latlab/latlab/internal/testutil"
)

// TestMain lets this test binary act as latlab: with LATLAB_TEST_MAIN=1 it
// runs the command line instead of the tests, so the crash tests can kill
// a real latlab process at any write and start a new one to recover.
func TestMain(m *testing.M) {
	if os.Getenv("LATLAB_TEST_MAIN") == "1" {
		os.Exit(cli.Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

// latlab runs this binary as latlab; faultAfter > 0 sets the fault
// injection variable.
func latlab(t *testing.T, faultAfter int, args ...string) (int, string, string) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, args...)
	// The race detector's runtime waits 1 s at exit by default; the
	// hundreds of short processes here must not.
	env := []string{"LATLAB_TEST_MAIN=1", "GORACE=atexit_sleep_ms=0"}
	for _, e := range os.Environ() {
		if !strings.HasPrefix(e, knob.FaultEnv+"=") && !strings.HasPrefix(e, "LATLAB_TEST_MAIN=") && !strings.HasPrefix(e, "GORACE=") {
			env = append(env, e)
		}
	}
	if faultAfter > 0 {
		env = append(env, fmt.Sprintf("%s=%d", knob.FaultEnv, faultAfter))
	}
	cmd.Env = env
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err = cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("run latlab %v: %v", args, err)
	}
	return code, out.String(), errb.String()
}

// crashScenario sets knobs through real latlab processes, crashing the
// process after its k-th write for every k in turn, runs `revert --all`,
// and checks the state equals the original exactly; then does the same
// with the crash inside the revert.
func crashScenario(t *testing.T, common []string, sets [][]string, snap func() map[string]string, stateDir func() string) {
	orig := snap()
	// A clean run gives the number of writes of each set.
	dir := stateDir()
	var counts []int
	total := 0
	for _, s := range sets {
		code, out, errs := latlab(t, 0, append(append(append([]string{}, common...), s...), "--state-dir", dir, "--json")...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", s, code, errs)
		}
		var res struct {
			Changes []json.RawMessage `json:"changes"`
		}
		if err := json.Unmarshal([]byte(out), &res); err != nil {
			t.Fatalf("%v: %v: %s", s, err, out)
		}
		counts = append(counts, len(res.Changes))
		total += len(res.Changes)
	}
	if maps.Equal(orig, snap()) {
		t.Fatal("the sets changed nothing")
	}
	revert := func(fault int) int {
		code, _, errs := latlab(t, fault, append(append([]string{}, common...), "knob", "revert", "--all", "--state-dir", dir)...)
		if code != 0 && code != knob.FaultExitCode {
			t.Fatalf("revert --all: exit %d: %s", code, errs)
		}
		return code
	}
	revert(0)
	if d := diff(orig, snap()); d != "" {
		t.Fatalf("apply then revert: %s", d)
	}
	t.Logf("%d writes in %d sets", total, len(sets))
	for k := 1; k <= total; k++ {
		dir = stateDir()
		left := k
		for i, s := range sets {
			fault := 0
			if left <= counts[i] {
				fault = left
			}
			code, _, errs := latlab(t, fault, append(append(append([]string{}, common...), s...), "--state-dir", dir)...)
			if fault > 0 {
				if code != knob.FaultExitCode {
					t.Fatalf("k=%d: %v should have crashed after write %d, exit %d: %s", k, s, fault, code, errs)
				}
				break
			}
			if code != 0 {
				t.Fatalf("k=%d: %v: exit %d: %s", k, s, code, errs)
			}
			left -= counts[i]
		}
		revert(0)
		if d := diff(orig, snap()); d != "" {
			t.Fatalf("crash after write %d, then revert --all: %s", k, d)
		}
	}
	for k := 1; k <= total; k++ {
		dir = stateDir()
		for _, s := range sets {
			if code, _, errs := latlab(t, 0, append(append(append([]string{}, common...), s...), "--state-dir", dir)...); code != 0 {
				t.Fatalf("%v: exit %d: %s", s, code, errs)
			}
		}
		crashed := revert(k) == knob.FaultExitCode
		revert(0)
		if d := diff(orig, snap()); d != "" {
			t.Fatalf("crash in revert after write %d (crashed %v), then revert again: %s", k, crashed, d)
		}
		if !crashed {
			break // the revert needs fewer writes than k
		}
	}
}

func diff(want, got map[string]string) string {
	var d []string
	for _, k := range slices.Sorted(maps.Keys(want)) {
		if g, ok := got[k]; !ok {
			d = append(d, fmt.Sprintf("%s missing", k))
		} else if g != want[k] {
			d = append(d, fmt.Sprintf("%s = %q, want %q", k, g, want[k]))
		}
	}
	for _, k := range slices.Sorted(maps.Keys(got)) {
		if _, ok := want[k]; !ok {
			d = append(d, fmt.Sprintf("%s appeared", k))
		}
	}
	return strings.Join(d, "; ")
}

// TestCrashRecoveryFixtureTree runs the Linux knobs against a fixture
// tree through --root (on Windows too: the file backend is plain files).
func TestCrashRecoveryFixtureTree(t *testing.T) {
	root := knob.LinuxTreeForTest(t)
	sets := [][]string{
		{"knob", "set", "tcp-recovery", "rack,no-dupthresh"},
		{"knob", "set", "tcp-dsack", "off"},
		{"knob", "set", "clocksource", "hpet"},
		{"knob", "set", "timer-slack", "1us", "--pid", "4242"},
		{"knob", "set", "irq-affinity", "1-2", "--irq", "24"},
		{"knob", "set", "rps", "0-1", "--iface", "eth0"},
		{"knob", "set", "tcp-recovery", "0"},
	}
	if knob.HostOS != "linux" {
		t.Skip("the Linux knobs are set on Linux only; Windows runs TestCrashRecoveryRegistry")
	}
	snap := func() map[string]string {
		s := knob.SnapshotTreeForTest(t, root)
		for k := range s {
			if strings.HasPrefix(k, "var/") {
				delete(s, k) // the journal itself
			}
		}
		return s
	}
	crashScenario(t, []string{"--root", root}, sets, snap, func() string { return testutil.TempDir(t) })
}
