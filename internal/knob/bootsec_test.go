package knob

import (
	"context"
	"errors"
	"fmt"
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
		{"bitlocker without secure boot", BootSecurity{BitLocker: true, Profiles: [][]int{{0, 2, 4, 11}}}, nil, "BitLocker protects the system drive and Secure Boot is off: this boot-configuration change can make the next boot ask for the BitLocker recovery key"},
		{"unknown", BootSecurity{}, errors.New("Get-CimInstance: access denied"), "could not check BitLocker's key protectors (Get-CimInstance: access denied)"},
		// Secure Boot on, but the protector made with the legacy profile:
		// BitLocker still validates the BCD itself.
		{"secure boot, legacy profile", BootSecurity{BitLocker: true, SecureBoot: true, Profiles: [][]int{{0, 2, 4, 11}}}, nil,
			"BitLocker protects the system drive and Secure Boot is on but BitLocker does not use it: its TPM protector's validation profile is PCRs 0, 2, 4, 11, without PCR 7"},
		{"secure boot, one of two protectors legacy", BootSecurity{BitLocker: true, SecureBoot: true, Profiles: [][]int{{7, 11}, {0, 2, 4, 11}}}, nil, "PCRs 7, 11; 0, 2, 4, 11, without PCR 7"},
		{"no tpm protector", BootSecurity{BitLocker: true, SecureBoot: true}, nil, "no TPM key protector binds PCR 7"},
		{"pcr 7 bound", BootSecurity{BitLocker: true, SecureBoot: true, Profiles: [][]int{{7, 11}}}, nil, ""},
		{"no bitlocker", BootSecurity{Profiles: [][]int{{0, 2, 4, 11}}}, nil, ""},
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

// The JSON of BitLockerScript, as PowerShell prints it in any language.
func TestParseBitLocker(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want BootSecurity
		bind bool
	}{
		{`{"ProtectionStatus":0,"Protectors":[]}`, BootSecurity{}, false},
		{"\ufeff" + `{"ProtectionStatus":1,"Protectors":[{"Type":1,"PCRs":[7,11]}]}` + "\r\n", BootSecurity{BitLocker: true, Profiles: [][]int{{7, 11}}}, true},
		{`{"ProtectionStatus":1,"Protectors":[{"Type":4,"PCRs":[0,2,4,11]}]}`, BootSecurity{BitLocker: true, Profiles: [][]int{{0, 2, 4, 11}}}, false},
		{`{"ProtectionStatus":2,"Protectors":[{"Type":1,"PCRs":[7,11]},{"Type":5,"PCRs":[7,11]}]}`, BootSecurity{BitLocker: true, Profiles: [][]int{{7, 11}, {7, 11}}}, true},
	} {
		var s BootSecurity
		if err := ParseBitLocker(strings.NewReader(tc.in), &s); err != nil {
			t.Errorf("%q: %v", tc.in, err)
			continue
		}
		if s.BitLocker != tc.want.BitLocker || fmt.Sprint(s.Profiles) != fmt.Sprint(tc.want.Profiles) || s.PCR7Bound() != tc.bind {
			t.Errorf("%q: %+v (PCR 7 bound %v)", tc.in, s, s.PCR7Bound())
		}
	}
	for _, bad := range []string{"", "1", `{"Protectors":[]}`, `{"ProtectionStatus":3}`, `{"ProtectionStatus":1,"Protectors":[{"Type":1,"PCRs":[24]}]}`,
		"Get-CimInstance : Zugriff verweigert"} {
		var s BootSecurity
		if err := ParseBitLocker(strings.NewReader(bad), &s); err == nil {
			t.Errorf("%q accepted: %+v", bad, s)
		}
	}
}

func FuzzParseBitLocker(f *testing.F) {
	f.Add(`{"ProtectionStatus":1,"Protectors":[{"Type":1,"PCRs":[7,11]}]}`)
	f.Fuzz(func(t *testing.T, in string) {
		var s BootSecurity
		if ParseBitLocker(strings.NewReader(in), &s) == nil {
			for _, p := range s.Profiles {
				for _, r := range p {
					if r < 0 || r > 23 {
						t.Fatalf("PCR %d", r)
					}
				}
			}
		}
	})
}
