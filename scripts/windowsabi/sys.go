package main

// The //sys declarations of internal/winapi against mingw-w64's
// prototypes: each declaration's argument count and the width of each
// argument (a 4-byte DWORD declared as a Go uint64, or a pointer as a
// uint32, would pass garbage on one architecture or the other), and the
// failure return values the declarations test for against the headers'
// constants (WAIT_FAILED, THREAD_PRIORITY_ERROR_RETURN,
// INVALID_PROCESSTRACE_HANDLE).

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// sysFile and includeDir are where the declarations and the headers are.
var (
	sysFile    = "internal/winapi/syscall_windows.go"
	includeDir = "/usr/x86_64-w64-mingw32/include"
)

type sysDecl struct {
	sym     string   // the DLL's symbol: StartTraceW
	goTypes []string // the Go parameters' types
	failret string   // [failretval==X], or ""
	line    int
}

var sysRE = regexp.MustCompile(`^//sys\s+(\w+)\((.*?)\)\s*(?:\(([^)]*)\))?\s*(?:\[failretval==(\w+)\])?\s*=\s*(\w+)\.(\w+)\??\s*$`)

func readSys(path string) ([]sysDecl, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []sysDecl
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		l := strings.TrimSpace(sc.Text())
		if !strings.HasPrefix(l, "//sys") {
			continue
		}
		m := sysRE.FindStringSubmatch(l)
		if m == nil {
			return nil, fmt.Errorf("%s:%d: a //sys line this check cannot read", path, n)
		}
		d := sysDecl{sym: m[6], failret: m[4], line: n}
		if strings.TrimSpace(m[2]) != "" {
			for _, p := range strings.Split(m[2], ",") {
				f := strings.Fields(p)
				if len(f) != 2 {
					return nil, fmt.Errorf("%s:%d: parameter %q", path, n, p)
				}
				d.goTypes = append(d.goTypes, f[1])
			}
		}
		out = append(out, d)
	}
	return out, sc.Err()
}

// goWidth is a Go parameter type's width on 64-bit Windows; bool is
// passed as 0 or 1 and fits BOOL (4) and BOOLEAN (1): -1.
func goWidth(t string) (int, error) {
	switch {
	case strings.HasPrefix(t, "*"), t == "uintptr", t == "unsafe.Pointer", t == "windows.Handle", t == "windows.Token":
		return 8, nil
	case t == "uint64", t == "int64":
		return 8, nil
	case t == "uint32", t == "int32":
		return 4, nil
	case t == "uint16", t == "int16":
		return 2, nil
	case t == "uint8", t == "int8", t == "byte":
		return 1, nil
	case t == "bool":
		return -1, nil
	}
	return 0, fmt.Errorf("the Go type %s has no known width", t)
}

// failretConst names the header constant each declaration's failure
// value must equal.
var failretConst = map[string]string{
	"WaitForSingleObject": "WAIT_FAILED",
	"GetThreadPriority":   "THREAD_PRIORITY_ERROR_RETURN",
	"OpenTraceW":          "INVALID_PROCESSTRACE_HANDLE",
}

// noPrototype are the symbols mingw-w64 declares nowhere, each with where
// it is documented.
var noPrototype = map[string]string{
	"NtDelayExecution":       "phnt ntkeapi.h (github.com/winsiderss/phnt): NTSTATUS NtDelayExecution(BOOLEAN Alertable, PLARGE_INTEGER DelayInterval)",
	"NtQueryTimerResolution": "phnt ntexapi.h: NTSTATUS NtQueryTimerResolution(PULONG MaximumTime, PULONG MinimumTime, PULONG CurrentTime)",
	"NtSetTimerResolution":   "phnt ntexapi.h: NTSTATUS NtSetTimerResolution(ULONG DesiredTime, BOOLEAN SetResolution, PULONG ActualTime)",
	"NtQuerySystemInformationEx": "phnt ntexapi.h: NTSTATUS NtQuerySystemInformationEx(SYSTEM_INFORMATION_CLASS SystemInformationClass, " +
		"PVOID InputBuffer, ULONG InputBufferLength, PVOID SystemInformation, ULONG SystemInformationLength, PULONG ReturnLength)",
	"wine_get_version": "Wine's own export (ntdll), absent on Windows",
}

type proto struct {
	header string
	params []string // C parameter types
}

var headerText = map[string]string{}

// findProto finds sym's prototype in the headers: "sym (T1 a, T2 b);".
func findProto(sym string) (proto, bool) {
	if len(headerText) == 0 {
		ms, _ := filepath.Glob(filepath.Join(includeDir, "*.h"))
		for _, m := range ms {
			b, err := os.ReadFile(m)
			if err == nil {
				headerText[filepath.Base(m)] = string(b)
			}
		}
	}
	re := regexp.MustCompile(`(?m)^[^#\n]*\b(?:WINAPI|WMIAPI|NTAPI|APIENTRY|PDH_FUNCTION|WINBASEAPI \w+ WINAPI|__stdcall)\s+` + regexp.QuoteMeta(sym) + `\s*\(([^;{}]*?)\)\s*;`)
	for _, h := range sortedKeys(headerText) {
		// the regular expression only where the name is: run over every
		// header for each //sys, it took two minutes of the suite
		if !strings.Contains(headerText[h], sym) {
			continue
		}
		if m := re.FindStringSubmatch(headerText[h]); m != nil {
			return proto{header: h, params: cParamTypes(m[1])}, true
		}
	}
	return proto{}, false
}

