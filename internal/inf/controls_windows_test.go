package inf

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestINFControlsSetupAPI reads controlCases with the system's SetupAPI
// (Wine's under Wine) and with latlab, and compares both with the lines
// the table expects.
func TestINFControlsSetupAPI(t *testing.T) {
	// not t.TempDir: its RemoveAll fails under Wine 8 (see
	// TestINFContinuationSetupAPI)
	dir, err := os.MkdirTemp("", "latlab-inf")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "c.inf")
	defer func() {
		_ = os.Remove(path)
		_ = os.Remove(dir)
	}()
	for _, c := range controlCases {
		in := "[Version]\r\nSignature=\"$CHICAGO$\"\r\n[Test]\n" + c.in
		if err := os.WriteFile(path, []byte(in), 0o644); err != nil {
			t.Fatal(err)
		}
		api := setupAPILines(t, path)
		if os.Getenv("LATLAB_PRINT_SETUPAPI") != "" {
			t.Logf("{%q, %q, %#v},", c.name, c.in, api)
		}
		if !slices.Equal(api, c.want) {
			t.Errorf("%s: SetupAPI reads %q, the table %q", c.name, api, c.want)
		}
		f, err := Parse(strings.NewReader(in), "x.inf")
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if ours := readAsSetupAPI(f); !slices.Equal(api, ours) {
			t.Errorf("%s: SetupAPI reads %q, latlab %q", c.name, api, ours)
		}
	}
}
