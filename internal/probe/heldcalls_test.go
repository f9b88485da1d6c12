package probe

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// The code that runs while a thread is held (HoldThread to Release, the
// runtime's procPin on Linux) must never block in the runtime: a pinned
// goroutine that waits for the scheduler, a lock the runtime holds, a
// channel, the garbage collector or a system call made through package
// syscall (entersyscall) can deadlock the process or hang a
// stop-the-world. So that code calls only what is known to be safe there:
// raw system calls (unix.RawSyscall6), the vDSO clock, atomic loads, and
// plain functions of its own. heldCode lists the functions that run
// held, and heldSafe every call they make; a new call in them fails this
// test until it is shown safe and added here.
var heldCode = []struct {
	file  string
	funcs []string
}{
	{"wake.go", []string{"wakeLoop", "advance"}},
	{"burst.go", []string{"WakeBurst"}},
	{"sleep.go", []string{"sleepLoop"}},
	{"noise.go", []string{"noiseThread", "spin", "step", "stepCut", "record"}},
	{"stop.go", []string{"fire"}},
	{"noise_switches_linux.go", []string{"involuntarySwitches"}},
	{"probe.go", []string{"add"}},
	{"hold.go", []string{"Due", "Yield", "Plan", "WaitUntil"}},
	{"hold_linux.go", []string{"HoldThread", "Release"}},
	{"probe_linux.go", []string{"sleep", "sleepUntil", "WaitUntil"}},
	{"../clock/clock_linux.go", []string{"now"}},
	{"../clock/clock_nolinkname_linux.go", []string{"now"}},
	{"../netload/udp.go", []string{"pace", "spin", "adjust", "observe", "calm", "backOff", "sleeps"}},
	{"../netload/pace_linux.go", []string{"threadSwitches"}},
	{"../netload/rawsend_linux.go", []string{"send"}},
}

// heldSafe: each call of the held code, by how it is written, and why it
// cannot block in the runtime.
var heldSafe = map[string]string{
	// the hold itself, and functions listed in heldCode (checked there)
	"HoldThread":       "the hold",
	"probe.HoldThread": "the hold",
	"h.Release":        "the end of the hold",
	"procPin":          "the hold",
	"procUnpin":        "the end of the hold",
	"y.Due":            "heldCode",
	"y.Plan":           "heldCode",
	"y.WaitUntil":      "heldCode",
	"vw.waitVisible": "Yielder.WaitUntil lets go of the hold first: a system call through " +
		"the runtime's path (entersyscall), made while not held",
	"y.Yield":             "lets go of the hold before runtime.Gosched",
	"runtime.Gosched":     "called by Yield between Release and HoldThread: not held",
	"now":                 "clock.Now, or a test's clock",
	"wakeLoop":            "heldCode",
	"advance":             "heldCode",
	"spin":                "heldCode",
	"involuntarySwitches": "heldCode: getrusage by unix.RawSyscall, before and after the loop",
	"g.step":              "heldCode",
	"g.stepCut":           "heldCode",
	"g.record":            "heldCode",
	"check":               "noiseThread's func literal, checked with it (or a test's)",
	"sleepUntil":          "heldCode",
	"buf.add":             "heldCode",
	"sp.spin":             "heldCode",
	"s.adjust":            "heldCode",
	"s.observe":           "heldCode",
	"sp.observe":          "heldCode",
	"s.calm":              "heldCode",
	"s.backOff":           "heldCode",
	"sp.sleeps":           "heldCode",
	"s.switches":          "threadSwitches (heldCode), or a test's count",
	"bits.OnesCount64":    "a POPCNT or arithmetic, no call into the runtime",
	"s.sleep":             "a sleeper: heldCode (linuxSleeper.sleep)",
	"w.WaitUntil":         "a Waiter: heldCode (linuxWaiter.WaitUntil)",
	"send": "the paced sender (udp.go): while held it writes with rawSender.send " +
		"(heldCode), and with net.Conn.Write only when pace says it is not held",
	"probe.NewYielder":        "called before HoldThread: starts the heartbeat goroutine, not held",
	"NewYielder":              "called before HoldThread: starts the heartbeat goroutine, not held",
	"y.Stop":                  "deferred before HoldThread, so it runs after Release: not held",
	"heartbeat.last.Load":     "an atomic load",
	"stop.Load":               "an atomic load",
	"sa.fire":                 "heldCode",
	"g.sa.fire":               "heldCode",
	"s.winner.CompareAndSwap": "an atomic compare-and-swap",
	"s.flag.Store":            "an atomic store",
	"clock.Now":               "the vDSO clock (runtimeNanotime)",
	"runtimeNanotime":         "runtime.nanotime: nosplit, no lock, no system call through the runtime",
	"unix.RawSyscall":         "a raw system call: no entersyscall, the runtime is not told",
	"unix.RawSyscall6":        "a raw system call: no entersyscall, the runtime is not told",
	"unix.PthreadSigmask":     "rt_sigprocmask through RawSyscall6 in x/sys/unix",
	"unix.NsecToTimespec":     "arithmetic",
	"ts.Nano":                 "arithmetic",
	"fmt.Errorf": "only on a failed wait, which ends the loop; allocating does not park " +
		"a pinned goroutine (the runtime neither assists the collector nor starts a cycle " +
		"while the thread holds locks: gcAssistAlloc, gcStart)",
	"len":                    "a builtin without a call",
	"cap":                    "a builtin without a call",
	"func literal":           "its body is checked with the function's",
	"max":                    "a builtin without a call",
	"min":                    "a builtin without a call",
	"append":                 "allocates when full: see fmt.Errorf",
	"make":                   "allocates: see fmt.Errorf",
	"int64":                  "a conversion",
	"uint64":                 "a conversion",
	"float64":                "a conversion",
	"uintptr":                "a conversion",
	"unsafe.Pointer":         "a conversion",
	"unsafe.SliceData":       "a builtin without a call",
	"interval.Nanoseconds":   "arithmetic",
	"o.Duration.Nanoseconds": "arithmetic",
	"o.Gap.Nanoseconds":      "arithmetic",
}

