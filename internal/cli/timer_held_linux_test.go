package cli

import (
	"bufio"
	"errors"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/latlab/latlab/internal/testutil"
)

// heldRun is a real latlab process (this test binary acting as latlab)
// running `timer set 1us -- sh -c SCRIPT`, with its output read line by
// line.
type heldRun struct {
	cmd   *exec.Cmd
	lines chan string
	seen  []string
}

// startHeld starts latlab in a process group of its own, so that no
// terminal the tests run from sends it anything; with tty it runs instead
// as the leader of a new session whose controlling terminal is tty, like a
// command typed at a shell.
func startHeld(t *testing.T, script string, tty *os.File) *heldRun {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, "timer", "set", "1us", "--", "sh", "-c", script)
	cmd.Env = append(os.Environ(), helperEnv+"=1")
	var out io.Reader
	if tty != nil {
		cmd.Stdin, cmd.Stdout, cmd.Stderr = tty, tty, tty
		cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0}
	} else {
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		r, w, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		cmd.Stdout, cmd.Stderr = w, w
		defer w.Close()
		out = r
		t.Cleanup(func() { r.Close() })
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	h := &heldRun{cmd: cmd, lines: make(chan string, 64)}
	t.Cleanup(func() { _ = cmd.Process.Kill() }) // Wait is exit's
	if out != nil {
		h.read(out)
	}
	return h
}

func (h *heldRun) read(r io.Reader) {
	go func() {
		defer close(h.lines)
		sc := bufio.NewScanner(r)
		for sc.Scan() {
			h.lines <- strings.TrimSpace(sc.Text())
		}
	}()
}

// await returns the first line starting with prefix. The deadline only
// keeps a broken run from hanging the tests; nothing is timed.
func (h *heldRun) await(t *testing.T, prefix string) string {
	t.Helper()
	deadline := time.After(time.Minute)
	for {
		select {
		case l, ok := <-h.lines:
			if !ok {
				t.Fatalf("output ended before %q; seen %q", prefix, h.seen)
			}
			h.seen = append(h.seen, l)
			if i := strings.Index(l, prefix); i >= 0 {
				return l[i:]
			}
		case <-deadline:
			t.Fatalf("no %q within a minute; seen %q", prefix, h.seen)
		}
	}
}

// exit waits for latlab and returns its exit status; a latlab still
// running after a minute (one that swallowed a signal) is a failure.
func (h *heldRun) exit(t *testing.T) int {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- h.cmd.Wait() }()
	var err error
	select {
	case err = <-done:
	case <-time.After(time.Minute):
		h.cmd.Process.Kill()
		<-done
		t.Fatalf("latlab still running a minute after the signal; output %q", h.seen)
	}
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		t.Fatal(err)
	}
	return h.cmd.ProcessState.ExitCode()
}

// A trap in the child prints and counts every SIGINT; it announces its pid.
const countINT = `n=0; trap 'n=$((n+1)); echo "INT $n"' INT; echo "ready $$"; while :; do sleep 0.1; done`

func TestTimerSetForwardsSignals(t *testing.T) {
	t.Run("SIGINT reaches the command; its status is latlab's", func(t *testing.T) {
		h := startHeld(t, `trap 'echo got INT; exit 7' INT; echo ready; while :; do sleep 0.1; done`, nil)
		h.await(t, "ready")
		h.cmd.Process.Signal(syscall.SIGINT)
		h.await(t, "got INT")
		if code := h.exit(t); code != 7 {
			t.Errorf("exit %d, want the command's 7", code)
		}
	})
	t.Run("a command killed by SIGTERM gives 128+15", func(t *testing.T) {
		h := startHeld(t, `echo ready; exec sleep 1000`, nil)
		h.await(t, "ready")
		h.cmd.Process.Signal(syscall.SIGTERM)
		if code := h.exit(t); code != 128+int(syscall.SIGTERM) {
			t.Errorf("exit %d, want 143", code)
		}
	})
	t.Run("a command killed by SIGINT gives 128+2", func(t *testing.T) {
		h := startHeld(t, `echo ready; exec sleep 1000`, nil)
		h.await(t, "ready")
		h.cmd.Process.Signal(syscall.SIGINT)
		if code := h.exit(t); code != 128+int(syscall.SIGINT) {
			t.Errorf("exit %d, want 130", code)
		}
	})
	t.Run("a second signal ends latlab at once", func(t *testing.T) {
		h := startHeld(t, countINT, nil)
		pid, _ := strconv.Atoi(strings.TrimPrefix(h.await(t, "ready "), "ready "))
		defer syscall.Kill(pid, syscall.SIGKILL) // the command outlives latlab here
		h.cmd.Process.Signal(syscall.SIGINT)
		h.await(t, "INT 1") // the command ignores it and runs on
		h.cmd.Process.Signal(syscall.SIGINT)
		if code := h.exit(t); code != 130 {
			t.Errorf("exit %d, want 130 on the second SIGINT", code)
		}
		h.await(t, "INT 2") // forwarded as well
	})
}

