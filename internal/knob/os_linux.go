package knob

import (
	"errors"
	"os"

	"github.com/latlab/latlab/internal/knob/backend"
)

// HostOS is the OS latlab runs on: the knobs it can read and set.
const HostOS = "linux"

func newEnv(root string) *Env {
	return &Env{
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
}

// DefaultStateDir is where the journal lives: /var/lib/latlab, or
// under the fixture root when --root is not /.
func DefaultStateDir(root string) string {
	if root != "" && root != "/" {
		return root + "/var/lib/latlab"
	}
	return "/var/lib/latlab"
}