func TestHeldCodeNeverBlocksInTheRuntime(t *testing.T) {
	for _, c := range heldCode {
		for _, call := range heldCallees(t, c.file, c.funcs) {
			if _, ok := heldSafe[call]; !ok {
				t.Errorf("%s: %s is called while the thread is held: make sure it never blocks in the runtime (no channel, lock, scheduler, allocation that can wait for the collector, or syscall package call), then add it to heldSafe", c.file, call)
			}
		}
	}
}

// Every function that holds a thread is in heldCode: a new held loop
// fails until its calls are checked.
func TestHeldCodeListsEveryHolder(t *testing.T) {
	listed := map[string]bool{}
	for _, c := range heldCode {
		for _, f := range c.funcs {
			listed[path.Dir(c.file)+"/"+f] = true
		}
	}
	files, err := filepath.Glob("../*/*.go") // every package of internal/
	if err != nil {
		t.Fatal(err)
	}
	holders := 0
	for _, file := range files {
		if strings.HasSuffix(file, "_test.go") {
			continue
		}
		dir := filepath.ToSlash(filepath.Dir(file))
		if dir == "../probe" {
			dir = "."
		}
		f, err := parser.ParseFile(token.NewFileSet(), file, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || fd.Body == nil {
				continue
			}
			ast.Inspect(fd.Body, func(n ast.Node) bool {
				if c, ok := n.(*ast.CallExpr); ok {
					if name := exprString(c.Fun); name == "HoldThread" || name == "probe.HoldThread" {
						holders++
						if !listed[dir+"/"+fd.Name.Name] {
							t.Errorf("%s: %s holds the thread but is not in heldCode", file, fd.Name.Name)
						}
					}
				}
				return true
			})
		}
	}
	if holders < 4 {
		t.Fatalf("%d calls of HoldThread found: the search is out of date", holders)
	}
}