// A Ctrl-C typed at the terminal reaches latlab and the command together:
// the command gets it, latlab keeps waiting for the command, and a SIGTERM
// after it is latlab's second signal. (Whether latlab also sent a copy of
// the SIGINT cannot be seen here: two pending SIGINTs merge into one;
// TestTerminalForeground checks the decision itself.)
func TestTimerSetTerminalCtrlC(t *testing.T) {
	master, tty, err := testutil.OpenPTY()
	if err != nil {
		t.Skipf("no pseudo-terminal: %v", err)
	}
	defer master.Close()
	// latlab leads the session here (a shell would in real use), so its
	// exit hangs up the terminal: the command ignores that SIGHUP.
	h := startHeld(t, `trap '' HUP; n=0; trap 'n=$((n+1)); echo "INT $n"' INT; trap 'echo "TERM after $n INT"; exit 4' TERM; echo ready; while :; do sleep 0.1; done`, tty)
	tty.Close()
	h.read(master)
	h.await(t, "ready")
	if _, err := master.Write([]byte{3}); err != nil { // ^C, VINTR
		t.Fatal(err)
	}
	h.await(t, "INT 1")
	// The command handling its copy says nothing about latlab's: on a
	// loaded machine latlab's SIGINT can still wait for a thread, and a
	// SIGTERM sent now could reach latlab's handler first. Wait until the
	// kernel has delivered it, then give the runtime time to queue it.
	awaitDelivered(t, h.cmd.Process.Pid, syscall.SIGINT)
	time.Sleep(200 * time.Millisecond)
	// SIGTERM is forwarded; latlab handles its signals in order, so a
	// second SIGINT it might send the command would arrive before it.
	h.cmd.Process.Signal(syscall.SIGTERM)
	if got := h.await(t, "TERM after"); got != "TERM after 1 INT" {
		t.Errorf("the command saw %q, want one SIGINT", got)
	}
	if code := h.exit(t); code != 143 {
		t.Errorf("exit %d, want 143 (the second signal)", code)
	}
}

// awaitDelivered waits until signal s is no longer pending for process
// pid, neither process-wide (ShdPnd) nor for its main thread (SigPnd):
// a thread has taken it and run latlab's handler.
func awaitDelivered(t *testing.T, pid int, s syscall.Signal) {
	t.Helper()
	bit := uint64(1) << (uint(s) - 1)
	deadline := time.Now().Add(time.Minute)
	for {
		b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
		if err != nil {
			t.Fatal(err)
		}
		pending := uint64(0)
		for _, l := range strings.Split(string(b), "\n") {
			k, v, ok := strings.Cut(l, ":")
			if !ok || (k != "ShdPnd" && k != "SigPnd") {
				continue
			}
			n, err := strconv.ParseUint(strings.TrimSpace(v), 16, 64)
			if err != nil {
				t.Fatalf("/proc/%d/status %s: %v", pid, k, err)
			}
			pending |= n
		}
		if pending&bit == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("signal %v still pending for pid %d after a minute", s, pid)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
