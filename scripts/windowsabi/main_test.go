package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/latlab/latlab/internal/testutil"
)

// Every doc= item states its value, and a value off the documented one
// fails the check: a doc= source is compared, not only printed.
func TestDocItemsCompared(t *testing.T) {
	dir := testutil.TempDir(t)
	list := filepath.Join(dir, "list")
	write := func(p, s string) {
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(list, "internal/x  EVENT_A  typeA  doc=68 learn.microsoft.com/a\n"+
		"internal/x  guid(B)  guidB  doc={3D6FA8D4-FE05-11D0-9DDA-00C04FD7BA7C} learn.microsoft.com/b\n"+
		"internal/x  str(C)  nameC  doc=\"NT Kernel Logger\" evntrace docs\n"+
		"internal/x  sizeof(D)  d{}  winnt.h\n")
	items, err := readList(list)
	if err != nil {
		t.Fatal(err)
	}
	if items[0].docValue != "68" || items[1].docValue != "3d6fa8d4-fe05-11d0-9dda-00c04fd7ba7c" || items[2].docValue != "NT Kernel Logger" || items[3].doc() != "" {
		t.Fatalf("items %+v", items)
	}
	goOut, sdkOut := filepath.Join(dir, "go"), filepath.Join(dir, "sdk")
	write(sdkOut, "sizeof(D) 16\n")
	write(goOut, "ABI EVENT_A 68\nABI guid(B) 3d6fa8d4-fe05-11d0-9dda-00c04fd7ba7c\nABI str(C) NT Kernel Logger\nABI sizeof(D) 16\n")
	if bad, err := compare(items, goOut, sdkOut); err != nil || bad != 0 {
		t.Fatalf("all as documented: %d bad, %v", bad, err)
	}
	write(goOut, "ABI EVENT_A 67\nABI guid(B) 3d6fa8d4-fe05-11d0-9dda-00c04fd7ba7d\nABI str(C) NT Kernel Logge\nABI sizeof(D) 16\n")
	if bad, err := compare(items, goOut, sdkOut); err != nil || bad != 3 {
		t.Fatalf("three values off their documentation: %d bad, %v", bad, err)
	}
	for _, line := range []string{
		"internal/x  EVENT_A  typeA  doc=learn.microsoft.com/a\n", // no value
		"internal/x  EVENT_A  typeA  doc=68\n",                    // no source
		"internal/x  EVENT_A  typeA  doc=\"open learn\n",
	} {
		write(list, line)
		if _, err := readList(list); err == nil || !strings.Contains(err.Error(), "doc=") {
			t.Errorf("%q accepted: %v", line, err)
		}
	}
}

// Prototype parameters lose their names, keep their types.
func TestCParamTypes(t *testing.T) {
	got := cParamTypes("TRACEHANDLE TraceHandle, LPCGUID ProviderId, ULONG ControlCode, const LARGE_INTEGER *lpDueTime, PVOID, VOID *p")
	want := []string{"TRACEHANDLE", "LPCGUID", "ULONG", "const LARGE_INTEGER *", "PVOID", "VOID *"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("%q, want %q", got, want)
	}
	if cParamTypes(" VOID ") != nil || cParamTypes("") != nil {
		t.Error("no parameters")
	}
}
