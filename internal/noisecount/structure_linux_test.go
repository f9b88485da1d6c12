package noisecount

import (
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
)

// The noise command's Windows counters read ntdll's per-processor counts
// and nothing else: this package's Windows build neither reaches the irq
// package, whose Windows watcher also reads the network adapters'
// registry entries, nor imports the registry itself (probe, which it
// shares its types with, reads the registry for its host facts, never in
// a reading of counters), and the noise command's file does not import
// irq. Checked on Linux, where the suite has a go command.
func TestWindowsReaderReadsNoRegistry(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command")
	}
	list := func(format string) []string {
		cmd := exec.Command("go", "list", "-f", format, ".")
		cmd.Env = append(os.Environ(), "GOOS=windows", "GOARCH=amd64", "CGO_ENABLED=0")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("go list: %v\n%s", err, out)
		}
		return strings.Fields(string(out))
	}
	imports, deps := list(`{{join .Imports " "}}`), list(`{{join .Deps " "}}`)
	if !contains(imports, "github.com/latlab/latlab/internal/winapi") {
		t.Fatalf("the Windows build does not import winapi: the list is not the Windows one: %v", imports)
	}
	if contains(imports, "golang.org/x/sys/windows/registry") {
		t.Errorf("noisecount's Windows build imports the registry: %v", imports)
	}
	if contains(deps, "github.com/latlab/latlab/internal/irq") {
		t.Error("noisecount's Windows build depends on the irq package")
	}
	f, err := parser.ParseFile(token.NewFileSet(), "../cli/noise.go", nil, parser.ImportsOnly)
	if err != nil {
		t.Fatal(err)
	}
	for _, imp := range f.Imports {
		if p, _ := strconv.Unquote(imp.Path.Value); p == "github.com/latlab/latlab/internal/irq" {
			t.Errorf("cli/noise.go imports %s: its counters are noisecount's", p)
		}
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
