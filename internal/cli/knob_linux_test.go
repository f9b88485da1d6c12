package cli

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/latlab/latlab/internal/knob"
	"github.com/latlab/latlab/internal/testutil"
)

func knobTree(t *testing.T) string {
	root := testutil.TempDir(t)
	testutil.WriteTree(t, root, map[string]string{
		"proc/sys/net/ipv4/tcp_recovery": "1\n",
		"proc/sys/net/ipv4/tcp_dsack":    "1\n",
		"proc/irq/30/smp_affinity_list":  "0-1\n",
		"proc/irq/31/smp_affinity_list":  "0-1\n",
		"sys/devices/system/cpu/online":  "0-1\n",
		"proc/4242/timerslack_ns":        "50000\n",
		"proc/4242/stat":                 "4242 (game) S 1 4242 4242 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 98765 0 0\n",
	})
	return root
}

func TestKnobSetHistoryExportRevert(t *testing.T) {
	root := knobTree(t)
	state := testutil.TempDir(t)
	rec := filepath.Join(root, "proc/sys/net/ipv4/tcp_recovery")
	code, out, errs := runCLI(t, "--root", root, "knob", "set", "tcp-recovery", "rack,no-dupthresh", "--dry-run")
	if code != 0 || !strings.Contains(out, "/proc/sys/net/ipv4/tcp_recovery: 1 -> 5") || !strings.Contains(out, "printf '%s\\n' '5' > '/proc/sys/net/ipv4/tcp_recovery'") {
		t.Fatalf("dry run: exit %d %s %s", code, out, errs)
	}
	if b, _ := os.ReadFile(rec); string(b) != "1\n" {
		t.Fatal("dry run changed the file")
	}
	if _, err := os.Stat(filepath.Join(state, "journal.json")); err == nil {
		t.Fatal("dry run wrote a journal")
	}
	code, out, errs = runCLI(t, "--root", root, "knob", "set", "tcp-recovery", "5", "--state-dir", state)
	if code != 0 || !strings.Contains(out, "undo with: latlab knob revert tcp-recovery --root "+root+" --state-dir "+state+"\n") {
		t.Fatalf("set: exit %d %s %s", code, out, errs)
	}
	code, out, _ = runCLI(t, "--root", root, "knob", "set", "irq-affinity", "1", "--irq", "30", "--state-dir", state, "--json")
	if res := payload(t, readDoc(t, out), knob.KindSet); code != 0 || !res.Applied || len(res.Entries) != 1 {
		t.Fatalf("set --json: %d %s", code, out)
	}
	code, out, _ = runCLI(t, "--root", root, "knob", "set", "tcp-recovery", "5", "--state-dir", state)
	if code != 0 || !strings.Contains(out, "already 5: nothing to change") {
		t.Fatalf("set to the current value: %s", out)
	}
	code, out, _ = runCLI(t, "--root", root, "knob", "history", "--state-dir", state)
	if code != 0 || strings.Count(out, "applied") != 2 {
		t.Fatalf("history: %s", out)
	}
	code, out, _ = runCLI(t, "--root", root, "knob", "export", "--undo", "--state-dir", state)
	if code != 0 || !strings.Contains(out, "printf '%s\\n' '0-1' > '/proc/irq/30/smp_affinity_list'") || !strings.Contains(out, "printf '%s\\n' '1' > '/proc/sys/net/ipv4/tcp_recovery'") {
		t.Fatalf("export --undo: %s", out)
	}
	code, out, _ = runCLI(t, "--root", root, "knob", "export")
	if code != 0 || !strings.Contains(out, "'5' > '/proc/sys/net/ipv4/tcp_recovery'") {
		t.Fatalf("export: %s", out)
	}
	code, out, _ = runCLI(t, "--root", root, "knob", "revert", "tcp-recovery", "--state-dir", state)
	if code != 0 || !strings.Contains(out, "restored /proc/sys/net/ipv4/tcp_recovery: 5 -> 1") {
		t.Fatalf("revert: %s", out)
	}
	// Someone else changes the IRQ: revert refuses, --force restores.
	os.WriteFile(filepath.Join(root, "proc/irq/30/smp_affinity_list"), []byte("0\n"), 0o644)
	code, _, errs = runCLI(t, "--root", root, "knob", "revert", "--all", "--state-dir", state)
	if code != 3 || !strings.Contains(errs, "changed by someone else") {
		t.Fatalf("revert over a foreign change: %d %s", code, errs)
	}
	code, _, errs = runCLI(t, "--root", root, "knob", "revert", "--all", "--force", "--state-dir", state)
	if b, _ := os.ReadFile(filepath.Join(root, "proc/irq/30/smp_affinity_list")); code != 0 || string(b) != "0-1\n" {
		t.Fatalf("forced revert: %d %s %q", code, errs, b)
	}
	code, out, _ = runCLI(t, "--root", root, "knob", "revert", "--all", "--state-dir", state)
	if code != 0 || !strings.Contains(out, "nothing to revert") {
		t.Fatalf("second revert: %s", out)
	}
	if b, _ := os.ReadFile(rec); string(b) != "1\n" {
		t.Fatalf("tcp_recovery %q after revert", b)
	}
}

