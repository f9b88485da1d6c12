package lazy

import "testing"

func TestRegexpCompilesOnceOnFirstUse(t *testing.T) {
	re := Regexp(`^a(b+)$`)
	first := re()
	if first != re() {
		t.Fatal("a second call compiled the pattern again")
	}
	if m := first.FindStringSubmatch("abbb"); len(m) != 2 || m[1] != "bbb" {
		t.Fatalf("match = %q", m)
	}
}

func TestRegexpInvalidPanicsOnUseNotOnDeclaration(t *testing.T) {
	re := Regexp(`(`) // must not panic here
	defer func() {
		if recover() == nil {
			t.Fatal("an invalid pattern did not panic on use")
		}
	}()
	re()
}