func sortedKeys(m map[string]string) []string {
	var k []string
	for x := range m {
		k = append(k, x)
	}
	slices.Sort(k)
	return k
}

var paramName = regexp.MustCompile(`^(.*?[\s*])\s*([A-Za-z_]\w*)\s*$`)

// cParamTypes splits a prototype's parameter list into types, dropping
// the names.
func cParamTypes(list string) []string {
	list = strings.Join(strings.Fields(list), " ")
	if list == "" || list == "VOID" || list == "void" {
		return nil
	}
	var out []string
	for _, p := range strings.Split(list, ",") {
		p = strings.TrimSpace(p)
		if m := paramName.FindStringSubmatch(p); m != nil && len(strings.Fields(strings.ReplaceAll(p, "*", " * "))) > 1 {
			p = strings.TrimSpace(m[1])
		}
		out = append(out, p)
	}
	return out
}

// writeSysC adds the prototypes' argument counts, widths and failure
// constants to the C program.
func writeSysC(b *strings.Builder) {
	decls, err := readSys(sysFile)
	if err != nil {
		fmt.Fprintf(b, "#error %q\n", err.Error())
		return
	}
	for _, d := range decls {
		p, ok := findProto(d.sym)
		if !ok {
			continue
		}
		fmt.Fprintf(b, "\tv(%q, %d, %d);\n", "sys:"+d.sym+".args", len(p.params), len(p.params))
		for i, t := range p.params {
			fmt.Fprintf(b, "\tv(%q, (long long)sizeof(%s), sizeof(%s));\n", fmt.Sprintf("sys:%s.arg%d", d.sym, i), t, t)
		}
		if c, ok := failretConst[d.sym]; ok {
			// unsigned as it is: INVALID_PROCESSTRACE_HANDLE is 64 bits of ones
			fmt.Fprintf(b, "\tprintf(\"%%s %%llu\\n\", %q, (unsigned long long)(%s));\n", "sys:"+d.sym+".failret", c)
		}
	}
}

// sysHeaders are the headers the prototypes come from.
func sysHeaders() []string {
	decls, err := readSys(sysFile)
	if err != nil {
		return nil
	}
	var hs []string
	for _, d := range decls {
		if p, ok := findProto(d.sym); ok {
			hs = append(hs, p.header)
		}
	}
	return hs
}

// compareSys checks each declaration against what the C program printed.
func compareSys(sdk map[string]string) (checked, bad int, err error) {
	decls, err := readSys(sysFile)
	if err != nil {
		return 0, 0, err
	}
	for _, d := range decls {
		if why, ok := noPrototype[d.sym]; ok {
			fmt.Printf("sys %s: %d arguments; no mingw-w64 prototype: %s\n", d.sym, len(d.goTypes), why)
			continue
		}
		checked++
		n, ok := sdk["sys:"+d.sym+".args"]
		if !ok {
			fmt.Printf("sys %s: no prototype found in %s MISSING (%s:%d)\n", d.sym, includeDir, sysFile, d.line)
			bad++
			continue
		}
		if n != strconv.Itoa(len(d.goTypes)) {
			fmt.Printf("sys %s: go=%d arguments sdk=%s MISMATCH (%s:%d)\n", d.sym, len(d.goTypes), n, sysFile, d.line)
			bad++
			continue
		}
		var widths []string
		ok = true
		for i, t := range d.goTypes {
			w, err := goWidth(t)
			if err != nil {
				return checked, bad, fmt.Errorf("%s:%d: %w", sysFile, d.line, err)
			}
			c := sdk[fmt.Sprintf("sys:%s.arg%d", d.sym, i)]
			if (w == -1 && c != "1" && c != "4") || (w != -1 && c != strconv.Itoa(w)) {
				fmt.Printf("sys %s: argument %d %s (%d bytes) sdk=%s bytes MISMATCH (%s:%d)\n", d.sym, i, t, w, c, sysFile, d.line)
				ok = false
			}
			widths = append(widths, c)
		}
		if !ok {
			bad++
			continue
		}
		line := fmt.Sprintf("sys %s: %d arguments, widths %s as the prototype", d.sym, len(d.goTypes), strings.Join(widths, " "))
		if c, has := failretConst[d.sym]; has {
			want, _ := strconv.ParseUint(d.failret, 0, 64)
			got := sdk["sys:"+d.sym+".failret"]
			if d.failret == "" || got != strconv.FormatUint(want, 10) {
				fmt.Printf("sys %s: failure value go=%s sdk %s=%s MISMATCH (%s:%d)\n", d.sym, d.failret, c, got, sysFile, d.line)
				bad++
				continue
			}
			line += fmt.Sprintf("; fails on %s = %s", c, d.failret)
		}
		fmt.Println(line)
	}
	return checked, bad, nil
}