// revert --all --target reverts the changes of that target only, of
// every knob; the other targets' changes stay in place.
func TestKnobRevertAllTarget(t *testing.T) {
	root := knobTree(t)
	state := testutil.TempDir(t)
	read := func(p string) string {
		b, err := os.ReadFile(filepath.Join(root, p))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	for _, args := range [][]string{
		{"irq-affinity", "1", "--irq", "30"},
		{"irq-affinity", "0", "--irq", "31"},
		{"tcp-recovery", "5"},
	} {
		if code, _, errs := runCLI(t, append([]string{"--root", root, "knob", "set", "--state-dir", state}, args...)...); code != 0 {
			t.Fatalf("set %v: exit %d %s", args, code, errs)
		}
	}
	code, out, errs := runCLI(t, "--root", root, "knob", "revert", "--all", "--target", "IRQ 30", "--state-dir", state)
	if code != 0 || !strings.Contains(out, "restored /proc/irq/30/smp_affinity_list: 1 -> 0-1") || strings.Count(out, "\n") != 1 {
		t.Fatalf("revert --all --target: exit %d %q %s", code, out, errs)
	}
	if a, b, r := read("proc/irq/30/smp_affinity_list"), read("proc/irq/31/smp_affinity_list"), read("proc/sys/net/ipv4/tcp_recovery"); a != "0-1\n" || b != "0\n" || r != "5\n" {
		t.Fatalf("after revert --all --target 'IRQ 30': irq 30 %q, irq 31 %q, tcp_recovery %q; want only irq 30 restored", a, b, r)
	}
	code, out, _ = runCLI(t, "--root", root, "knob", "revert", "--all", "--target", "irq 30", "--state-dir", state)
	if code != 0 || !strings.Contains(out, `nothing to revert: no change of target "irq 30" is still in place`) {
		t.Fatalf("second revert of the target: exit %d %q", code, out)
	}
	code, _, _ = runCLI(t, "--root", root, "knob", "revert", "--all", "--state-dir", state)
	if a, b, r := read("proc/irq/30/smp_affinity_list"), read("proc/irq/31/smp_affinity_list"), read("proc/sys/net/ipv4/tcp_recovery"); code != 0 || a != "0-1\n" || b != "0-1\n" || r != "1\n" {
		t.Fatalf("revert --all: exit %d, irq 30 %q, irq 31 %q, tcp_recovery %q", code, a, b, r)
	}
}

func TestKnobLinuxBadInput(t *testing.T) {
	root := knobTree(t)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"knob", "set", "tcp-recovery", "9"}, "accepted 0-7"},
		{[]string{"knob", "set", "irq-affinity", "5", "--irq", "30"}, "CPU 5 is not online"},
		{[]string{"knob", "set", "rss", "on", "--adapter", "x"}, "rss is a windows setting"},
		{[]string{"knob", "get", "irq-affinity", "--irq", "77"}, `no IRQ "77"`},
	} {
		code, _, errs := runCLI(t, append([]string{"--root", root}, c.args...)...)
		testutil.CheckBadExit(t, fmt.Sprint(c.args), code, errs, c.want)
	}
}

