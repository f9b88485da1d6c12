package cli

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/latlab/latlab/internal/testutil"
)

// A /proc tree with a holder of /dev/cpu_dma_latency and a process with a
// slack of 1 µs, read through --root.
func TestTimerWhoLinux(t *testing.T) {
	root := testutil.TempDir(t)
	mk := func(pid, comm, slack string, fds map[string]string) {
		d := filepath.Join(root, "proc", pid)
		os.MkdirAll(filepath.Join(d, "fd"), 0o755)
		os.WriteFile(filepath.Join(d, "comm"), []byte(comm+"\n"), 0o644)
		os.WriteFile(filepath.Join(d, "timerslack_ns"), []byte(slack+"\n"), 0o644)
		for fd, to := range fds {
			os.Symlink(to, filepath.Join(d, "fd", fd))
		}
	}
	mk("42", "cyclictest", "50000", map[string]string{"5": "/dev/cpu_dma_latency"})
	mk("43", "game", "1000", nil)
	os.MkdirAll(filepath.Join(root, "dev"), 0o755)
	os.WriteFile(filepath.Join(root, "dev", "cpu_dma_latency"), binary.NativeEndian.AppendUint32(nil, 0), 0o600)
	code, out, errs := runCLI(t, "--root", root, "timer", "who")
	if code != 0 {
		t.Fatalf("exit %d %s", code, errs)
	}
	for _, want := range []string{
		"/dev/cpu_dma_latency: limit in force 0 µs (the strictest request)",
		"held by cyclictest (pid 42, fd 5)",
		"game", "1µs",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %q in\n%s", want, out)
		}
	}
	code, out, _ = runCLI(t, "--root", root, "timer", "who", "--json")
	if code != 0 || !strings.Contains(out, `"kind": "timer-who"`) || !strings.Contains(out, `"holders": [`) {
		t.Errorf("exit %d\n%s", code, out)
	}
}
