package regfile

import (
	"fmt"
	"io"
	"os"
	"strings"
	"testing"

	"github.com/latlab/latlab/internal/badinput"
)

// lower sets one of the readers' bounds to a smaller value for the rest
// of the test: a bound is proved on an input of kilobytes instead of one
// of its real size (tens of seconds under the race detector), and
// TestBoundsAsDocumented checks the value it has otherwise.
func lower[T int | int64](t *testing.T, bound *T, to T) {
	t.Helper()
	was := *bound
	*bound = to
	t.Cleanup(func() { *bound = was })
}

// The bounds the readers start with are the ones docs/reliability.md
// states and the errors name; the tests that exceed them lower them
// first (lower).
func TestBoundsAsDocumented(t *testing.T) {
	if maxInput != 32<<20 || maxValues != 262144 || MaxNotes != 100 || maxStatement != 1<<20 || maxDepth != 32 {
		t.Errorf("bounds %d bytes, %d values, %d notes, %d bytes a command, %d deep; docs/reliability.md says 32 MiB, 262,144, 100, 1 MiB, 32",
			maxInput, maxValues, MaxNotes, maxStatement, maxDepth)
	}
	b, err := os.ReadFile("../../docs/reliability.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := strings.Join(strings.Fields(string(b)), " ")
	for _, s := range []string{
		"`.reg` files (`knob explain FILE.reg`): at most 32 MiB, 262,144 values (each kept with its data) and 100 notes",
		"one command (its continued lines joined) is at most 1 MiB, parentheses nested at most 32 deep",
	} {
		if !strings.Contains(doc, s) {
			t.Errorf("docs/reliability.md does not say %q", s)
		}
	}
}

// Each reader refuses an input over maxInput bytes and one of more than
// maxValues values, as bad input of one line naming the bound, and reads
// one at the bound. The bounds are lowered: what is proved is that the
// readers apply them, and TestBoundsAsDocumented that they are the real
// ones otherwise.
func TestReadBounds(t *testing.T) {
	const input, values = 1 << 20, 50
	lower(t, &maxInput, input)
	lower(t, &maxValues, values)
	readers := []struct {
		name  string
		read  func(io.Reader) (*File, error)
		head  string // before the values
		value string // one value, a line
	}{
		{".reg", Read, "REGEDIT4\n[HKEY_CURRENT_USER\\X]\n", "\"A\"=dword:1\n"},
		{"batch", ReadBatch, "", "reg add HKCU\\X /v a /t REG_DWORD /d 1 /f\n"},
		{"PowerShell", ReadPowerShell, "", "sp HKCU:\\X a 1 -Type DWord\n"},
	}
	for _, r := range readers {
		refused := func(what, in, want string) {
			t.Helper()
			_, err := r.read(strings.NewReader(in))
			if !badinput.Is(err) || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "\n") {
				t.Errorf("%s, %s: %v, want a one-line bad input error with %q", r.name, what, err, want)
			}
		}
		f, err := r.read(strings.NewReader(r.head + strings.Repeat(r.value, values)))
		if err != nil || f.Values != values {
			t.Errorf("%s, %d values: %v, want them read", r.name, values, err)
		}
		refused("one value too many", r.head+strings.Repeat(r.value, values+1), fmt.Sprintf("more than %d values", values))
		// a comment line filling the input to the bound
		at := r.head + strings.Repeat("#", input-len(r.head)-len(r.value)-1) + "\n" + r.value
		if _, err := r.read(strings.NewReader(at)); len(at) != input || err != nil {
			t.Errorf("%s, %d bytes: %v, want it read", r.name, len(at), err)
		}
		refused("one byte too many", at+"\n", "larger than 1 MiB")
	}
	// An array of more elements than maxValues is not read as one value:
	// the command is skipped with a note.
	array := func(n int) string {
		return "sp HKCU:\\X a @(" + strings.Repeat("'x',", n-1) + "'x') -Type MultiString\n"
	}
	if f := readPS(t, array(values)); f.Values != 1 || len(f.Notes) != 0 {
		t.Errorf("array of %d: %d values, notes %q", values, f.Values, f.Notes)
	}
	if f := readPS(t, array(values+1)); f.Values != 0 || len(f.Notes) != 1 {
		t.Errorf("array of %d: %d values, notes %q", values+1, f.Values, f.Notes)
	}
}