// export --undo leaves a timer slack alone, as revert does, once the
// process it was set for is gone: its PID may belong to another now.
func TestKnobExportUndoTimerSlackGuard(t *testing.T) {
	root := knobTree(t)
	state := testutil.TempDir(t)
	if code, _, errs := runCLI(t, "--root", root, "knob", "set", "timer-slack", "1us", "--pid", "4242", "--state-dir", state); code != 0 {
		t.Fatalf("set: exit %d %s", code, errs)
	}
	write := "printf '%s\\n' '50000' > '/proc/4242/timerslack_ns'"
	code, out, errs := runCLI(t, "--root", root, "knob", "export", "--undo", "--state-dir", state)
	if code != 0 || !strings.Contains(out, write) || errs != "" {
		t.Fatalf("export --undo while the process runs: exit %d %q %q", code, out, errs)
	}
	// The process exits; another one gets PID 4242.
	if err := os.WriteFile(filepath.Join(root, "proc/4242/stat"), []byte("4242 (other) S 1 4242 4242 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 123456 0 0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errs = runCLI(t, "--root", root, "knob", "export", "--undo", "--state-dir", state)
	if code != 0 || strings.Contains(out, "printf") || !strings.Contains(out, "# /proc/4242/timerslack_ns: left alone: process 4242 has exited") {
		t.Fatalf("export --undo after the process exited: exit %d\n%s", code, out)
	}
	if !strings.Contains(errs, "skipped /proc/4242/timerslack_ns: process 4242 has exited") {
		t.Errorf("stderr %q: want the skipped change named", errs)
	}
	code, out, _ = runCLI(t, "--root", root, "knob", "export", "--undo", "--format", "reg", "--state-dir", state)
	if code != 0 || !strings.Contains(out, "; /proc/4242/timerslack_ns: left alone: process 4242 has exited") {
		t.Errorf("export --undo --format reg: %s", out)
	}
}

// Without --pid, timer-slack reads latlab's own slack; a kernel without
// timerslack_ns gets a message that names the file, not an empty PID. A
// tree without /proc/self does not say what the kernel has.
func TestKnobTimerSlackNoFile(t *testing.T) {
	root := knobTree(t)
	code, _, errs := runCLI(t, "--root", root, "knob", "get", "timer-slack")
	if code != 3 || errs != "latlab: /proc/self/timerslack_ns is not in this tree: /proc/self is missing too, so the tree does not say whether the kernel has timerslack_ns (it came with Linux 4.6)\n" {
		t.Errorf("exit %d %q", code, errs)
	}
	testutil.WriteTree(t, root, map[string]string{"proc/self/stat": "4242 (latlab) R 1 4242 4242 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 98765 0 0\n"})
	code, _, errs = runCLI(t, "--root", root, "knob", "get", "timer-slack")
	if code != 3 || errs != "latlab: /proc/self/timerslack_ns does not exist: this kernel does not expose timer slack (timerslack_ns came with Linux 4.6)\n" {
		t.Errorf("exit %d %q", code, errs)
	}
	code, _, errs = runCLI(t, "--root", root, "knob", "get", "timer-slack", "--pid", "999")
	testutil.CheckBadExit(t, "--pid 999", code, errs, "no process 999 (no /proc/999/timerslack_ns)")
}

// knob get and set over a tree without a setting's file: with the
// directory every kernel has above it, the kernel lacks the setting (or
// the copy left the file out, which a tree cannot rule out);
// without, the tree does not show it and says so. Either way nothing is
// set, with the same exit status, and nothing is journaled.
func TestKnobAbsentFile(t *testing.T) {
	for _, c := range []struct {
		name  string
		files map[string]string
		says  string
	}{
		{"kernel lacks", map[string]string{"sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages": "0\n"},
			"nothing was changed: /sys/kernel/mm/ksm/run does not exist: this kernel has no kernel samepage merging (CONFIG_KSM), or the tree's copy left the file out"},
		{"tree does not show", nil,
			"nothing was changed: /sys/kernel/mm/ksm/run is not in this tree: /sys/kernel/mm is missing too, so the tree does not say whether the kernel has kernel samepage merging (CONFIG_KSM)"},
	} {
		root := knobTree(t)
		testutil.WriteTree(t, root, c.files)
		state := testutil.TempDir(t)
		code, _, errs := runCLI(t, "--root", root, "knob", "set", "ksm", "2", "--state-dir", state)
		if code != 3 || errs != "latlab: "+c.says+"\n" {
			t.Errorf("%s: set: exit %d %q, want 3 %q", c.name, code, errs, c.says)
		}
		if _, err := os.Stat(filepath.Join(state, "journal.json")); err == nil {
			t.Errorf("%s: a refused set wrote a journal", c.name)
		}
		code, out, errs := runCLI(t, "--root", root, "knob", "get", "ksm", "--json")
		if code != 0 || !strings.Contains(out, `"value": "absent"`) {
			t.Errorf("%s: get: exit %d %s %s", c.name, code, out, errs)
		}
		if notShown := strings.Contains(out, `"not_shown": "/sys/kernel/mm"`); notShown != (c.files == nil) {
			t.Errorf("%s: get says not_shown: %v\n%s", c.name, notShown, out)
		}
	}
}

// knob history reads at most the journal cap, and says so.
func TestKnobHistoryBoundedRead(t *testing.T) {
	state := testutil.TempDir(t)
	p := filepath.Join(state, "journal.json")
	if err := os.WriteFile(p, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(p, 1<<30); err != nil { // sparse: nothing is stored
		t.Fatal(err)
	}
	code, _, errs := runCLI(t, "knob", "history", "--state-dir", state)
	if code != 3 || !strings.Contains(errs, "journal "+p+" is over 32 MiB, the most latlab reads") {
		t.Fatalf("history of a 1 GiB journal: exit %d %s", code, errs)
	}
}

// The undo hint of a set names the target, the root and the state
// directory the change was made with, so that running it reverts the
// change.
func TestKnobSetUndoHint(t *testing.T) {
	root := knobTree(t)
	state := filepath.Join(testutil.TempDir(t), "my state")
	aff := filepath.Join(root, "proc/irq/30/smp_affinity_list")
	code, out, errs := runCLI(t, "--root", root, "knob", "set", "irq-affinity", "1", "--irq", "30", "--state-dir", state)
	if code != 0 {
		t.Fatalf("set: %d %s", code, errs)
	}
	_, hint, ok := strings.Cut(out, "undo with: ")
	hint = strings.TrimSuffix(hint, "\n")
	want := "latlab knob revert irq-affinity --target 'irq 30' --root " + root + " --state-dir '" + state + "'"
	if !ok || hint != want {
		t.Fatalf("undo hint %q, want %q", hint, want)
	}
	args, err := splitShell(hint)
	if err != nil || args[0] != "latlab" {
		t.Fatalf("hint %q: %v", hint, err)
	}
	code, out, errs = runCLI(t, args[1:]...)
	if b, _ := os.ReadFile(aff); code != 0 || string(b) != "0-1\n" || !strings.Contains(out, "restored") {
		t.Fatalf("running the hint: %d %s %s; affinity %q", code, out, errs, b)
	}
}

// splitShell splits a command line of plain and single-quoted words.
func splitShell(s string) ([]string, error) {
	var args []string
	var w strings.Builder
	in, quoted := false, false
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case quoted && c == '\'':
			quoted = false
		case quoted:
			w.WriteByte(c)
		case c == '\'':
			quoted, in = true, true
		case c == ' ':
			if in {
				args = append(args, w.String())
				w.Reset()
				in = false
			}
		default:
			w.WriteByte(c)
			in = true
		}
	}
	if quoted {
		return nil, fmt.Errorf("unterminated quote")
	}
	if in {
		args = append(args, w.String())
	}
	return args, nil
}

// asNobody runs this test binary as latlab, as user nobody when the tests
// run as root (as they do in CI), as this user otherwise.
func asNobody(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, args...)
	cmd.Env = append(os.Environ(), helperEnv+"=1")
	if os.Geteuid() == 0 {
		// nobody must be able to run the binary: a copy in a directory
		// it may enter.
		dir := testutil.TempDir(t)
		os.Chmod(dir, 0o755)
		b, err := os.ReadFile(exe)
		if err != nil {
			t.Fatal(err)
		}
		cmd.Path = filepath.Join(dir, "latlab")
		if err := os.WriteFile(cmd.Path, b, 0o755); err != nil {
			t.Fatal(err)
		}
		cmd.Dir = dir
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	}
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err = cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return code, out.String(), errb.String()
}

