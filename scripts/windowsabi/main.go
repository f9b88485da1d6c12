// Command windowsabi generates both sides of scripts/windows-abi from one
// list (scripts/windows-abi.list): a C program that prints what the
// mingw-w64 SDK headers say for each item, and for each Go package of
// the list a test file (handed to go test through -overlay, never
// written into the tree) that prints what the package's own constants
// and types say. With -compare it reads the two outputs and prints one
// line per item, failing on any difference.
//
// A list line is: package, NAME, Go, source.
//
//	NAME   sizeof(T), offsetof(T.Field[.Field...]) or a constant's name,
//	       as the SDK spells it
//	Go     a type literal T{} (sizes), T{}.Field... (offsets), or a
//	       constant expression in the package (a size, offset or value
//	       the code keeps as a number)
//	source the SDK header that declares NAME, or doc=WHERE for what the
//	       headers lack (the rest of the line: the documentation page or
//	       public parser checked against, also cited at the declaration)
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

type item struct {
	pkg, name, goExpr, source string
	line                      int
	// docValue is the value a doc= source states (canonical: a decimal
	// number, a lowercase GUID without braces, or a string), docWhere the
	// page or manifest that states it.
	docValue, docWhere string
}

func (it item) doc() string { return it.docWhere }

var guidRE = regexp.MustCompile(`^\{?([0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12})\}?$`)

// parseDoc splits "doc=VALUE WHERE": VALUE a number (decimal or 0x hex),
// a {GUID} or a "string"; every doc= item states the value its source
// gives, so that it is compared, not only printed.
func parseDoc(src string) (value, where string, err error) {
	rest, _ := strings.CutPrefix(src, "doc=")
	rest = strings.TrimSpace(rest)
	if strings.HasPrefix(rest, `"`) {
		end := strings.Index(rest[1:], `"`)
		if end < 0 {
			return "", "", fmt.Errorf("doc=%s: an unterminated string", rest)
		}
		value, where = rest[1:end+1], strings.TrimSpace(rest[end+2:])
	} else {
		v, w, _ := strings.Cut(rest, " ")
		where = strings.TrimSpace(w)
		if m := guidRE.FindStringSubmatch(v); m != nil {
			value = strings.ToLower(m[1])
		} else if n, err := strconv.ParseUint(v, 0, 64); err == nil {
			value = strconv.FormatUint(n, 10)
		} else {
			return "", "", fmt.Errorf("doc=%s: want doc=VALUE WHERE, VALUE the documented number, {GUID} or \"string\"", rest)
		}
	}
	if where == "" {
		return "", "", fmt.Errorf("doc=%s: no source after the value", rest)
	}
	return value, where, nil
}

// kind: "sizeof", "offsetof", "const", "guid" or "str"; sizes and
// offsets print in decimal, constants in hex, GUIDs and strings as they
// are.
func (it item) kind() string {
	switch {
	case strings.HasPrefix(it.name, "guid("):
		return "guid"
	case strings.HasPrefix(it.name, "str("):
		return "str"
	case strings.HasPrefix(it.name, "sizeof("):
		return "sizeof"
	case strings.HasPrefix(it.name, "offsetof("):
		return "offsetof"
	}
	return "const"
}

// fields splits a line: package, NAME, the Go expression (which may hold
// spaces), and the source: doc=... to the end, or the last word (a header).
var fields = regexp.MustCompile(`^\s*(\S+)\s+(\S+)\s+(.+?)\s+(doc=.+?|\S+\.h)\s*$`)

