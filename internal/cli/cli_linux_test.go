package cli

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/latlab/latlab/internal/crossproc"
	"github.com/latlab/latlab/internal/probe"
	"github.com/latlab/latlab/internal/testutil"
)

func badInputOS() []badCase { return nil }

func checkTimerStatusJSON(t *testing.T, m map[string]any) {
	for _, k := range []string{"clock_res_ns", "default_timer_slack_ns", "clocksource"} {
		if _, ok := m[k]; !ok {
			t.Errorf("timer status lacks %s: %v", k, m)
		}
	}
	// The reading thread's own slack is omitted when it is 0, which the
	// kernel gives realtime threads: a realtime run of another test of
	// this process (every thread SCHED_FIFO for its duration) can make it
	// so. Present, it is a positive number of ns.
	if v, ok := m["timer_slack_ns"]; ok {
		if f, isNum := v.(float64); !isNum || f <= 0 {
			t.Errorf("timer_slack_ns %v: want a positive number of ns or absent", v)
		}
	}
}

func TestTimerSetCommandInheritsSlack(t *testing.T) {
	code, out, errs := runCLI(t, "timer", "set", "1us", "--", "sh", "-c", "cat /proc/self/timerslack_ns")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if lines[len(lines)-1] != "1000" {
		t.Fatalf("child timer slack: %q", out)
	}
}

// A signal that timer set -- COMMAND forwarded can reach the root's
// handler only after the command's status came back: latlab must still
// own its signals then, or the handler ends it by that signal instead of
// exiting with the status (TestTimerSetTerminalCtrlC saw it happen once,
// under the race detector).
func TestTimerSetKeepsItsSignals(t *testing.T) {
	defer ownSignals.Store(false)
	ownSignals.Store(false)
	if code, _, errs := runCLI(t, "timer", "set", "1us", "--", "true"); code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if !ownSignals.Load() {
		t.Error("latlab gave its signals back after the command ended")
	}
}

func TestTimerSetPassesExitStatus(t *testing.T) {
	code, _, _ := runCLI(t, "timer", "set", "1us", "--", "sh", "-c", "exit 7")
	if code != 7 {
		t.Fatalf("exit %d, want 7", code)
	}
}

func TestTimerSetFor(t *testing.T) {
	code, out, errs := runCLI(t, "timer", "set", "20us", "--for", "10ms", "--json")
	if code != 0 || !strings.Contains(out, `"granted_ns":20000`) {
		t.Fatalf("exit %d out %q err %q", code, out, errs)
	}
}

