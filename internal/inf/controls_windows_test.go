package inf

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"unsafe"

	"golang.org/x/sys/windows"
	"golang.org/x/sys/windows/registry"
)

// TestINFControlsSetupAPI reads controlCases with the system's SetupAPI
// (Wine's under Wine) and with latlab, and compares both with the lines
// the table expects.
func TestINFControlsSetupAPI(t *testing.T) {
	path := tempINFPath(t)
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

// spinstRegistry is setupapi.h's SPINST_REGISTRY: SetupInstallFromInfSectionW
// applies the section's AddReg and DelReg entries.
const spinstRegistry = 0x00000004

var procSetupInstallFromInfSectionW = setupapi.NewProc("SetupInstallFromInfSectionW")

// The registry root of an AddReg line as SetupAPI's own AddReg reads it:
// the root as substituted, untrimmed (registry_callback, get_root_key).
// SetupInstallFromInfSectionW writes [Inst]'s entries with HKR a fresh
// key of HKCU, and the values it wrote are the ones latlab's Resolve
// finds. latlab trimmed the root after substitution and wrote B and D.
func TestINFRegistryRootSetupAPI(t *testing.T) {
	const inf = "[Version]\r\nSignature=\"$CHICAGO$\"\r\n[Inst]\r\nAddReg=R\r\n[R]\r\n" +
		"HKR,,A,,1\r\n%r%,,B,,1\r\n%l%,,C,,1\r\n\"HKR \",,D,,1\r\nHKR ,,E,,1\r\n%n%,,F,,1\r\n" +
		"[Strings]\r\nr=\" HKR \"\r\nl=\"hkr\"\r\nn=\"HKR\"\r\n"
	path := writeTempINF(t, inf)
	sub := fmt.Sprintf(`Software\latlab-inf-test-%d`, os.Getpid())
	k, _, err := registry.CreateKey(registry.CURRENT_USER, sub, registry.ALL_ACCESS)
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		_ = k.Close()
		_ = registry.DeleteKey(registry.CURRENT_USER, sub)
	}()
	name, _ := windows.UTF16PtrFromString(path)
	h, _, err := procSetupOpenInfFileW.Call(uintptr(unsafe.Pointer(name)), 0, infStyleWin4, 0)
	if h == uintptr(windows.InvalidHandle) {
		t.Fatalf("SetupOpenInfFileW: %v", err)
	}
	defer procSetupCloseInfFile.Call(h)
	sec, _ := windows.UTF16PtrFromString("Inst")
	if ok, _, err := procSetupInstallFromInfSectionW.Call(0, h, uintptr(unsafe.Pointer(sec)), spinstRegistry, uintptr(k), 0, 0, 0, 0, 0, 0); ok == 0 {
		t.Fatalf("SetupInstallFromInfSectionW: %v", err)
	}
	api, err := k.ReadValueNames(0)
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(api)
	f, err := Parse(strings.NewReader(inf), "r.inf")
	if err != nil {
		t.Fatal(err)
	}
	in, err := f.Resolve("Inst", Target{Arch: "amd64", Major: 10}, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	var ours []string
	for _, v := range in.Values {
		ours = append(ours, v.Name)
	}
	slices.Sort(ours)
	// what Wine's SetupAPI wrote
	if want := []string{"A", "C", "E", "F"}; !slices.Equal(api, want) {
		t.Errorf("SetupAPI wrote %q, want %q", api, want)
	}
	if !slices.Equal(api, ours) {
		t.Errorf("SetupAPI wrote %q, latlab %q", api, ours)
	}
}
