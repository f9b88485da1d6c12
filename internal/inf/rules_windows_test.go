package inf

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"unsafe"

	"github.com/latlab/latlab/internal/testutil"
	"golang.org/x/sys/windows"
	"golang.org/x/sys/windows/registry"
)

// setupapi.h: the errors SetupOpenInfFileW gives for a file its parser
// refuses.
const (
	errorExpectedSectionName = 0xE0000000 // ERROR_EXPECTED_SECTION_NAME
	errorBadSectionNameLine  = 0xE0000001 // ERROR_BAD_SECTION_NAME_LINE
)

var (
	procSetupGetIntField      = setupapi.NewProc("SetupGetIntField")
	procSetupEnumInfSectionsW = setupapi.NewProc("SetupEnumInfSectionsW")
	printSetupAPI             = os.Getenv("LATLAB_PRINT_SETUPAPI") != ""
)

// tempINFPath is the path of an INF file in a new directory the test
// removes when it ends (testutil.TempDir: t.TempDir's RemoveAll fails
// under Wine 8, "Invalid function", where DeleteFile and RemoveDirectory
// do not).
func tempINFPath(t *testing.T) string {
	t.Helper()
	return filepath.Join(testutil.TempDir(t), "t.inf")
}

// writeTempINF writes body to a new file (tempINFPath) and returns its
// path.
func writeTempINF(t *testing.T, body string) string {
	t.Helper()
	path := tempINFPath(t)
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// openINF opens path with SetupOpenInfFileW: the handle, or the line and
// the error SetupAPI gives.
func openINF(path string) (uintptr, uint32, error) {
	name, _ := windows.UTF16PtrFromString(path)
	var errLine uint32
	h, _, err := procSetupOpenInfFileW.Call(uintptr(unsafe.Pointer(name)), 0, infStyleWin4, uintptr(unsafe.Pointer(&errLine)))
	if h == uintptr(windows.InvalidHandle) {
		return 0, errLine, err
	}
	return h, 0, nil
}

// Each intFieldCases text through SetupGetIntField, as the flags field of
// a line ("k=%sN%": the %strkey% keeps its white space).
func TestINFIntFieldSetupAPI(t *testing.T) {
	var b strings.Builder
	b.WriteString("[Version]\r\nSignature=\"$CHICAGO$\"\r\n[Test]\r\n")
	for i := range intFieldCases {
		fmt.Fprintf(&b, "k%d=%%s%d%%\r\n", i, i)
	}
	b.WriteString("[Strings]\r\n")
	for i, c := range intFieldCases {
		fmt.Fprintf(&b, "s%d=\"%s\"\r\n", i, c.in)
	}
	path := writeTempINF(t, b.String())
	h, line, err := openINF(path)
	if err != nil {
		t.Fatalf("SetupOpenInfFileW: %v (line %d)", err, line)
	}
	defer procSetupCloseInfFile.Call(h)
	sec, _ := windows.UTF16PtrFromString("Test")
	var ctx infContext
	ok, _, _ := procSetupFindFirstLineW.Call(h, uintptr(unsafe.Pointer(sec)), 0, uintptr(unsafe.Pointer(&ctx)))
	for _, c := range intFieldCases {
		if ok == 0 {
			t.Fatal("SetupFindNextLine: fewer lines than cases")
		}
		var v int32
		r, _, _ := procSetupGetIntField.Call(uintptr(unsafe.Pointer(&ctx)), 1, uintptr(unsafe.Pointer(&v)))
		if printSetupAPI {
			t.Logf("{%q, %d, %v},", c.in, v, r != 0)
		}
		if (r != 0) != c.ok || r != 0 && v != c.v {
			t.Errorf("%q: SetupGetIntField %d, %v; the table %d, %v", c.in, v, r != 0, c.v, c.ok)
		}
		ours, oursOK := setupIntField(c.in)
		if (r != 0) != oursOK || r != 0 && v != ours {
			t.Errorf("%q: SetupGetIntField %d, %v; latlab %d, %v", c.in, v, r != 0, ours, oursOK)
		}
		ok, _, _ = procSetupFindNextLine.Call(uintptr(unsafe.Pointer(&ctx)), uintptr(unsafe.Pointer(&ctx)))
	}
}

// registryINF installed by SetupAPI: [A] then [B], with HKR a fresh key of
// HKCU, which is then read back in registryWant's form and compared with
// it and with latlab's Resolve of [A] (which needs [B]).
func TestINFRegistryEntriesSetupAPI(t *testing.T) {
	path := writeTempINF(t, registryINF)
	sub := fmt.Sprintf(`Software\latlab-inf-entries-%d`, os.Getpid())
	k, _, err := registry.CreateKey(registry.CURRENT_USER, sub, registry.ALL_ACCESS)
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		_ = k.Close()
		_ = deleteTree(registry.CURRENT_USER, sub)
	}()
	h, line, err := openINF(path)
	if err != nil {
		t.Fatalf("SetupOpenInfFileW: %v (line %d)", err, line)
	}
	defer procSetupCloseInfFile.Call(h)
	for _, name := range []string{"A", "B"} {
		sec, _ := windows.UTF16PtrFromString(name)
		if ok, _, err := procSetupInstallFromInfSectionW.Call(0, h, uintptr(unsafe.Pointer(sec)), spinstRegistry, uintptr(k), 0, 0, 0, 0, 0, 0); ok == 0 {
			t.Fatalf("SetupInstallFromInfSectionW [%s]: %v", name, err)
		}
	}
	var kws, vals []string
	if p, err := registry.OpenKey(k, `Ndi\Params`, registry.READ); err == nil {
		names, _ := p.ReadSubKeyNames(0)
		for _, n := range names {
			kk, err := registry.OpenKey(p, n, registry.READ)
			if err != nil {
				t.Fatal(err)
			}
			desc, _, _ := kk.GetStringValue("ParamDesc")
			def, _, _ := kk.GetStringValue("default")
			kws = append(kws, n+"="+desc+"/"+def)
			kk.Close()
		}
		p.Close()
	}
	names, _ := k.ReadValueNames(0)
	for _, n := range names {
		_, typ, err := k.GetValue(n, nil)
		if err != nil {
			t.Fatal(err)
		}
		kind := "other"
		if typ == registry.DWORD {
			kind = "dword"
		}
		vals = append(vals, n+":"+kind)
	}
	sort.Strings(kws)
	sort.Strings(vals)
	if printSetupAPI {
		t.Logf("keywords %q\nvalues %q", kws, vals)
	}
	if !slices.Equal(kws, registryWant.keywords) || !slices.Equal(vals, registryWant.values) {
		t.Errorf("SetupAPI wrote keywords %q, values %q; the table %q, %q", kws, vals, registryWant.keywords, registryWant.values)
	}
	ourKws, ourVals := registryOurs(t)
	if !slices.Equal(kws, ourKws) || !slices.Equal(vals, ourVals) {
		t.Errorf("SetupAPI wrote keywords %q, values %q; latlab %q, %q", kws, vals, ourKws, ourVals)
	}
}