func TestWakeRealtimeMlockDMA(t *testing.T) {
	testutil.NeedRoot(t)
	hist := testutil.TempDir(t) + "/h.txt"
	code, out, errs := runCLI(t, "wake", "--loops", "500", "--rtprio", "80", "--mlock", "--cpus", "0", "--histfile", hist, "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	th := payload(t, readDoc(t, out), probe.KindWake).Threads
	if th[0].Priority != "realtime" || th[0].RTPrio != 80 || th[0].CPU != 0 {
		t.Fatalf("thread setup %+v", th[0].ThreadSetup)
	}
	// As in cyclictest, Total counts the wake-ups inside the histogram;
	// those beyond --hist-max (possible on a busy machine) are overflows.
	h := readFile(t, hist)
	var total, over int
	for _, l := range strings.Split(h, "\n") {
		fmt.Sscanf(l, "# Total: %d", &total)
		fmt.Sscanf(l, "# Histogram Overflows: %d", &over)
	}
	if total+over != 500 || total == 0 {
		t.Fatalf("histfile footer (total %d, overflows %d):\n%s", total, over, h[len(h)-300:])
	}
}

// On Linux timer slack is per thread: a real child process's slack never
// changes this process's sleeps, so the experiment must say isolated.
func TestCrossprocLinuxIsolatedSerial(t *testing.T) {
	testutil.Serial(t) // the verdict is on sleeps beside the other process's requests
	r := crossprocRun(t)
	if r.Verdict.Behaviour != crossproc.Isolated {
		t.Fatalf("verdict %+v", r.Verdict)
	}
}

// On Linux the --live label is worked out once: printing a line must not
// read /proc or allocate while the probe measures with the GC off.
func TestLiveLabelLinuxIsComputedOnce(t *testing.T) {
	for _, c := range []struct {
		o    SleepOptions
		want string
	}{
		{SleepOptions{Resolution: 1500 * time.Nanosecond, Priority: "normal"}, "Slack: 0.001500ms"},
		{SleepOptions{Resolution: time.Millisecond, Priority: "realtime"}, "Slack: 0.000000ms"},
	} {
		label := liveLabel(&c.o)
		buf := make([]byte, 0, 64)
		if got := string(label(buf)); got != c.want {
			t.Errorf("%+v: label %q, want %q", c.o, got, c.want)
		}
		if a := testing.AllocsPerRun(100, func() { buf = label(buf[:0]) }); a != 0 {
			t.Errorf("the label allocates %.1f times per line", a)
		}
	}
}

// The first SIGINT or SIGTERM cancels the command; the second ends the
// process even when the command is stuck (it used to be swallowed: root's
// latlab hung in open() on a planted FIFO could not be stopped but by
// SIGKILL).
func TestSecondSignalEndsProcess(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), signalHelperEnv+"=1")
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		lines := bufio.NewScanner(out)
		expect := func(want string) {
			t.Helper()
			if !lines.Scan() || lines.Text() != want {
				cmd.Process.Kill()
				t.Fatalf("%v: got %q, want %q", sig, lines.Text(), want)
			}
		}
		expect("ready")
		cmd.Process.Signal(sig)
		expect("cancelled")
		cmd.Process.Signal(sig)
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case err := <-done:
			// By the signal, or, where it was ignored when the process
			// started (a background job of a script), by 128+sig.
			ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus)
			if !ok || !(ws.Signaled() && ws.Signal() == sig || ws.ExitStatus() == 128+int(sig)) {
				t.Errorf("%v: the second signal did not end the process: %v", sig, err)
			}
		case <-time.After(20 * time.Second):
			cmd.Process.Kill()
			<-done
			t.Errorf("%v: the second signal was swallowed", sig)
		}
	}
}

// wake --explain (root, tracefs): data.explain[] holds the worst
// wake-ups with what ran, and the text explains them.
func TestWakeExplain(t *testing.T) {
	testutil.NeedRoot(t)
	code, out, errs := runCLI(t, "wake", "--cpus", "0", "--duration", "1s", "--explain", "--json")
	if code != 0 {
		t.Fatalf("exit %d %s", code, errs)
	}
	var doc struct {
		Data struct {
			Explain []struct {
				LatencyNs *int64 `json:"latency_ns"`
				CPU       *int   `json:"cpu"`
				Ran       []struct {
					Kind       string `json:"kind"`
					Name       string `json:"name"`
					DurationNs int64  `json:"duration_ns"`
				} `json:"ran"`
			} `json:"explain"`
			Next string `json:"explain_next_step"`
		} `json:"data"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Data.Explain) != 10 || doc.Data.Explain[0].LatencyNs == nil || *doc.Data.Explain[0].CPU != 0 || doc.Data.Next == "" {
		t.Fatalf("%+v", doc.Data)
	}
	for _, x := range doc.Data.Explain {
		for _, r := range x.Ran {
			if r.Kind != "thread" && r.Kind != "irq" && r.Kind != "softirq" && r.Kind != "idle" || r.DurationNs <= 0 {
				t.Errorf("%+v", r)
			}
		}
	}
	code, out, errs = runCLI(t, "wake", "--cpus", "0", "--duration", "1s", "--explain-above", "1ns")
	if code != 0 || !strings.Contains(out, "main cause: ") || !strings.Contains(out, "totals by cause") || !strings.Contains(out, "next step: ") {
		t.Fatalf("exit %d\n%s%s", code, out, errs)
	}
	_, expl, _ := strings.Cut(out, "why the worst")
	for _, l := range strings.Split(expl, "\n") {
		if len([]rune(l)) > 80 {
			t.Errorf("wider than 80 columns: %q", l)
		}
	}
	code, _, errs = runCLI(t, "wake", "--threads", "2", "--explain")
	testutil.CheckBadExit(t, "--explain with --threads", code, errs, "--explain traces the measured CPUs")
}

// tryKnob and tryValue are a process-scope experiment of this OS: it
// changes nothing outside the test's process.
const tryKnob, tryValue = "timer-slack", "1us"