// knob set without root says that it needs root, once, before it touches
// the state directory; a revert that cannot open the state directory
// says so too.
func TestKnobSetNeedsRoot(t *testing.T) {
	code, out, errs := asNobody(t, "knob", "set", "tcp-dsack", "off")
	if code != 3 || out != "" || errs != "latlab: changing kernel settings needs root: run with sudo; nothing was changed\n" {
		t.Fatalf("set as a user: exit %d\n%s\n%s", code, out, errs)
	}
	state := filepath.Join(testutil.TempDir(t), "state")
	if err := os.Mkdir(state, 0o700); err != nil {
		t.Fatal(err)
	}
	code, _, errs = asNobody(t, "knob", "revert", "--all", "--state-dir", state)
	if os.Geteuid() == 0 && (code != 3 || strings.Count(errs, state) != 1 || !strings.Contains(errs, "permission denied: it is root's: run latlab with sudo")) {
		t.Fatalf("revert as a user: exit %d\n%s", code, errs)
	}
}

// A revert --all with a mistyped --state-dir exits 2 saying no journal was
// found; it used to print "nothing to revert: every change in the journal
// is already undone" and exit 0.
func TestKnobRevertWithoutJournal(t *testing.T) {
	state := filepath.Join(testutil.TempDir(t), "sate")
	code, out, errs := runCLI(t, "--root", testutil.TempDir(t), "knob", "revert", "--all", "--state-dir", state)
	if code != 2 || strings.Contains(out, "nothing to revert") ||
		errs != "latlab: no journal in "+state+": latlab recorded no change there (is the --state-dir right?); nothing was reverted\n" {
		t.Errorf("exit %d, %q %q", code, out, errs)
	}
}

// knob set takes a value that begins with '-': rt-throttling -1 was
// "unknown flag -1".
func TestKnobSetNegativeValue(t *testing.T) {
	code, out, errs := runCLI(t, "knob", "set", "rt-throttling", "-1", "--dry-run")
	if code != 0 || !strings.Contains(out, "-> -1") {
		t.Errorf("knob set rt-throttling -1 --dry-run: exit %d: %s%s", code, out, errs)
	}
}
