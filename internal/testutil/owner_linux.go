package testutil

import (
	"os"
	"testing"
)

// Nobody is the user (and group) id the tests give to "another user":
// nobody's, 65534. Root refuses to write where it could change things.
const Nobody = 65534

// MkdirOwned makes the directory dir with mode (sticky bit included),
// owned by uid and its group of the same number: the tests of what root
// refuses to write in. It needs root for any uid but the caller's.
func MkdirOwned(t testing.TB, dir string, mode os.FileMode, uid int) string {
	t.Helper()
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, mode); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(dir, uid, uid); err != nil {
		t.Fatal(err)
	}
	return dir
}

// SymlinkOwned makes link point to target, the link itself owned by uid:
// a link another user planted.
func SymlinkOwned(t testing.TB, target, link string, uid int) string {
	t.Helper()
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	if err := os.Lchown(link, uid, uid); err != nil {
		t.Fatal(err)
	}
	return link
}
