package testutil

import (
	"os"
	"os/exec"
	"regexp"
	"syscall"
	"testing"
)

// mountNSEnv names, in the environment of a test binary that
// InOwnMountNamespace started, the test it runs there.
const mountNSEnv = "LATLAB_TEST_OWN_MOUNT_NAMESPACE"

// InOwnMountNamespace runs the calling test again in a child test process
// with a mount namespace of its own (mounts private from there down, as
// os/exec sets them up), for a test that mounts something other
// processes must not see: every test process on the machine shares the
// host's mounts, and another package's test could take the mount for its
// own and lose it when it goes. It returns true in the child, which does
// the test's work; in the caller it waits for the child, fails with its
// output if it failed, and returns false: the test returns at once.
func InOwnMountNamespace(t *testing.T) bool {
	t.Helper()
	if os.Getenv(mountNSEnv) == t.Name() {
		return true
	}
	cmd := exec.Command(os.Args[0], "-test.run=^"+regexp.QuoteMeta(t.Name())+"$", "-test.count=1", "-test.v")
	cmd.Env = append(os.Environ(), mountNSEnv+"="+t.Name())
	cmd.SysProcAttr = &syscall.SysProcAttr{Unshareflags: syscall.CLONE_NEWNS}
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s in a mount namespace of its own: %v\n%s", t.Name(), err, out)
	}
	return false
}
