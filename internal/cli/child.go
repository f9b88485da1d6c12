package cli

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/latlab/latlab/internal/result"
	"github.com/latlab/latlab/internal/timer"
)

// latlabExecutable is the program started as a latlab child process (the
// timer holder of sweep --mode separate, the requester of crossproc). It
// is this executable; tests, whose executable is the test binary, make that
// binary act as latlab through latlabChildEnv (see TestMain in main_test.go).
var (
	latlabExecutable = os.Executable
	latlabChildEnv   []string
)

// latlabCommand returns a command running latlab with args.
func latlabCommand(ctx context.Context, args ...string) (*exec.Cmd, error) {
	exe, err := latlabExecutable()
	if err != nil {
		return nil, fmt.Errorf("find the latlab executable: %w", err)
	}
	cmd := exec.CommandContext(ctx, exe, args...)
	cmd.Env = append(os.Environ(), latlabChildEnv...)
	return cmd, nil
}

// holdInChild starts `latlab timer set R --json` and returns once the child
// reports that its request is in force, so measuring never races the
// request. release ends the child (the OS drops its request with it).
func holdInChild(ctx context.Context, r time.Duration) (time.Duration, func() error, error) {
	cmd, err := latlabCommand(context.WithoutCancel(ctx), "timer", "set", fmt.Sprintf("%dns", r.Nanoseconds()), "--json")
	if err != nil {
		return 0, nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return 0, nil, err
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		return 0, nil, fmt.Errorf("start the timer holder: %w", err)
	}
	release := func() error {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		return nil
	}
	g, err := readGrant(ctx, out, 10*time.Second)
	if err != nil {
		release()
		if s := strings.TrimSpace(stderr.String()); s != "" {
			err = fmt.Errorf("%w (holder said: %s)", err, oneLine(s))
		}
		return 0, nil, err
	}
	go io.Copy(io.Discard, out) //nolint:errcheck // keep the pipe drained
	return time.Duration(g.GrantedNs), release, nil
}

func readGrant(ctx context.Context, r io.Reader, timeout time.Duration) (timer.Grant, error) {
	type res struct {
		g   timer.Grant
		err error
	}
	ch := make(chan res, 1)
	go func() {
		line, err := bufio.NewReader(r).ReadString('\n')
		if err != nil {
			ch <- res{err: fmt.Errorf("the timer holder exited before reporting its request: %w", err)}
			return
		}
		doc, err := result.Read(strings.NewReader(line))
		g, ok := timer.KindGrant.Of(doc)
		if err != nil || !ok {
			if err == nil {
				err = fmt.Errorf("a %s document, not a %s one", doc.Kind, timer.KindGrant)
			}
			ch <- res{err: fmt.Errorf("the timer holder's report %q: %w", strings.TrimSpace(line), err)}
			return
		}
		ch <- res{g: *g}
	}()
	t := time.NewTimer(timeout)
	defer t.Stop()
	select {
	case r := <-ch:
		return r.g, r.err
	case <-ctx.Done():
		return timer.Grant{}, ctx.Err()
	case <-t.C:
		return timer.Grant{}, fmt.Errorf("the timer holder did not report its request within %s", timeout)
	}
}
