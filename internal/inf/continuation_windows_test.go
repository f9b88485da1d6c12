package inf

import (
	"os"
	"slices"
	"strings"
	"testing"
	"unsafe"

	"golang.org/x/sys/windows"
)

// setupapi.h (mingw-w64): INFCONTEXT, INF_STYLE_WIN4 and the functions
// that read an INF's lines.
type infContext struct {
	inf, currentInf uintptr
	section, line   uint32
}

const infStyleWin4 = 0x00000002

var (
	setupapi                 = windows.NewLazySystemDLL("setupapi.dll")
	procSetupOpenInfFileW    = setupapi.NewProc("SetupOpenInfFileW")
	procSetupCloseInfFile    = setupapi.NewProc("SetupCloseInfFile")
	procSetupFindFirstLineW  = setupapi.NewProc("SetupFindFirstLineW")
	procSetupFindNextLine    = setupapi.NewProc("SetupFindNextLine")
	procSetupGetFieldCount   = setupapi.NewProc("SetupGetFieldCount")
	procSetupGetStringFieldW = setupapi.NewProc("SetupGetStringFieldW")
)

// setupAPILines is the [Test] section of the INF at path as SetupAPI
// reads it: "key=field|field" per line, "-" for a line without a key.
func setupAPILines(t *testing.T, path string) []string {
	t.Helper()
	name, _ := windows.UTF16PtrFromString(path)
	var errLine uint32
	h, _, err := procSetupOpenInfFileW.Call(uintptr(unsafe.Pointer(name)), 0, infStyleWin4, uintptr(unsafe.Pointer(&errLine)))
	if h == uintptr(windows.InvalidHandle) {
		t.Errorf("SetupOpenInfFileW: %v (line %d)", err, errLine)
		return nil
	}
	defer procSetupCloseInfFile.Call(h)
	field := func(ctx *infContext, i uint32) (string, bool) {
		buf := make([]uint16, 4096)
		ok, _, _ := procSetupGetStringFieldW.Call(uintptr(unsafe.Pointer(ctx)), uintptr(i), uintptr(unsafe.Pointer(&buf[0])), uintptr(len(buf)), 0)
		return windows.UTF16ToString(buf), ok != 0
	}
	sec, _ := windows.UTF16PtrFromString("Test")
	var out []string
	var ctx infContext
	ok, _, _ := procSetupFindFirstLineW.Call(h, uintptr(unsafe.Pointer(sec)), 0, uintptr(unsafe.Pointer(&ctx)))
	for ok != 0 {
		n, _, _ := procSetupGetFieldCount.Call(uintptr(unsafe.Pointer(&ctx)))
		var fields []string
		for i := uint32(1); i <= uint32(n); i++ {
			f, _ := field(&ctx, i)
			fields = append(fields, f)
		}
		key, hasKey := field(&ctx, 0)
		if !hasKey {
			key = "-"
		}
		out = append(out, key+"="+strings.Join(fields, "|"))
		ok, _, _ = procSetupFindNextLine.Call(uintptr(unsafe.Pointer(&ctx)), uintptr(unsafe.Pointer(&ctx)))
	}
	return out
}

// The continuation cases read by the system's SetupAPI (Wine's parser
// under Wine) as latlab reads them: keys and fields of every line of
// [Test].
func TestINFContinuationSetupAPI(t *testing.T) {
	path := tempINFPath(t)
	for _, c := range continuationCases {
		if strings.Contains(c.in, "\x00") {
			// SetupAPI takes a file with a NUL for UTF-16 or not by
			// IsTextUnicode's guess, which Wine's own tests of NULs mark
			// todo_wine: what is tested there is not the continuation
			continue
		}
		in := "[Version]\r\nSignature=\"$CHICAGO$\"\r\n[Test]\n" + c.in
		if err := os.WriteFile(path, []byte(in), 0o644); err != nil {
			t.Fatal(err)
		}
		f, err := Parse(strings.NewReader(in), "x.inf")
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if got, ours := setupAPILines(t, path), readAsSetupAPI(f); !slices.Equal(got, ours) {
			t.Errorf("%s: SetupAPI reads %q, latlab %q", c.name, got, ours)
		}
	}
}