func readList(path string) ([]item, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var items []item
	seen := map[string]int{}
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		s := sc.Text()
		if i := strings.Index(s, "#"); i >= 0 && !strings.Contains(s[:i], "doc=") {
			s = s[:i]
		}
		if strings.TrimSpace(s) == "" {
			continue
		}
		m := fields.FindStringSubmatch(s)
		if m == nil {
			return nil, fmt.Errorf("%s:%d: want: package NAME Go source", path, n)
		}
		it := item{pkg: m[1], name: m[2], goExpr: m[3], source: m[4], line: n}
		if strings.HasPrefix(it.source, "doc=") {
			var err error
			if it.docValue, it.docWhere, err = parseDoc(it.source); err != nil {
				return nil, fmt.Errorf("%s:%d: %s: %w", path, n, it.name, err)
			}
		}
		if p, ok := seen[it.pkg+" "+it.name]; ok {
			return nil, fmt.Errorf("%s:%d: %s in %s is on line %d already", path, n, it.name, it.pkg, p)
		}
		seen[it.pkg+" "+it.name] = n
		items = append(items, it)
	}
	return items, sc.Err()
}

// cExpr is the C expression of NAME.
func cExpr(name string) string {
	for _, k := range []string{"guid(", "str("} {
		if s, ok := strings.CutPrefix(name, k); ok {
			return strings.TrimSuffix(s, ")")
		}
	}
	if s, ok := strings.CutPrefix(name, "sizeof("); ok {
		return "sizeof(" + strings.TrimSuffix(s, ")") + ")"
	}
	if s, ok := strings.CutPrefix(name, "offsetof("); ok {
		t, f, _ := strings.Cut(strings.TrimSuffix(s, ")"), ".")
		return "offsetof(" + t + ", " + f + ")"
	}
	return name
}

// goValue is the Go expression of the item's value as a uint64.
func goValue(it item) (string, error) {
	switch it.kind() {
	case "guid":
		return "abiGUID(" + it.goExpr + ")", nil
	case "str":
		return "string(" + it.goExpr + ")", nil
	}
	typ, path, isLit := strings.Cut(it.goExpr, "{}")
	if !isLit {
		return "uint64(" + it.goExpr + ")", nil
	}
	switch it.kind() {
	case "sizeof":
		if path != "" {
			return "", fmt.Errorf("line %d: %s: a size takes T{}", it.line, it.goExpr)
		}
		return "uint64(unsafe.Sizeof(" + typ + "{}))", nil
	case "offsetof":
		fs := strings.Split(strings.TrimPrefix(path, "."), ".")
		if path == "" || slices.Contains(fs, "") {
			return "", fmt.Errorf("line %d: %s: an offset takes T{}.Field", it.line, it.goExpr)
		}
		var sum []string
		for i := range fs {
			sum = append(sum, "unsafe.Offsetof(v."+strings.Join(fs[:i+1], ".")+")")
		}
		return "func() uint64 { var v " + typ + "; return uint64(" + strings.Join(sum, " + ") + ") }()", nil
	}
	return "", fmt.Errorf("line %d: %s: a constant is an expression, not T{}", it.line, it.goExpr)
}

