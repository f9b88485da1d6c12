package crossproc

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/latlab/latlab/internal/probe"
)

// TestMain lets this test binary be the requester: with
// LATLAB_CROSSPROC_TEST=serve it serves the protocol on its standard
// streams, with =fail it says why on standard error and exits 1.
func TestMain(m *testing.M) {
	switch os.Getenv("LATLAB_CROSSPROC_TEST") {
	case "serve":
		errc := make(chan error, 1)
		go func() {
			runtime.LockOSThread()
			errc <- Serve(os.Stdin, os.Stdout)
		}()
		if err := <-errc; err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	case "fail":
		fmt.Fprintln(os.Stderr, "cannot request anything here\nsecond line")
		os.Exit(1)
	}
	os.Exit(m.Run())
}

// requesterCmd is this test binary acting as the requester.
func requesterCmd(t *testing.T, mode string) *exec.Cmd {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe)
	cmd.Env = append(os.Environ(), "LATLAB_CROSSPROC_TEST="+mode)
	return cmd
}

// Run takes a baseline row and one row per request, in order, with the
// grant the requester reported, and classifies them; the requester has
// exited when Run returns.
func TestRunWithRequester(t *testing.T) {
	cmd := requesterCmd(t, "serve")
	var progress []int
	r, err := Run(context.Background(), Options{Requester: cmd, Periods: []time.Duration{time.Millisecond, 2 * time.Millisecond},
		Hold: 100 * time.Millisecond, Duration: time.Millisecond, Method: probe.SleepMethods()[0], Thread: probe.Thread{CPU: -1},
		Progress: func(done, total int) { progress = append(progress, done*10+total) }})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Rows) != 3 || r.Rows[0].RequestedNs != 0 || r.Rows[1].RequestedNs != 1e6 || r.Rows[2].RequestedNs != 2e6 {
		t.Fatalf("rows %+v", r.Rows)
	}
	for _, row := range r.Rows {
		if row.Slept.Count == 0 || len(row.Samples) == 0 {
			t.Errorf("row without sleeps: %+v", row)
		}
	}
	for _, row := range r.Rows[1:] {
		if row.ChildGrantedNs <= 0 {
			t.Errorf("no grant reported: %+v", row)
		}
	}
	if fmt.Sprint(progress) != "[13 23 33]" {
		t.Errorf("progress %v, want 1/3, 2/3, 3/3", progress)
	}
	if r.Rule == "" || r.Verdict.Text == "" || r.Requester != requesterName {
		t.Errorf("rule %q verdict %q requester %q", r.Rule, r.Verdict.Text, r.Requester)
	}
	if cmd.ProcessState == nil || !cmd.ProcessState.Exited() {
		t.Error("the requester is still running")
	}
}

// A requester that fails says why: the first line of its standard error
// ends the message.
func TestRunRequesterFails(t *testing.T) {
	_, err := Run(context.Background(), Options{Requester: requesterCmd(t, "fail"), Periods: []time.Duration{time.Millisecond},
		Hold: 20 * time.Millisecond, Duration: time.Millisecond, Method: probe.SleepMethods()[0], Thread: probe.Thread{CPU: -1}})
	if err == nil || !strings.HasPrefix(err.Error(), "crossproc: ") || !strings.HasSuffix(err.Error(), "(requester: cannot request anything here)") {
		t.Fatalf("err %v", err)
	}
}

func TestRunRequesterMissing(t *testing.T) {
	_, err := Run(context.Background(), Options{Requester: exec.Command(os.Args[0] + ".missing")})
	if err == nil || !strings.HasPrefix(err.Error(), "start the requester process: ") {
		t.Fatalf("err %v", err)
	}
	if _, err := Run(context.Background(), Options{}); err == nil {
		t.Fatal("no error without a requester")
	}
}

// A run stopped by ctx keeps the complete holds, with the verdict on
// them, and says how many were planned: Ctrl-C once threw them away. The
// progress callback cancels after the second hold, within the third.
func TestRunStoppedKeepsTheHoldsDone(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	r, err := Run(ctx, Options{Requester: requesterCmd(t, "serve"), Periods: []time.Duration{time.Millisecond, 2 * time.Millisecond, 3 * time.Millisecond},
		Hold: 100 * time.Millisecond, Duration: time.Millisecond, Method: probe.SleepMethods()[0], Thread: probe.Thread{CPU: -1},
		Progress: func(done, total int) {
			if done == 2 {
				cancel()
			}
		}})
	if err == nil || ctx.Err() == nil {
		t.Fatalf("err %v, want the run stopped", err)
	}
	if r == nil || len(r.Rows) != 2 || r.Planned != 4 || r.Verdict.Text == "" || r.Rows[1].RequestedNs != 1e6 {
		t.Fatalf("result %+v, want the baseline and 1ms of 4 holds, with a verdict", r)
	}
}
