package knob

import (
	"errors"
	"fmt"
	"os"

	"golang.org/x/sys/unix"

	"github.com/latlab/latlab/internal/knob/backend"
	"github.com/latlab/latlab/internal/timer"
)

// HostOS is the OS latlab runs on: the knobs it can read and set.
const HostOS = "linux"

func newEnv(root string) *Env {
	e := &Env{
		Backends: map[string]backend.Backend{
			backend.BackendFile:    backend.Files{Root: root},
			backend.BackendEthtool: backend.NewEthtool(root),
			backend.BackendService: backend.NewService(root),
		},
		Privileged: func() error {
			// Under a fixture root nothing of the system is written.
			if root != "/" && root != "" {
				return nil
			}
			if os.Geteuid() != 0 {
				return errors.New("changing kernel settings needs root: run with sudo; nothing was changed")
			}
			return nil
		},
	}
	e.KernelConfig = func() (map[string]string, string) { return timer.KernelConfig(root) }
	if root == "/" || root == "" {
		e.OwnSlack = func() (int64, error) {
			n, err := unix.PrctlRetInt(unix.PR_GET_TIMERSLACK, 0, 0, 0, 0)
			if err != nil {
				return 0, fmt.Errorf("prctl(PR_GET_TIMERSLACK): %w", err)
			}
			return int64(n), nil
		}
	}
	return e
}

// DefaultStateDir is where the journal lives: /var/lib/latlab, or
// under the fixture root when --root is not /.
func DefaultStateDir(root string) string {
	if root != "" && root != "/" {
		return root + "/var/lib/latlab"
	}
	return "/var/lib/latlab"
}