func writeC(items []item, out string) error {
	var b strings.Builder
	b.WriteString("/* generated by scripts/windowsabi from scripts/windows-abi.list */\n#define INITGUID\n")
	headers := []string{"winsock2.h", "ws2tcpip.h", "mstcpip.h", "windows.h"}
	for _, it := range items {
		if it.doc() == "" && !slices.Contains(headers, it.source) {
			headers = append(headers, it.source)
		}
	}
	for _, h := range sysHeaders() {
		if !slices.Contains(headers, h) {
			headers = append(headers, h)
		}
	}
	for _, h := range headers {
		fmt.Fprintf(&b, "#include <%s>\n", h)
	}
	b.WriteString("#include <stddef.h>\n#include <stdio.h>\n\n")
	b.WriteString("static void v(const char *name, long long s, unsigned long long u) {\n")
	b.WriteString("\t/* a negative constant (a LONG error code) as the 32-bit pattern Go keeps */\n")
	b.WriteString("\tprintf(\"%s %llu\\n\", name, s < 0 && s >= -0x80000000LL ? (unsigned long long)(unsigned int)s : u);\n}\n\n")
	b.WriteString("static void g(const char *name, const GUID *p) {\n")
	b.WriteString("\tprintf(\"%s %08lx-%04x-%04x-%02x%02x-%02x%02x%02x%02x%02x%02x\\n\", name, (unsigned long)p->Data1, p->Data2, p->Data3,\n")
	b.WriteString("\t\tp->Data4[0], p->Data4[1], p->Data4[2], p->Data4[3], p->Data4[4], p->Data4[5], p->Data4[6], p->Data4[7]);\n}\n\n")
	b.WriteString("static void s(const char *name, const char *v) { printf(\"%s %s\\n\", name, v); }\n\n")
	b.WriteString("int main(void) {\n")
	for _, it := range items {
		if it.doc() != "" {
			continue
		}
		e := cExpr(it.name)
		switch it.kind() {
		case "guid":
			fmt.Fprintf(&b, "\tg(%q, &%s);\n", it.name, e)
		case "str":
			fmt.Fprintf(&b, "\ts(%q, %s);\n", it.name, e)
		default:
			fmt.Fprintf(&b, "\tv(%q, (long long)(%s), (unsigned long long)(%s));\n", it.name, e, e)
		}
	}
	writeSysC(&b)
	b.WriteString("\treturn 0;\n}\n")
	return os.WriteFile(out, []byte(b.String()), 0o644)
}

// writeGo writes one test file per package into dir and an overlay that
// places each in its package; it prints the packages, one a line.
func writeGo(items []item, root, dir string) error {
	byPkg := map[string][]item{}
	var pkgs []string
	for _, it := range items {
		if _, ok := byPkg[it.pkg]; !ok {
			pkgs = append(pkgs, it.pkg)
		}
		byPkg[it.pkg] = append(byPkg[it.pkg], it)
	}
	replace := map[string]string{}
	for _, p := range pkgs {
		src, err := os.ReadFile(firstGoFile(filepath.Join(root, p)))
		if err != nil {
			return fmt.Errorf("package %s: %w", p, err)
		}
		name := regexp.MustCompile(`(?m)^package (\w+)`).FindSubmatch(src)
		if name == nil {
			return fmt.Errorf("package %s: no package clause", p)
		}
		var b strings.Builder
		fmt.Fprintf(&b, "//go:build windows\n\npackage %s\n\nimport (\n\t\"fmt\"\n\t\"io\"\n\t\"os\"\n\t\"reflect\"\n\t\"strings\"\n\t\"testing\"\n\t\"unsafe\"\n)\n\n", name[1])
		b.WriteString("var _ = unsafe.Sizeof(0)\n\n")
		b.WriteString(abiGUIDFunc)
		b.WriteString("// TestWindowsABIValues prints the values scripts/windows-abi compares.\n")
		b.WriteString("func TestWindowsABIValues(t *testing.T) {\n")
		b.WriteString(abiOutput)
		for _, it := range byPkg[p] {
			v, err := goValue(it)
			if err != nil {
				return err
			}
			verb := "%d"
			if k := it.kind(); k == "guid" || k == "str" {
				verb = "%s"
			}
			fmt.Fprintf(&b, "\tfmt.Fprintf(out, \"ABI %%s %s\\n\", %q, %s)\n", verb, it.name, v)
		}
		b.WriteString("\tif file != nil {\n\t\tif err := file.Close(); err != nil {\n\t\t\tt.Fatal(err)\n\t\t}\n\t}\n}\n")
		f := filepath.Join(dir, strings.ReplaceAll(p, "/", "_")+"_abi_windows_test.go")
		if err := os.WriteFile(f, []byte(b.String()), 0o644); err != nil {
			return err
		}
		abs, err := filepath.Abs(filepath.Join(root, p, "zz_windowsabi_windows_test.go"))
		if err != nil {
			return err
		}
		replace[abs] = f
		fmt.Println("./" + p)
	}
	j, err := json.Marshal(map[string]any{"Replace": replace})
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "overlay.json"), j, 0o644)
}