// heldCallees returns the calls made in the named functions of file, as
// written (w.WaitUntil, unix.RawSyscall6), sorted and without repeats,
// and fails on what can block: go statements, channel operations, a
// select other than a send that does not wait.
func heldCallees(t *testing.T, file string, funcs []string) []string {
	t.Helper()
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, file, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	var calls []string
	found := 0
	for _, d := range f.Decls {
		fd, ok := d.(*ast.FuncDecl)
		if !ok || !slices.Contains(funcs, fd.Name.Name) || fd.Body == nil {
			continue
		}
		found++
		ast.Inspect(fd.Body, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.CallExpr:
				calls = append(calls, exprString(n.Fun))
			case *ast.SelectStmt:
				if nonBlockingSend(n) {
					// chansend without blocking: takes the channel's
					// lock, never parks
					return false
				}
				t.Errorf("%s: %s: a select that can wait, while held", file, fset.Position(n.Pos()))
			case *ast.GoStmt, *ast.SendStmt:
				t.Errorf("%s: %s: blocks or enters the scheduler while held", file, fset.Position(n.Pos()))
			case *ast.UnaryExpr:
				if n.Op == token.ARROW {
					t.Errorf("%s: %s: a channel receive while held", file, fset.Position(n.Pos()))
				}
			}
			return true
		})
	}
	if found < len(funcs) {
		t.Fatalf("%s: %d of the functions %v found: heldCode is out of date", file, found, funcs)
	}
	slices.Sort(calls)
	return slices.Compact(calls)
}

// nonBlockingSend: a select of sends of plain values and a default case.
func nonBlockingSend(s *ast.SelectStmt) bool {
	def := false
	for _, c := range s.Body.List {
		cc := c.(*ast.CommClause)
		switch comm := cc.Comm.(type) {
		case nil:
			def = true
		case *ast.SendStmt:
			if _, ok := comm.Value.(*ast.Ident); !ok {
				return false
			}
		default:
			return false
		}
		for _, st := range cc.Body {
			if _, ok := st.(*ast.IncDecStmt); !ok {
				return false
			}
		}
	}
	return def
}

func exprString(e ast.Expr) string {
	switch e := e.(type) {
	case *ast.Ident:
		return e.Name
	case *ast.SelectorExpr:
		return exprString(e.X) + "." + e.Sel.Name
	case *ast.FuncLit:
		return "func literal"
	case *ast.IndexExpr:
		return exprString(e.X) + "[]"
	case *ast.ParenExpr:
		return "(" + exprString(e.X) + ")"
	case *ast.StarExpr:
		return "*" + exprString(e.X)
	case *ast.CallExpr:
		return exprString(e.Fun) + "()"
	case *ast.ArrayType:
		return "[]" + exprString(e.Elt)
	}
	return "?"
}

// The tag latlab_nolinkname builds the packages that reach into the
// runtime by go:linkname (the pin here, nanotime in clock) without it.
func TestBuildsWithoutLinkname(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go vet")
	}
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("needs the go command")
	}
	cmd := exec.Command(gobin, "vet", "-tags", "latlab_nolinkname", "../probe", "../clock")
	cmd.Env = append(os.Environ(), "GOOS=linux")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go vet -tags latlab_nolinkname: %v\n%s", err, out)
	}
	cmd = exec.Command(gobin, "list", "-tags", "latlab_nolinkname", "-f", "{{range .GoFiles}}{{.}} {{end}}", "../probe", "../clock")
	cmd.Env = append(os.Environ(), "GOOS=linux")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	files := strings.Fields(string(out))
	for _, f := range []string{"pin_nolinkname_linux.go", "clock_nolinkname_linux.go"} {
		if !slices.Contains(files, f) {
			t.Errorf("the tag leaves out %s: %v", f, files)
		}
	}
	for _, f := range []string{"pin_linux.go", "clock_linux.go"} {
		if slices.Contains(files, f) {
			t.Errorf("the tag keeps %s: %v", f, files)
		}
	}
}
