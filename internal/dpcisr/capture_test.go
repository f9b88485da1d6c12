package dpcisr

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/latlab/latlab/internal/testutil"
)

// The xperf sequence, with a fake xperf that writes the report.
func TestCaptureSequence(t *testing.T) {
	dir := testutil.TempDir(t)
	report := readFixture(t, "xperf-dpcisr-written-layout.txt")
	var calls []string
	var slept time.Duration
	c := Capturer{
		Xperf: "xperf",
		Dir:   dir,
		Run: func(ctx context.Context, name string, args ...string) ([]byte, error) {
			calls = append(calls, strings.Join(append([]string{name}, args...), " "))
			if args[0] == "-i" {
				return nil, os.WriteFile(args[3], []byte(report), 0o644)
			}
			return nil, nil
		},
		Sleep: func(ctx context.Context, d time.Duration) error { slept = d; return nil },
	}
	b, etl, err := c.Capture(context.Background(), 3*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	etlWant := filepath.Join(dir, "dpcisr.etl")
	want := []string{
		"xperf -on PROC_THREAD+LOADER+DPC+INTERRUPT",
		"xperf -d " + etlWant,
		"xperf -i " + etlWant + " -o " + filepath.Join(dir, "dpcisr.txt") + " -a dpcisr",
	}
	if !reflect.DeepEqual(calls, want) || slept != 3*time.Second || etl != etlWant || string(b) != report {
		t.Errorf("calls %q slept %v etl %s", calls, slept, etl)
	}

	// A failed stop still tries to cancel the kernel logger.
	calls = nil
	c.Run = func(ctx context.Context, name string, args ...string) ([]byte, error) {
		calls = append(calls, args[0])
		if args[0] == "-d" {
			return nil, &CommandError{Args: args, Output: "Error: access denied\r\nmore", Err: errors.New("exit status 1")}
		}
		return nil, nil
	}
	_, _, err = c.Capture(context.Background(), time.Second)
	if err == nil || !strings.Contains(err.Error(), "access denied") || strings.Contains(err.Error(), "more") ||
		!reflect.DeepEqual(calls, []string{"-on", "-d", "-stop"}) {
		t.Errorf("err %v calls %v", err, calls)
	}
}
