package cli

import (
	"os"
	"testing"
)

// helperEnv makes the test binary act as latlab. Commands that start latlab
// as a child process (sweep --mode separate, crossproc) run
// latlabExecutable, which in tests is this test binary; with helperEnv set
// it runs latlab's Main with its arguments instead of the tests.
const helperEnv = "LATLAB_CLI_TEST_AS_LATLAB"

func TestMain(m *testing.M) {
	if os.Getenv(helperEnv) == "1" {
		os.Exit(Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
	}
	latlabChildEnv = []string{helperEnv + "=1"}
	os.Exit(m.Run())
}