// abiOutput opens where the values go: stdout (go test -v shows it), or
// the file LATLAB_WINDOWS_ABI_OUT names, appended to, so that
// scripts/test gathers them from its one run of the Windows tests under
// Wine instead of building and running the packages' tests again.
const abiOutput = `	var out io.Writer = os.Stdout
	var file *os.File
	if p := os.Getenv("LATLAB_WINDOWS_ABI_OUT"); p != "" {
		f, err := os.OpenFile(p, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
		if err != nil {
			t.Fatal(err)
		}
		file, out = f, f
	}
`

// abiGUIDFunc formats a GUID item's Go value: a struct with Data1..Data4
// (windows.GUID, etw.GUID), or a GUID's text ("{4d36e972-...}", as in a
// registry path).
const abiGUIDFunc = `func abiGUID(v any) string {
	if s, ok := v.(string); ok {
		return strings.ToLower(strings.Trim(s, "{}"))
	}
	r := reflect.ValueOf(v)
	d4 := r.FieldByName("Data4")
	out := fmt.Sprintf("%08x-%04x-%04x-", r.FieldByName("Data1").Uint(), r.FieldByName("Data2").Uint(), r.FieldByName("Data3").Uint())
	for i := 0; i < 8; i++ {
		if i == 2 {
			out += "-"
		}
		out += fmt.Sprintf("%02x", d4.Index(i).Uint())
	}
	return out
}

`

func firstGoFile(dir string) string {
	ms, _ := filepath.Glob(filepath.Join(dir, "*.go"))
	for _, m := range ms {
		if !strings.HasSuffix(m, "_test.go") {
			return m
		}
	}
	return filepath.Join(dir, "doc.go")
}

// readValues reads "NAME VALUE" lines (the Go side's prefixed "ABI "):
// NAME has no space, VALUE is the rest of the line.
func readValues(path, prefix string) (map[string]string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	vals := map[string]string{}
	for _, l := range strings.Split(strings.ReplaceAll(string(b), "\r", ""), "\n") {
		l, ok := strings.CutPrefix(l, prefix)
		if !ok {
			continue
		}
		name, v, ok := strings.Cut(l, " ")
		if !ok {
			continue
		}
		vals[name] = v
	}
	return vals, nil
}

// format shows a value: constants in hex, sizes and offsets in decimal,
// GUIDs and strings as they are.
func format(it item, v string) string {
	if it.kind() == "const" {
		if n, err := strconv.ParseUint(v, 10, 64); err == nil {
			return fmt.Sprintf("0x%x", n)
		}
	}
	return v
}

func compare(items []item, goOut, cOut string) (bad int, err error) {
	gov, err := readValues(goOut, "ABI ")
	if err != nil {
		return 0, err
	}
	sdk, err := readValues(cOut, "")
	if err != nil {
		return 0, err
	}
	for _, it := range items {
		g, ok := gov[it.name]
		if !ok {
			fmt.Printf("%s go=MISSING (%s printed nothing)\n", it.name, it.pkg)
			bad++
			continue
		}
		if d := it.doc(); d != "" {
			if g != it.docValue {
				fmt.Printf("%s go=%s doc=%s MISMATCH (%s; %s)\n", it.name, format(it, g), format(it, it.docValue), it.pkg, d)
				bad++
				continue
			}
			fmt.Printf("%s go=%s doc=%s (%s)\n", it.name, format(it, g), format(it, it.docValue), d)
			continue
		}
		s, ok := sdk[it.name]
		switch {
		case !ok:
			fmt.Printf("%s go=%s sdk=MISSING\n", it.name, format(it, g))
			bad++
		case s != g:
			fmt.Printf("%s go=%s sdk=%s MISMATCH (%s)\n", it.name, format(it, g), format(it, s), it.pkg)
			bad++
		default:
			fmt.Printf("%s go=%s sdk=%s\n", it.name, format(it, g), format(it, s))
		}
	}
	return bad, nil
}

