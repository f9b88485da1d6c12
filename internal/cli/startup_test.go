package cli

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"testing"
)

// Every command pays for what latlab's packages do before main, including
// the completion that runs latlab on every Tab. The regular expressions,
// templates and tables they used to build at start-up (about 5,000 objects)
// are now built on first use; this keeps it so. It counts allocations (the
// runtime's own init trace), which the machine's load does not change.
func TestStartupAllocatesLittleInLatlabPackages(t *testing.T) {
	if os.Getenv("LATLAB_INITTRACE_CHILD") == "1" {
		return // the child: its package initialisation is what is measured
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestStartupAllocatesLittleInLatlabPackages$")
	cmd.Env = append(os.Environ(), "LATLAB_INITTRACE_CHILD=1", "GODEBUG=inittrace=1")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("%v: %s", err, stderr.String())
	}
	line := regexp.MustCompile(`(?m)^init (github\.com/latlab/latlab/\S+) @.* (\d+) allocs$`)
	// per package: the largest today is cli (its flag completion table,
	// about 80); a package-level regexp.MustCompile alone costs 40 to 400
	const perPackage = 150
	total, n := 0, 0
	for _, m := range line.FindAllStringSubmatch(stderr.String(), -1) {
		allocs, _ := strconv.Atoi(m[2])
		total += allocs
		n++
		if allocs > perPackage {
			t.Errorf("%s allocates %d objects at start-up (limit %d): build it on first use (sync.OnceValue, lazy.Regexp)",
				m[1], allocs, perPackage)
		}
	}
	if n < 10 {
		t.Fatalf("only %d latlab packages in the init trace; GODEBUG=inittrace=1 gave:\n%s", n, stderr.String())
	}
	if total > 1000 {
		t.Errorf("latlab's packages allocate %d objects at start-up (limit 1000)", total)
	}
}

func BenchmarkStartupVersion(b *testing.B)  { benchArgs(b, "version") }
func BenchmarkStartupComplete(b *testing.B) { benchArgs(b, "__complete", "") }

// benchArgs runs latlab in-process: what building the command tree and
// running the command cost after package initialisation (scripts/bench-
// startup times whole processes).
func benchArgs(b *testing.B, args ...string) {
	b.ReportAllocs()
	for b.Loop() {
		var out, errb bytes.Buffer
		if code := Run(context.Background(), args, &IO{Out: &out, Err: &errb}); code != 0 {
			b.Fatalf("exit %d: %s", code, errb.String())
		}
	}
}
