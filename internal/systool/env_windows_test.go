package systool

import (
	"os/exec"
	"strings"
	"testing"

	"golang.org/x/sys/windows"
)

// The environment a PowerShell child gets, as the child sees it: a child
// started with Env(PowerShell) (cmd.exe here: Wine's PowerShell runs no
// script) prints one PSModulePath, the system's module folder, whatever
// this process's PSModulePath says.
func TestEnvOfPowerShellChild(t *testing.T) {
	t.Setenv("PSModulePath", `C:\Users\Public\planted`)
	env, err := Env(PowerShell)
	if err != nil {
		t.Fatal(err)
	}
	sys, err := windows.GetSystemDirectory()
	if err != nil {
		t.Fatal(err)
	}
	want := "PSModulePath=" + sys + `\WindowsPowerShell\v1.0\Modules`
	cmd := exec.Command(sys+`\cmd.exe`, "/c", "set", "PSModulePath")
	cmd.Env = env
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("cmd /c set: %v", err)
	}
	var got []string
	for _, l := range strings.Split(strings.ReplaceAll(string(out), "\r", ""), "\n") {
		if strings.HasPrefix(strings.ToLower(l), "psmodulepath=") {
			got = append(got, l)
		}
	}
	if len(got) != 1 || !strings.EqualFold(got[0], want) {
		t.Errorf("the child's PSModulePath: %q, want %q", got, want)
	}
	if e, err := Env(Netsh); err != nil || e != nil {
		t.Errorf("netsh's environment: %v %v, want this process's own (nil)", e, err)
	}
}
