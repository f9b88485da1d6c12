package backend

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/latlab/latlab/internal/testutil"
)

// systemctl runs as root with a clean environment and / as its working
// directory: nothing of the caller's (SYSTEMD_EDITOR, LD_PRELOAD, a
// directory another user owns) reaches it.
func TestSystemctlCleanEnvironment(t *testing.T) {
	dir := testutil.TempDir(t)
	fake := filepath.Join(dir, "systemctl")
	if err := os.WriteFile(fake, []byte("#!/bin/sh\npwd\nenv\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	saved := systemctlPaths
	t.Cleanup(func() { systemctlPaths = saved })
	systemctlPaths = []string{fake}
	t.Setenv("SYSTEMD_EDITOR", "/tmp/evil")
	t.Setenv("LATLAB_CALLER_SECRET", "x")
	t.Chdir(dir)
	out, err := NewService("/").Run("status")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if lines[0] != "/" {
		t.Errorf("working directory %q, want /", lines[0])
	}
	for _, l := range lines[1:] {
		if strings.Contains(l, "SYSTEMD_EDITOR") || strings.Contains(l, "LATLAB_CALLER_SECRET") {
			t.Errorf("the caller's %s reached systemctl", l)
		}
	}
	if !strings.Contains(string(out), "LC_ALL=C") || !strings.Contains(string(out), "PATH=/usr/sbin:/usr/bin:/sbin:/bin") {
		t.Errorf("environment:\n%s", out)
	}
}
