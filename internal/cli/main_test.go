package cli

import (
	"fmt"
	"os"
	"testing"
	"time"
)

// helperEnv makes the test binary act as latlab. Commands that start latlab
// as a child process (sweep --mode separate, crossproc) run
// latlabExecutable, which in tests is this test binary; with helperEnv set
// it runs latlab's Main with its arguments instead of the tests.
const helperEnv = "LATLAB_CLI_TEST_AS_LATLAB"

// signalHelperEnv makes the test binary a command that does not look at
// its context after the first signal, to see that the second ends it.
const signalHelperEnv = "LATLAB_CLI_TEST_SIGNALS"

func signalHelper() {
	ctx, stop := signalContext()
	defer stop()
	fmt.Println("ready")
	<-ctx.Done()
	fmt.Println("cancelled")
	time.Sleep(time.Minute) // stuck: only the second signal ends this early
	os.Exit(0)
}

func TestMain(m *testing.M) {
	if os.Getenv(signalHelperEnv) == "1" {
		signalHelper()
	}
	if os.Getenv(helperEnv) == "1" {
		os.Exit(Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
	}
	latlabChildEnv = []string{helperEnv + "=1"}
	os.Exit(m.Run())
}
