package cli

import (
	"bufio"
	"bytes"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/latlab/latlab/internal/knob"
	"github.com/latlab/latlab/internal/testutil"
)

const tryCS = "sys/devices/system/clocksource/clocksource0/current_clocksource"

// tryTree is a --root fixture with the clocksource and tcp-recovery files.
func tryTree(t *testing.T) string {
	root := testutil.TempDir(t)
	for p, c := range map[string]string{
		tryCS: "tsc\n",
		"sys/devices/system/clocksource/clocksource0/available_clocksource": "tsc hpet acpi_pm\n",
		"proc/sys/net/ipv4/tcp_recovery":                                    "1\n",
	} {
		full := filepath.Join(root, p)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

// snapTree is every file of a tree but the state directory, by path.
func snapTree(t *testing.T, root string) map[string]string {
	t.Helper()
	m := map[string]string{}
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && d.Name() == "latlab" {
			return filepath.SkipDir
		}
		if !d.IsDir() {
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			m[p] = string(b)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// latlabProcess is this test binary started as latlab.
func latlabProcess(t *testing.T, env []string, args ...string) *exec.Cmd {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, args...)
	cmd.Env = append(os.Environ(), helperEnv+"=1", "GORACE=atexit_sleep_ms=0")
	cmd.Env = append(cmd.Env, env...)
	return cmd
}

func runLatlab(t *testing.T, env []string, args ...string) (int, string, string) {
	t.Helper()
	cmd := latlabProcess(t, env, args...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.ExitCode(), out.String(), errb.String()
	} else if err != nil {
		t.Fatal(err)
	}
	return 0, out.String(), errb.String()
}

// After a try that was killed, knob set warns and try refuses until
// knob revert --all restores the tree exactly.
func checkRecovery(t *testing.T, root, state string, orig map[string]string, what string) {
	t.Helper()
	j, err := knob.ReadJournal(state)
	if err != nil {
		t.Fatal(err)
	}
	open := 0
	for _, e := range j.Entries {
		if e.Open() {
			open++
		}
	}
	if open == 0 && !maps.Equal(orig, snapTree(t, root)) {
		t.Fatalf("%s: the tree was changed, but the journal has no open entry", what)
	}
	code, _, errs := runLatlab(t, nil, "--root", root, "try", "clocksource", "hpet", "--state-dir", state, "--blocks", "1", "--block-duration", "10ms", "--settle", "0")
	if open > 0 {
		want := "latlab knob revert --all --root " + root + " --state-dir " + state + " restores the original values; then run try again"
		if code != 3 || !strings.Contains(errs, "an experiment did not finish: \"latlab try clocksource hpet") || !strings.Contains(errs, want) {
			t.Fatalf("%s: the next try: exit %d %q, want it refused with %q", what, code, errs, want)
		}
		code, _, errs = runLatlab(t, nil, "--root", root, "knob", "set", "tcp-recovery", "5", "--state-dir", state)
		if code != 0 || !strings.Contains(errs, "warning: an experiment did not finish") || !strings.Contains(errs, "left 1 change(s) of clocksource in place") {
			t.Fatalf("%s: knob set: exit %d %q, want the unfinished experiment named", what, code, errs)
		}
	} else if code != 0 {
		t.Fatalf("%s: nothing was left changed, but the next try failed: exit %d %s", what, code, errs)
	}
	if code, _, errs := runLatlab(t, nil, "--root", root, "knob", "revert", "--all", "--state-dir", state); code != 0 {
		t.Fatalf("%s: revert --all: exit %d %s", what, code, errs)
	}
	if got := snapTree(t, root); !maps.Equal(orig, got) {
		t.Fatalf("%s: after revert --all the tree differs: clocksource %q, tcp_recovery %q", what, got[filepath.Join(root, tryCS)], got[filepath.Join(root, "proc/sys/net/ipv4/tcp_recovery")])
	}
	code, _, errs = runLatlab(t, nil, "--root", root, "knob", "set", "tcp-recovery", "1", "--state-dir", state)
	if code != 0 || strings.Contains(errs, "did not finish") {
		t.Fatalf("%s: after the revert knob set still warns: exit %d %q", what, code, errs)
	}
}

// A try killed right after any of its writes (injected: the process
// exits at once, as after kill -9) leaves only journal entries that
// knob revert --all restores exactly; the next try and knob set name the
// unfinished experiment until then.
func TestTryCrashAfterEveryWrite(t *testing.T) {
	root := tryTree(t)
	orig := snapTree(t, root)
	args := []string{"--root", root, "try", "clocksource", "hpet", "acpi_pm", "--blocks", "2", "--block-duration", "10ms", "--settle", "0", "--seed", "5"}
	// Two values, two blocks each, a write before and after each block.
	const writes = 8
	for k := 1; k <= writes+1; k++ {
		state := testutil.TempDir(t)
		env := []string{fmt.Sprintf("%s=%d", knob.FaultEnv, k)}
		code, _, errs := runLatlab(t, env, append(args, "--state-dir", state)...)
		if k <= writes && code != knob.FaultExitCode {
			t.Fatalf("k=%d: want a crash after write %d, exit %d: %s", k, k, code, errs)
		}
		if k > writes && code != 0 {
			t.Fatalf("k=%d: the run has %d writes, but it failed: exit %d %s", k, writes, code, errs)
		}
		if got := snapTree(t, root)[filepath.Join(root, tryCS)]; (k%2 == 1 && k <= writes) != (got != "tsc\n") {
			t.Fatalf("k=%d: clocksource %q after the crash", k, got)
		}
		checkRecovery(t, root, state, orig, fmt.Sprintf("crash after write %d", k))
	}
}

// kill -9 of a real try at each of its blocks, then revert.
func TestTryKillDuringBlocks(t *testing.T) {
	root := tryTree(t)
	orig := snapTree(t, root)
	for n := 1; n <= 4; n++ {
		state := testutil.TempDir(t)
		cmd := latlabProcess(t, nil, "--root", root, "try", "clocksource", "hpet", "--blocks", "2", "--block-duration", "50ms", "--settle", "0", "--seed", "3", "--state-dir", state)
		stderr, err := cmd.StderrPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			if strings.HasPrefix(sc.Text(), fmt.Sprintf("block %d/4:", n)) {
				cmd.Process.Signal(syscall.SIGKILL)
				break
			}
		}
		err = cmd.Wait()
		if ee, ok := err.(*exec.ExitError); !ok || ee.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
			t.Fatalf("block %d: the process was not killed: %v", n, err)
		}
		checkRecovery(t, root, state, orig, fmt.Sprintf("kill -9 at block %d", n))
	}
}
