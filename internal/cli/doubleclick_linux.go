package cli

import (
	"errors"
	"os"
)

// startedByExplorer: Linux has no equivalent; a terminal program started
// from a file manager gets no terminal at all.
func startedByExplorer() bool { return false }

func doubleClickDefaults() doubleClickEnv {
	return doubleClickEnv{Dir: os.TempDir(), Open: func(string) error { return errors.New("not supported") }, Now: nowLocal}
}
