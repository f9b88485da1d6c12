package testutil

import (
	"os"
	"testing"
)

// Golden checks got against the golden file at path, or, with update
// (a package's -update flag), rewrites the file with got and passes. A
// difference fails the test showing both and how to rewrite the file.
func Golden(t testing.TB, path, got string, update bool, rewrite string) {
	t.Helper()
	if update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if got != string(want) {
		t.Errorf("read as\n%s\nwant (%s; %s rewrites it)\n%s", got, path, rewrite, want)
	}
}
