package exporter

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/latlab/latlab/internal/testutil"
)

// Issue 40: as root on Linux, a --tls-config that another user can change
// (in a directory nobody owns, owned by nobody, writable by others, or
// reached through nobody's link) is refused, as the Windows service
// refuses one Administrators alone cannot change.
func TestWebConfigOwnershipAsRoot(t *testing.T) {
	testutil.NeedRoot(t)
	base := testutil.TempDir(t)
	if err := os.Chmod(base, 0o755); err != nil {
		t.Fatal(err)
	}
	const conf = "basic_auth_users:\n  u: $2y$10$0000000000000000000000000000000000000000000000000000\n"
	write := func(dir string, uid int, mode os.FileMode) string {
		t.Helper()
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, "web.yml")
		if err := os.WriteFile(p, []byte(conf), mode); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(p, mode); err != nil {
			t.Fatal(err)
		}
		if err := os.Chown(p, uid, uid); err != nil {
			t.Fatal(err)
		}
		return p
	}
	good := write(filepath.Join(base, "etc"), 0, 0o600)
	nobodyDir := filepath.Join(base, "n")
	inNobodys := write(nobodyDir, 0, 0o600)
	if err := os.Chown(nobodyDir, testutil.Nobody, testutil.Nobody); err != nil {
		t.Fatal(err)
	}
	nobodyFile := write(filepath.Join(base, "f"), testutil.Nobody, 0o600)
	open := write(filepath.Join(base, "w"), 0, 0o666)
	link := testutil.SymlinkOwned(t, filepath.Join(base, "etc"), filepath.Join(base, "via"), testutil.Nobody)
	for _, c := range []struct{ path, want string }{
		{good, ""},
		{inNobodys, "its directory " + nobodyDir + " is owned by uid 65534"},
		{nobodyFile, "is owned by uid 65534; fix: chown root"},
		{open, "is writable by group or others"},
		{filepath.Join(link, "web.yml"), link + " is a symbolic link owned by uid 65534"},
	} {
		o := Defaults()
		o.WebConfig = c.path
		err := Validate(o)
		if c.want == "" {
			if err != nil {
				t.Errorf("%s: %v", c.path, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "only root can write") {
			t.Errorf("%s: %v, want %q", c.path, err, c.want)
		}
	}
}
