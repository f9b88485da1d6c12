package journal

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unsafe"

	"golang.org/x/sys/windows"

	"github.com/latlab/latlab/internal/testutil"
)

// The state directory latlab creates grants no one but SYSTEM,
// Administrators and its creator any access, and inherits nothing: a
// plain sub-directory of %ProgramData% lets every user add files.
func TestStateDirCreatedPrivate(t *testing.T) {
	keepsACLs(t)
	dir := filepath.Join(testutil.TempDir(t), "state")
	j, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	j.Close()
	sd, err := windows.GetNamedSecurityInfo(dir, windows.SE_FILE_OBJECT, windows.DACL_SECURITY_INFORMATION)
	if err != nil {
		t.Fatal(err)
	}
	s := sd.String()
	t.Logf("state directory security: %s", s)
	if !strings.Contains(s, "D:P") || strings.Contains(s, ";;;WD)") || strings.Contains(s, ";;;BU)") {
		t.Errorf("state directory security %s: want a protected ACL of SYSTEM, Administrators and the user only", s)
	}
}

// Elevated, a state directory that everyone may write is refused.
func TestStateDirStrictACL(t *testing.T) {
	if !windows.GetCurrentProcessToken().IsElevated() {
		t.Skip("the ACL check applies to an elevated latlab only")
	}
	dir := keepsACLs(t)
	if _, err := Open(dir); err == nil || !strings.Contains(err.Error(), "S-1-1-0 may change it") || !strings.Contains(err.Error(), "fix: icacls") {
		t.Fatalf("open of a directory everyone may write: %v", err)
	}
}

// keepsACLs skips the test where directories do not get the ACL they are
// created with (Wine derives every ACL from the Unix permissions), and
// returns a directory that everyone may change.
func keepsACLs(t *testing.T) string {
	dir := filepath.Join(testutil.TempDir(t), "open")
	sd, err := windows.SecurityDescriptorFromString("D:P(A;OICI;FA;;;WD)")
	if err != nil {
		t.Fatal(err)
	}
	p, _ := windows.UTF16PtrFromString(dir)
	sa := &windows.SecurityAttributes{Length: uint32(unsafe.Sizeof(windows.SecurityAttributes{})), SecurityDescriptor: sd}
	if err := windows.CreateDirectory(p, sa); err != nil {
		t.Fatal(err)
	}
	got, err := windows.GetNamedSecurityInfo(dir, windows.SE_FILE_OBJECT, windows.DACL_SECURITY_INFORMATION)
	if err != nil || !strings.Contains(got.String(), "(A;OICI;FA;;;WD)") {
		t.Skipf("this system does not keep the ACL a directory is created with (it made %v of D:P(A;OICI;FA;;;WD), %v)", got, err)
	}
	return dir
}

// A symbolic link planted as the lock is refused and its target never
// created.
func TestStateDirSymlinksRefused(t *testing.T) {
	target := filepath.Join(testutil.TempDir(t), "created")
	dir := testutil.TempDir(t)
	link := filepath.Join(dir, LockFile)
	if err := os.Symlink(target, link); err != nil {
		t.Skipf("cannot create a symbolic link here: %v", err)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Skipf("os.Symlink made no link here (%v)", err)
	}
	if _, err := Open(dir); err == nil || !strings.Contains(err.Error(), "symbolic link") {
		t.Fatalf("open with a planted lock link: %v", err)
	}
	if _, err := os.Lstat(target); err == nil {
		t.Fatal("the link's target was created")
	}
}