// deleteTree deletes key sub of root and everything under it.
func deleteTree(root registry.Key, sub string) error {
	k, err := registry.OpenKey(root, sub, registry.ALL_ACCESS)
	if err != nil {
		return err
	}
	names, _ := k.ReadSubKeyNames(0)
	for _, n := range names {
		_ = deleteTree(k, n)
	}
	k.Close()
	return registry.DeleteKey(root, sub)
}

// preSectionCases opened by SetupOpenInfFileW: refused at a line, or read
// with the sections SetupEnumInfSectionsW lists, compared with the table
// and with latlab's Parse.
func TestINFPreSectionSetupAPI(t *testing.T) {
	for _, c := range preSectionCases {
		path := writeTempINF(t, c.in)
		h, line, err := openINF(path)
		var api []string
		apiErr := 0
		if err != nil {
			var en windows.Errno
			if !errors.As(err, &en) || en != errorExpectedSectionName && en != errorBadSectionNameLine {
				t.Errorf("%s: SetupOpenInfFileW: %v", c.name, err)
			}
			apiErr = int(line)
		} else {
			buf := make([]uint16, 512)
			for i := uintptr(0); ; i++ {
				var need uint32
				ok, _, _ := procSetupEnumInfSectionsW.Call(h, i, uintptr(unsafe.Pointer(&buf[0])), uintptr(len(buf)), uintptr(unsafe.Pointer(&need)))
				if ok == 0 {
					break
				}
				api = append(api, windows.UTF16ToString(buf))
			}
			procSetupCloseInfFile.Call(h)
		}
		if printSetupAPI {
			t.Logf("{%q, %q, %d, %#v},", c.name, c.in, apiErr, api)
		}
		if apiErr != c.err || !slices.Equal(api, c.sections) {
			t.Errorf("%s: SetupAPI refused at line %d, read %q; the table %d, %q", c.name, apiErr, api, c.err, c.sections)
		}
		f, err := Parse(strings.NewReader(c.in), "p.inf")
		var pe *ParseError
		switch {
		case apiErr != 0 && (!errors.As(err, &pe) || pe.Line != apiErr):
			t.Errorf("%s: SetupAPI refused it at line %d, latlab: %v", c.name, apiErr, err)
		case apiErr == 0 && err != nil:
			t.Errorf("%s: SetupAPI read it, latlab: %v", c.name, err)
		case apiErr == 0:
			var ours []string
			for _, s := range f.Sections {
				ours = append(ours, s.Name)
			}
			if !slices.Equal(api, ours) {
				t.Errorf("%s: SetupAPI read %q, latlab %q", c.name, api, ours)
			}
		}
	}
}