// layout32 are the headers whose structures latlab reads with one layout
// on 64-bit and 32-bit Windows (windows/386 is built): their sizes and
// offsets must hold for i686 too.
var layout32 = []string{"pdh.h"}

// writeC32 writes a C file of static assertions: each sizeof/offsetof item
// of layout32, as the Go side printed it, must hold under i686 mingw-w64
// (compiled with -m32 -fsyntax-only: no 32-bit libraries needed).
func writeC32(items []item, goOut, out string) error {
	gov, err := readValues(goOut, "ABI ")
	if err != nil {
		return err
	}
	var b strings.Builder
	b.WriteString("/* generated by scripts/windowsabi: the 32-bit layouts */\n#include <windows.h>\n")
	for _, h := range layout32 {
		fmt.Fprintf(&b, "#include <%s>\n", h)
	}
	b.WriteString("#include <stddef.h>\n_Static_assert(sizeof(void *) == 4, \"not a 32-bit build\");\n")
	n := 0
	for _, it := range items {
		if k := it.kind(); (k != "sizeof" && k != "offsetof") || !slices.Contains(layout32, it.source) {
			continue
		}
		v, ok := gov[it.name]
		if !ok {
			return fmt.Errorf("%s: the Go side printed nothing", it.name)
		}
		fmt.Fprintf(&b, "_Static_assert(%s == %s, \"%s is not %s on 32-bit Windows\");\n", cExpr(it.name), v, it.name, v)
		n++
	}
	if n == 0 {
		return fmt.Errorf("no 32-bit layout item in the list")
	}
	return os.WriteFile(out, []byte(b.String()), 0o644)
}

func main() {
	list := flag.String("list", "scripts/windows-abi.list", "the one list of items")
	root := flag.String("root", ".", "the module root")
	cOut := flag.String("c", "", "write the C program here")
	goDir := flag.String("go", "", "write the Go test files and overlay.json into this directory, and print the packages")
	cmp := flag.Bool("compare", false, "compare -govalues with -sdkvalues")
	c32 := flag.String("c32", "", "write the 32-bit static assertions here (with -govalues)")
	goVals := flag.String("govalues", "", "the Go side's output")
	flag.StringVar(&sysFile, "sys", sysFile, "the //sys declarations")
	flag.StringVar(&includeDir, "include", includeDir, "mingw-w64's include directory")
	sdkVals := flag.String("sdkvalues", "", "the C side's output")
	flag.Parse()
	items, err := readList(*list)
	if err != nil {
		fmt.Fprintln(os.Stderr, "windows-abi:", err)
		os.Exit(2)
	}
	switch {
	case *cOut != "":
		err = writeC(items, *cOut)
	case *goDir != "":
		err = writeGo(items, *root, *goDir)
	case *c32 != "":
		err = writeC32(items, *goVals, *c32)
	case *cmp:
		var bad, sysChecked, sysBad int
		bad, err = compare(items, *goVals, *sdkVals)
		if err == nil {
			var sdk map[string]string
			if sdk, err = readValues(*sdkVals, ""); err == nil {
				sysChecked, sysBad, err = compareSys(sdk)
			}
		}
		if err == nil && bad+sysBad > 0 {
			fmt.Fprintf(os.Stderr, "windows-abi: %d of %d items and %d of %d //sys declarations differ from the SDK or their documentation, or are missing\n", bad, len(items), sysBad, sysChecked)
			os.Exit(1)
		}
		if err == nil {
			fmt.Fprintf(os.Stderr, "windows-abi: %d items and %d //sys declarations, all as the SDK or their documentation has them\n", len(items), sysChecked)
		}
	default:
		err = fmt.Errorf("give -c, -go or -compare")
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "windows-abi:", err)
		os.Exit(1)
	}
}
