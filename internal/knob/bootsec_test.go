package knob

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/latlab/latlab/internal/knob/backend"
	"github.com/latlab/latlab/internal/testutil"
)

// bcdEnv is a bcdedit that holds tscsyncpolicy in memory, with the boot
// security facts given.
func bcdEnv(sec BootSecurity, secErr error) *Env {
	val := ""
	b := &backend.BCD{Run: func(args ...string) ([]byte, error) {
		switch args[0] {
		case "/enum":
			out := "Windows Boot Loader\r\n-------------------\r\nidentifier              {current}\r\n"
			if val != "" {
				out += "tscsyncpolicy           " + val + "\r\n"
			}
			return []byte(out), nil
		case "/set":
			val = args[3]
		case "/deletevalue":
			val = ""
		}
		return []byte("The operation completed successfully.\r\n"), nil
	}}
	return &Env{Backends: map[string]backend.Backend{backend.BackendBCD: b},
		BootSecurity: func() (BootSecurity, error) { return sec, secErr }}
}

// A BCD change under BitLocker without Secure Boot can bring the
// recovery-key prompt at the next boot (Microsoft, "BCD settings and
// BitLocker"): the plan and the dry run say so before anything is
// written, a real set warns before it writes; with Secure Boot, or
// without BitLocker, nothing is said.
func TestBootWarning(t *testing.T) {
	tests := []struct {
		name string
		sec  BootSecurity
		err  error
		want string
	}{
		{"bitlocker without secure boot", BootSecurity{BitLocker: true}, nil, "BitLocker protects the system drive and Secure Boot is off: this boot-configuration change can make the next boot ask for the BitLocker recovery key"},
		{"unknown", BootSecurity{}, errors.New("Get-CimInstance: access denied"), "could not check BitLocker and Secure Boot (Get-CimInstance: access denied)"},
		{"secure boot", BootSecurity{BitLocker: true, SecureBoot: true}, nil, ""},
		{"no bitlocker", BootSecurity{}, nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, dry := range []bool{true, false} {
				var warned []string
				k, err := Lookup("tsc-sync-policy")
				if err != nil {
					t.Fatal(err)
				}
				res, err := runSet(context.Background(), k, SetOptions{Knob: "tsc-sync-policy", Value: "enhanced", DryRun: dry,
					Env: bcdEnv(tt.sec, tt.err), StateDir: testutil.TempDir(t), Warn: func(s string) { warned = append(warned, s) }})
				if err != nil {
					t.Fatal(err)
				}
				got := strings.Join(res.Plan.Warnings, "\n")
				if tt.want == "" {
					if got != "" || len(warned) > 0 {
						t.Errorf("dry %v: warnings %q %q, want none", dry, got, warned)
					}
					continue
				}
				if !strings.Contains(got, tt.want) || !strings.Contains(got, `Microsoft, "BCD settings and BitLocker"`) || !strings.Contains(got, "-RebootCount 1") {
					t.Errorf("dry %v: plan warnings %q, want %q and the source", dry, got, tt.want)
				}
				if !dry && (len(warned) != 1 || warned[0] != res.Plan.Warnings[0]) {
					t.Errorf("a real set did not warn before writing: %q", warned)
				}
			}
		})
	}
	// A plan without a BCD change is not checked.
	if w := BootWarning(bcdEnv(BootSecurity{BitLocker: true}, nil), []Change{{Loc: backend.Loc{Backend: backend.BackendRegistry}}}); w != "" {
		t.Errorf("registry change: %q", w)
	}
}

// Reverting a BCD change writes the boot configuration too: the revert
// warns before it restores.
func TestBootWarningRevert(t *testing.T) {
	env := bcdEnv(BootSecurity{BitLocker: true}, nil)
	dir := testutil.TempDir(t)
	applySteps(t, env, dir, []setStep{{"tsc-sync-policy", Selector{}, "legacy"}})
	for _, dry := range []bool{true, false} {
		var warned []string
		if _, err := RunRevert(context.Background(), RevertOptions{All: true, DryRun: dry, Env: env, StateDir: dir,
			Warn: func(s string) { warned = append(warned, s) }}); err != nil {
			t.Fatal(err)
		}
		if len(warned) != 1 || !strings.Contains(warned[0], "BitLocker recovery key") {
			t.Errorf("dry run %v: warnings %q", dry, warned)
		}
	}
}
