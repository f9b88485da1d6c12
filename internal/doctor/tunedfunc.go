package doctor

import (
	"errors"
	"fmt"
	"io/fs"
	"math"
	"math/big"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"unicode"

	"github.com/latlab/latlab/internal/cpuset"
	"github.com/latlab/latlab/internal/lazy"
	"github.com/latlab/latlab/internal/units"
)

// tuned's functions, ${f:NAME:ARG:...}, are worked out as tuned 2.28's
// tuned/profiles/functions do it (parser.py, base.py, function_*.py,
// tuned/utils/commands.py), where the answer needs no guessing: the
// pure ones, and those that read /sys or /proc, read in the --root tree
// as the rest of the audit is. A function that runs a command (exec,
// virt_check, lscpu_check, check_net_queue_count's nproc) is never
// run: it, and whatever uses what it returns, stays unknown.
//
// A value is expanded as tuned's Variables.expand does: the variables
// substituted (expandVars), then the functions, innermost first, each
// result put in place and not read again. A call tuned leaves as
// written (a wrong number of arguments, a passed assertion, a function
// that returns None) is left as written here too. A call latlab cannot
// work out becomes a token, "\x00N\x00" (a profile holds no NUL:
// parseTunedINI refuses one), which has none of the characters the
// parser looks for, so what uses it is unknown too; restore writes the
// calls back for the page.

// tunedMachine is what tuned's functions read of the machine: a file of
// /sys or /proc, a directory's names, and whether that is this machine
// (not a --root tree).
type tunedMachine struct {
	read func(path string) (string, error)
	list func(dir string) ([]string, error)
	host bool
}

// tunedFuncs works tuned's functions out for one profile.
type tunedFuncs struct {
	m tunedMachine
	// tokens are the calls left unevaluated, by token number; sorted,
	// beside one, is the same CPUs in ascending order when only their
	// order is unknown (cpulist_invert on a large machine).
	tokens []tunedToken
	sorted map[int]string
	// forms, beside a token, are the two values tuned's versions give
	// (calc_isolated_cores packs its CPUs from tuned 2.26 on: 1-3, not
	// 1,2,3): the newer first, which the token's text is.
	forms map[int][2]string
	reads map[string]readResult
	// refusals are the failed assertions: tuned refuses the profile.
	refusals []string
	// unreadVars are the variables files latlab cannot read: a variable
	// the profile does not set may be theirs.
	unreadVars []string
}

// tunedToken is a call latlab left unevaluated: its text, and why ("" when
// it only uses another such call).
type tunedToken struct{ text, why string }

type readResult struct {
	text string
	err  error
}

func newTunedFuncs(m tunedMachine) *tunedFuncs {
	return &tunedFuncs{m: m, sorted: map[int]string{}, forms: map[int][2]string{}, reads: map[string]readResult{}}
}

// expand is tuned's Variables.expand: variables, then functions. A value
// that would grow past tunedMaxValue is a call latlab does not work out:
// a profile of a few lines can double a variable forty times over.
func (f *tunedFuncs) expand(s string, vars map[string]string) string {
	e := expandVars(s, vars)
	if len(e) <= tunedMaxValue {
		e = f.funcs(e)
	}
	if len(e) > tunedMaxValue {
		return f.token(s, fmt.Sprintf("it expands to more than %s, more than latlab reads of one value", units.Size(tunedMaxValue)))
	}
	return e
}

// restore writes the calls latlab left unevaluated back as the profile
// wrote them (with its variables substituted), up to tunedMaxValue bytes
// and an ellipsis: a token's text may hold other tokens, each written
// back in turn, so copies of copies would grow without end.
func (f *tunedFuncs) restore(s string) string {
	for i := 0; i < 64 && strings.IndexByte(s, 0) >= 0; i++ {
		var b strings.Builder
		last := 0
		for _, m := range tokenRE().FindAllStringIndex(s, -1) {
			b.WriteString(s[last:m[0]])
			last = m[1]
			if n, _ := strconv.Atoi(s[m[0]+1 : m[1]-1]); n < len(f.tokens) {
				b.WriteString(f.tokens[n].text)
			} else {
				b.WriteString(s[m[0]:m[1]])
			}
			if b.Len() > tunedMaxValue {
				return strings.ToValidUTF8(b.String()[:tunedMaxValue], "") + "…"
			}
		}
		b.WriteString(s[last:])
		s = b.String()
	}
	return s
}

var tokenRE = lazy.Regexp("\x00[0-9]+\x00")

// token stands for a call latlab cannot work out, why.
func (f *tunedFuncs) token(text, why string) string {
	f.tokens = append(f.tokens, tunedToken{text, why})
	return fmt.Sprintf("\x00%d\x00", len(f.tokens)-1)
}

// whys are the reasons of the calls left in s (the calls they use
// included), each once, innermost first.
func (f *tunedFuncs) whys(s string) []string {
	var out []string
	seen := map[int]bool{} // a token's text may hold another many times
	var walk func(s string, depth int)
	walk = func(s string, depth int) {
		for _, t := range tokenRE().FindAllString(s, -1) {
			n, _ := strconv.Atoi(t[1 : len(t)-1])
			if n >= len(f.tokens) || depth > 64 || seen[n] {
				continue
			}
			seen[n] = true
			walk(f.tokens[n].text, depth+1)
			if w := f.tokens[n].why; w != "" && !containsStr(out, w) {
				out = append(out, w)
			}
		}
	}
	walk(s, 0)
	return out
}

// funcs is tuned's Parser.expand: each "${" pushed with whether a
// backslash came just before it, each "}" closing the last one opened
// and, unless that was escaped, the call in between evaluated and put in
// its place; then "\${f:...}" unescaped. tuned's quirks are kept: a
// stray "}" ends the scan, and after a call at the very start that
// returns "" the next character is not looked at.
func (f *tunedFuncs) funcs(s string) string {
	if s == "" {
		return s
	}
	type open struct {
		esc bool
		at  int
	}
	var stack []open
	esc := false
	str := s
	for cnt := 0; cnt < len(str); cnt++ {
		switch {
		case str[cnt] == '}':
			if len(stack) == 0 {
				return unescapeFuncRE().ReplaceAllString(str, "$1")
			}
			o := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			if !o.esc {
				if res, ok := f.call(str[o.at:cnt]); ok {
					str = str[:o.at] + res + str[cnt+1:]
					cnt = max(o.at+len(res)-1, 0)
					if len(str) > tunedMaxValue {
						return str // expand refuses it
					}
				}
			}
		case strings.HasPrefix(str[cnt:], "${"):
			stack = append(stack, open{esc, cnt})
		}
		esc = cnt < len(str) && str[cnt] == '\\'
	}
	return unescapeFuncRE().ReplaceAllString(str, "$1")
}

var unsetVarRE = lazy.Regexp(`\$\{(\w+)\}`)

var unescapeFuncRE = lazy.Regexp(`\\(\$\{f:.*\})`)

// splitArgs splits a call on the colons no backslash precedes, and
// unescapes "\:" in each part, as parser.py does.
func splitArgs(s string) []string {
	var out []string
	start := 0
	for i := 0; i < len(s); i++ {
		if s[i] == ':' && (i == 0 || s[i-1] != '\\') {
			out = append(out, s[start:i])
			start = i + 1
		}
	}
	out = append(out, s[start:])
	for i := range out {
		out[i] = strings.ReplaceAll(out[i], `\:`, ":")
	}
	return out
}

// The arguments each function takes (base.py's nargs_max, nargs_min;
// max 0 is any number), of every function tuned 2.28 has.
var tunedFuncArgs = map[string][2]int{
	"assertion": {3, 3}, "assertion_non_equal": {3, 3}, "calc_isolated_cores": {1, -1},
	"check_net_queue_count": {1, 1}, "cpuinfo_check": {0, 2}, "cpulist2devs": {0, -1},
	"cpulist2hex": {0, -1}, "cpulist2hex_invert": {0, -1}, "cpulist_invert": {0, -1},
	"cpulist_online": {0, -1}, "cpulist_pack": {0, -1}, "cpulist_present": {0, -1},
	"cpulist_unpack": {0, -1}, "exec": {0, 1}, "hex2cpulist": {1, 1},
	"intel_recommended_pstate": {0, -1}, "kb2s": {1, 1}, "log": {0, 1}, "lscpu_check": {0, 2},
	"package2cpus": {0, -1}, "package2uncores": {0, -1}, "regex_search_ternary": {4, 4},
	"s2kb": {1, 1}, "strip": {0, 1}, "virt_check": {2, 2},
}

// cpuListFuncs are the functions that read their arguments as a CPU
// list, whose order they do not keep.
var cpuListFuncs = map[string]bool{
	"cpulist2devs": true, "cpulist2hex": true, "cpulist2hex_invert": true, "cpulist_invert": true,
	"cpulist_online": true, "cpulist_pack": true, "cpulist_present": true, "cpulist_unpack": true,
}

// unknownErr says why latlab cannot tell what a call returns.
type unknownErr struct{ why string }

func (e *unknownErr) Error() string { return e.why }

func unknown(format string, args ...any) error {
	return &unknownErr{fmt.Sprintf(format, args...)}
}

// errNone is a function returning None: tuned leaves the call as written.
var errNone = errors.New("tuned leaves the call as written")

// call evaluates one call, s being its text from "${" to before "}";
// false leaves it as written, as tuned does.
func (f *tunedFuncs) call(s string) (string, bool) {
	parts := splitArgs(s)
	if parts[0] != "${f" {
		return "", false // a variable the profile does not define
	}
	text := s + "}"
	if len(parts) < 2 {
		return f.token(text, "tuned fails on ${f} with no name"), true
	}
	name, args := parts[1], parts[2:]
	if !funcNameRE().MatchString(name) {
		return "", false // tuned: "invalid function name" or not implemented
	}
	lim, known := tunedFuncArgs[name]
	if !known {
		return f.token(text, "latlab does not know tuned's function "+name), true
	}
	if (lim[0] != 0 && len(args) > lim[0]) || (lim[1] >= 0 && len(args) < lim[1]) {
		return "", false // tuned: "invalid number of arguments"
	}
	for _, a := range args {
		if len(f.unreadVars) > 0 && strings.Contains(a, "${") {
			return f.token(text, "a variable that "+strings.Join(f.unreadVars, " or ")+", which latlab cannot read, may set"), true
		}
	}
	// A variable the profile leaves unset stays as its text, which the
	// CPU-list functions then read as a list (cpulist2hex_invert of
	// "${isolated_cores}" is every CPU): not what the profile means, so
	// unknown. The other functions may test that text on purpose: the
	// assertions compare it (how a profile says a variable must be set),
	// and cpu-partitioning's regex_search_ternary gives "" when
	// ${no_balance_cores} is not set to CPUs.
	if cpuListFuncs[name] {
		for _, a := range args {
			if m := unsetVarRE().FindStringSubmatch(a); m != nil {
				return f.token(text, fmt.Sprintf("it uses ${%s}, which the profile leaves unset", m[1])), true
			}
		}
	}
	// The arguments as each tuned version gives them.
	var in [2][]string
	for form := range in {
		for _, a := range args {
			a = f.resolve(a, form, cpuListFuncs[name])
			if strings.IndexByte(a, 0) >= 0 {
				// It uses what latlab cannot tell.
				why := ""
				if strings.HasPrefix(name, "assertion") {
					why = fmt.Sprintf("whether tuned accepts the profile is unknown: its %s %q compares values latlab cannot tell", name, args[0])
					f.refusals = appendOnce(f.refusals, why)
				}
				return f.token(text, why), true
			}
			in[form] = append(in[form], a)
		}
	}
	var res [2]string
	var errs [2]error
	res[0], errs[0] = f.eval(name, in[0])
	res[1], errs[1] = res[0], errs[0]
	if strings.Join(in[0], ":") != strings.Join(in[1], ":") {
		res[1], errs[1] = f.eval(name, in[1])
	}
	var u *unknownErr
	var r *refusal
	switch {
	case errors.Is(errs[0], errNone) && errors.Is(errs[1], errNone):
		return "", false
	case errors.As(errs[0], &u) || errors.As(errs[1], &u):
		return f.token(text, "tuned's "+name+": "+u.why), true
	case errors.As(errs[0], &r) && errors.As(errs[1], &r):
		// tuned stops loading the profile there.
		f.refusals = appendOnce(f.refusals, r.why)
		return "", false
	case errs[0] != nil || errs[1] != nil:
		why := fmt.Sprintf("whether tuned accepts the profile depends on its version: its %s %q holds on one and fails on the other", name, args[0])
		if !strings.HasPrefix(name, "assertion") {
			why = "tuned's " + name + " gives a value on one version of tuned and none on the other"
		}
		f.refusals = appendOnce(f.refusals, why)
		return f.token(text, why), true
	case res[0] != res[1]:
		return f.twoForms(res[0], res[1]), true
	}
	return res[0], true
}

// twoForms is a token for a value tuned 2.26 on gives as a and older
// versions as b.
func (f *tunedFuncs) twoForms(a, b string) string {
	tok := f.token(a, "")
	n, _ := strconv.Atoi(tok[1 : len(tok)-1])
	f.forms[n] = [2]string{a, b}
	return tok
}

// resolve puts in s the values of the calls whose value latlab knows
// for tuned's version form (0 from 2.26 on, 1 before), and, for a
// function that reads CPU lists, cpulist_invert's CPUs whatever their
// order; the tokens left are what latlab cannot tell.
func (f *tunedFuncs) resolve(s string, form int, cpus bool) string {
	for i := 0; i < 64 && strings.IndexByte(s, 0) >= 0; i++ {
		changed := false
		s = tokenRE().ReplaceAllStringFunc(s, func(t string) string {
			n, _ := strconv.Atoi(t[1 : len(t)-1])
			if v, ok := f.forms[n]; ok {
				changed = true
				return v[form]
			}
			if l, ok := f.sorted[n]; ok && cpus {
				changed = true
				return l
			}
			return t
		})
		if !changed {
			break
		}
	}
	return s
}

// render is a value as tuned's version form gives it, what latlab
// cannot tell written back as the profile wrote it.
func (f *tunedFuncs) render(s string, form int) string {
	return f.restore(f.resolve(s, form, false))
}

func appendOnce(l []string, s string) []string {
	if containsStr(l, s) {
		return l
	}
	return append(l, s)
}

// funcNameRE is parser.py's check of a function's name (\w+$, which
// Python also lets end in a newline; no such function exists).
var funcNameRE = lazy.Regexp(`^[A-Za-z0-9_]+$`)

// refusal is a failed assertion: tuned refuses the profile.
type refusal struct{ why string }

func (e *refusal) Error() string { return e.why }

func (f *tunedFuncs) eval(name string, args []string) (string, error) {
	switch name {
	case "assertion", "assertion_non_equal":
		equal := args[1] == args[2]
		if equal == (name == "assertion") {
			return "", errNone
		}
		op := map[bool]string{true: "==", false: "!="}[equal]
		return "", &refusal{fmt.Sprintf("tuned refuses this profile: its %s %q fails ('%s' %s '%s')", name, args[0], f.restore(args[1]), op, f.restore(args[2]))}
	case "strip":
		return strings.TrimFunc(strings.Join(args, ""), pyIsSpace), nil
	case "log":
		return strings.Join(args, ""), nil
	case "kb2s", "s2kb":
		n, ok, err := pyInt(args[0])
		if err != nil {
			return "", err
		}
		if !ok {
			return "", errNone
		}
		if name == "kb2s" {
			return new(big.Int).Mul(n, big.NewInt(2)).String(), nil
		}
		// Python's round(n / 2): a float, halves to even.
		if n.CmpAbs(big.NewInt(1<<53)) > 0 {
			return "", unknown("it halves %s as a float, and latlab does not work out a number that large", args[0])
		}
		return strconv.FormatInt(int64(math.RoundToEven(float64(n.Int64())/2)), 10), nil
	case "regex_search_ternary":
		re, err := pyRegexp(args[1], false, args[0])
		if err != nil {
			return "", err
		}
		if re.MatchString(args[0]) {
			return args[2], nil
		}
		return args[3], nil
	case "cpuinfo_check":
		cpuinfo, err := f.readMachine("/proc/cpuinfo", name)
		if err != nil {
			return "", err
		}
		for i := 0; i+1 < len(args); i += 2 {
			re, err := pyRegexp(args[i], true, cpuinfo)
			if err != nil {
				return "", err
			}
			if re.MatchString(cpuinfo) {
				return args[i+1], nil
			}
		}
		if len(args)%2 == 1 {
			return args[len(args)-1], nil
		}
		return "", nil
	case "check_net_queue_count":
		if args[0] != "" && strings.Trim(args[0], "0123456789") == "" {
			return args[0], nil
		}
		return "", unknown("%q is not a number, so it runs nproc, and latlab runs no command", args[0])
	case "exec", "virt_check", "lscpu_check":
		cmd := map[string]string{"exec": strings.Join(args, " "), "virt_check": "virt-what", "lscpu_check": "lscpu"}[name]
		return "", unknown("it runs %s, and latlab runs no command", cmd)
	case "package2cpus", "package2uncores":
		return "", unknown("not evaluated by latlab (it lists CPUs in the directory's order)")
	case "intel_recommended_pstate":
		pmu, err := f.readMachine("/sys/devices/cpu/caps/pmu_name", name)
		if err != nil {
			return "", err
		}
		switch strings.TrimFunc(pmu, pyIsSpace) {
		case "", "sandybridge", "ivybridge", "haswell", "broadwell", "skylake":
			return "disable", nil
		}
		return "active", nil
	case "calc_isolated_cores":
		return f.calcIsolatedCores(args)
	case "hex2cpulist":
		cpus, err := hex2cpulist(args[0])
		return joinInts(cpus), err
	}
	return f.cpuListFunc(name, args)
}

// cpuListFunc evaluates the functions of CPU lists: their arguments
// joined by ",," (cpulist2devs and cpulist_online: ","), unpacked as
// cpulist_unpack does.
func (f *tunedFuncs) cpuListFunc(name string, args []string) (string, error) {
	sep := ",,"
	if name == "cpulist2devs" || name == "cpulist_online" {
		sep = ","
	}
	cpus, err := cpulistUnpack(strings.Join(args, sep))
	if err != nil {
		return "", err
	}
	switch name {
	case "cpulist_unpack":
		return joinInts(cpus), nil
	case "cpulist_pack":
		return cpuset.FormatList(cpus), nil
	case "cpulist2hex":
		return cpulist2hex(cpus), nil
	case "cpulist2devs":
		var b []string
		for _, c := range cpus {
			b = append(b, "cpu"+strconv.Itoa(c))
		}
		return strings.Join(b, ","), nil
	}
	file := map[bool]string{true: "/sys/devices/system/cpu/present", false: "/sys/devices/system/cpu/online"}[name == "cpulist_present"]
	text, err := f.readMachine(file, name)
	if err != nil {
		return "", err
	}
	sys, err := cpulistUnpack(text)
	if err != nil {
		return "", err
	}
	in := map[int]bool{}
	for _, c := range sys {
		in[c] = true
	}
	switch name {
	case "cpulist_online", "cpulist_present":
		var out []int
		for _, c := range cpus {
			if in[c] {
				out = append(out, c)
			}
		}
		return joinInts(out), nil
	}
	// cpulist_invert and cpulist2hex_invert: the online CPUs not given.
	given := map[int]bool{}
	for _, c := range cpus {
		given[c] = true
	}
	var inv []int
	for _, c := range sys {
		if !given[c] {
			inv = append(inv, c)
		}
	}
	if name == "cpulist2hex_invert" {
		return cpulist2hex(inv), nil
	}
	// tuned writes a Python set: ascending while every CPU is below 8
	// (the least set table, where each number sits in its own slot);
	// beyond, the order is the set's, which latlab does not reproduce.
	list := joinInts(inv)
	if len(inv) > 1 && inv[len(inv)-1] >= 8 {
		tok := f.token("${f:"+name+":"+strings.Join(args, ":")+"}",
			fmt.Sprintf("tuned's cpulist_invert gives CPUs %s in a Python set's order, which latlab does not reproduce", list))
		n, _ := strconv.Atoi(tok[1 : len(tok)-1])
		f.sorted[n] = list
		return tok, nil
	}
	return list, nil
}

// calcIsolatedCores is calc_isolated_cores: per package
// (topology/physical_package_id of each cpuN that has one), all but its
// first N CPUs (1 unless given), packed.
func (f *tunedFuncs) calcIsolatedCores(args []string) (string, error) {
	reserve := 1
	if len(args) > 0 {
		if args[0] == "" || strings.Trim(args[0], "0123456789") != "" {
			return "", errNone // tuned: "it must be non-negative integer"
		}
		n, err := strconv.Atoi(args[0])
		if err != nil {
			n = math.MaxInt // all of every package reserved
		}
		reserve = n
	}
	const dir = "/sys/devices/system/cpu"
	names, err := f.m.list(dir)
	if err != nil {
		return "", f.machineErr(dir, "calc_isolated_cores", err)
	}
	byPkg := map[string][]int{}
	for _, n := range names {
		id, ok := strings.CutPrefix(n, "cpu")
		if !ok || id == "" || strings.Trim(id, "0123456789") != "" {
			continue
		}
		cpu, err := strconv.Atoi(id)
		if err != nil || cpu > cpuset.MaxCPU {
			return "", unknown("%s/%s is beyond any machine", dir, n)
		}
		text, err := f.m.read(dir + "/" + n + "/topology/physical_package_id")
		if err != nil {
			if f.m.host {
				continue // offline, or unreadable: tuned skips it too
			}
			return "", f.machineErr(dir+"/"+n+"/topology/physical_package_id", "calc_isolated_cores", err)
		}
		pkg := strings.TrimFunc(text, pyIsSpace)
		if pkg == "" || strings.Trim(pkg, "0123456789") != "" {
			continue
		}
		byPkg[pkg] = append(byPkg[pkg], cpu)
	}
	var isol []int
	for _, cpus := range byPkg {
		sort.Ints(cpus)
		if reserve < len(cpus) {
			isol = append(isol, cpus[reserve:]...)
		}
	}
	sort.Ints(isol)
	// tuned 2.26 packed the list (commit f64fac7: "Make
	// calc_isolated_cores return CPU ranges"); before, it joined the CPUs.
	if packed, joined := cpuset.FormatList(isol), joinInts(isol); packed != joined {
		return f.twoForms(packed, joined), nil
	}
	return joinInts(isol), nil
}

// readMachine reads a file tuned's function reads: on this machine a
// missing file is "", as tuned's read_file gives it; in a --root tree it
// means the tree does not say.
func (f *tunedFuncs) readMachine(path, fn string) (string, error) {
	r, ok := f.reads[path]
	if !ok {
		r.text, r.err = f.m.read(path)
		f.reads[path] = r
	}
	if r.err != nil {
		if f.m.host && errors.Is(r.err, fs.ErrNotExist) {
			return "", nil
		}
		return "", f.machineErr(path, fn, r.err)
	}
	return r.text, nil
}

func (f *tunedFuncs) machineErr(path, fn string, err error) error {
	if !f.m.host {
		return unknown("it reads %s, which the --root tree does not give (%s): what it gives on that tree's machine is unknown", path, describeReadErr(err))
	}
	return unknown("it reads %s, which latlab cannot read (%s)", path, describeReadErr(err))
}

func joinInts(l []int) string {
	s := make([]string, len(l))
	for i, v := range l {
		s[i] = strconv.Itoa(v)
	}
	return strings.Join(s, ",")
}

// cpulist2hex is commands.cpulist2hex: the mask in hex, zero-filled to
// whole 32-bit words, the words joined by commas.
func cpulist2hex(cpus []int) string {
	n := new(big.Int)
	for _, c := range cpus {
		n.SetBit(n, c, 1)
	}
	h := n.Text(16)
	if r := len(h) % 8; r != 0 {
		h = strings.Repeat("0", 8-r) + h
	}
	var words []string
	for i := 0; i < len(h); i += 8 {
		words = append(words, h[i:i+8])
	}
	return strings.Join(words, ",")
}

// pyIsSpace is Python's str.isspace for a character, as strip() and
// int() use it.
func pyIsSpace(r rune) bool {
	return (r >= 0x1c && r <= 0x1f) || unicode.IsSpace(r)
}

// pyInt is Python's int(s): white space around, a sign, decimal digits
// with single underscores between them. false is a ValueError; an error
// is a number latlab cannot read as Python would (non-ASCII digits).
func pyInt(s string) (*big.Int, bool, error) {
	s = strings.TrimFunc(s, pyIsSpace)
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return nil, false, unknown("latlab does not read %q as Python would (a character outside ASCII)", s)
		}
	}
	d := strings.TrimLeft(s, "+-")
	if len(s)-len(d) > 1 || !validDigits(d, "0123456789") {
		return nil, false, nil
	}
	n, ok := new(big.Int).SetString(strings.ReplaceAll(s, "_", ""), 10)
	return n, ok, nil
}

// validDigits: digits of the set with single underscores between them.
func validDigits(d, set string) bool {
	if d == "" || d[0] == '_' || d[len(d)-1] == '_' || strings.Contains(d, "__") {
		return false
	}
	return strings.Trim(strings.ReplaceAll(d, "_", ""), set) == ""
}

// cpuNumber is one CPU number of a list: Python's int(), within any
// machine's CPUs. false is a ValueError.
func cpuNumber(s string) (int, bool, error) {
	n, ok, err := pyInt(s)
	if err != nil || !ok {
		return 0, ok, err
	}
	if n.Sign() < 0 || n.Cmp(big.NewInt(cpuset.MaxCPU)) > 0 {
		return 0, false, unknown("CPU %s is beyond any machine (latlab reads CPUs 0 to %d)", strings.TrimSpace(s), cpuset.MaxCPU)
	}
	return int(n.Int64()), true, nil
}

// cpulistUnpack is commands.cpulist_unpack: quotes stripped from the
// ends, items split on ","; "0x..." a hex mask running to the next empty
// item (",,"), its parts joined; "^N" or "!N" (or a range) taken off
// the result; "A-B" a range (the parts after the second "-" ignored);
// any item that is not a number makes the whole list empty.
func cpulistUnpack(l string) ([]int, error) {
	items := strings.Split(strings.Trim(l, `'"`), ",")
	var plain []string
	var neg [][2]int
	hex, hv := false, ""
	for _, v := range items {
		switch {
		case hex:
			if v == "" {
				hex = false
				plain = append(plain, hv)
				hv = ""
			} else {
				hv += v
			}
		case len(v) >= 2 && strings.EqualFold(v[:2], "0x"):
			hex, hv = true, v
		case v != "" && (v[0] == '^' || v[0] == '!'):
			nl := strings.Split(v[1:], "-")
			lo, ok, err := negNumber(nl[0])
			if err != nil || !ok {
				return nil, err
			}
			hi := lo
			if len(nl) > 1 {
				if hi, ok, err = negNumber(nl[1]); err != nil || !ok {
					return nil, err
				}
			}
			neg = append(neg, [2]int{lo, hi})
		case v != "":
			plain = append(plain, v)
		}
	}
	if hv != "" {
		plain = append(plain, hv)
	}
	set := map[int]bool{}
	for _, v := range plain {
		if len(v) >= 2 && strings.EqualFold(v[:2], "0x") {
			cpus, err := hex2cpulist(v)
			if err != nil {
				return nil, err
			}
			for _, c := range cpus {
				set[c] = true
			}
			continue
		}
		vl := strings.Split(v, "-")
		lo, ok, err := cpuNumber(vl[0])
		if err != nil || !ok {
			if err == nil && len(vl) > 1 && vl[0] == "" {
				return nil, nil
			}
			return nil, err
		}
		hi := lo
		if len(vl) > 1 {
			n, ok, err := pyInt(vl[1])
			if err != nil || !ok {
				return nil, err
			}
			if n.Cmp(big.NewInt(cpuset.MaxCPU)) > 0 {
				return nil, unknown("CPU %s is beyond any machine (latlab reads CPUs 0 to %d)", strings.TrimSpace(vl[1]), cpuset.MaxCPU)
			}
			hi = int(n.Int64())
		}
		for c := lo; c <= hi; c++ {
			set[c] = true
		}
	}
	var out []int
	for c := range set {
		excluded := false
		for _, r := range neg {
			if c >= r[0] && c <= r[1] {
				excluded = true
			}
		}
		if !excluded {
			out = append(out, c)
		}
	}
	sort.Ints(out)
	return out, nil
}

// negNumber is a number of a "^" item: any int, clamped (it only takes
// CPUs off).
func negNumber(s string) (int, bool, error) {
	n, ok, err := pyInt(s)
	if err != nil || !ok {
		return 0, ok, err
	}
	switch {
	case n.Cmp(big.NewInt(cpuset.MaxCPU+1)) > 0:
		return cpuset.MaxCPU + 1, true, nil
	case n.Cmp(big.NewInt(-1)) < 0:
		return -1, true, nil
	}
	return int(n.Int64()), true, nil
}

// hex2cpulist is commands.hex2cpulist: the commas dropped, then
// Python's int(mask, 16) (an optional 0x, underscores between digits);
// what is not hex is no CPU (tuned logs it).
func hex2cpulist(mask string) ([]int, error) {
	s := strings.TrimFunc(strings.ReplaceAll(mask, ",", ""), pyIsSpace)
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return nil, unknown("latlab does not read %q as Python would (a character outside ASCII)", s)
		}
	}
	neg := strings.HasPrefix(s, "-")
	d := strings.TrimLeft(s, "+-")
	if len(s)-len(d) > 1 {
		return nil, nil
	}
	if len(d) >= 2 && strings.EqualFold(d[:2], "0x") {
		d = strings.TrimPrefix(d[2:], "_") // int("0x_f", 16) is 15
	}
	if !validDigits(d, "0123456789abcdefABCDEF") || neg {
		return nil, nil
	}
	n, _ := new(big.Int).SetString(strings.ReplaceAll(d, "_", ""), 16)
	if n.BitLen() > cpuset.MaxCPU+1 {
		return nil, unknown("the mask %s sets a CPU beyond any machine (latlab reads CPUs 0 to %d)", mask, cpuset.MaxCPU)
	}
	var out []int
	for i := 0; i < n.BitLen(); i++ {
		if n.Bit(i) == 1 {
			out = append(out, i)
		}
	}
	return out, nil
}

// pyRegexp is a Python regular expression (re.search; multiline is
// re.MULTILINE) as Go's, where both read it the same: ASCII pattern and
// text (Python's \s, \w and \b are Unicode's), and only the syntax both
// share (no flags, look-arounds, back references, {,N}, [:class:]); a
// text with a newline only where $ means the same.
func pyRegexp(p string, multiline bool, text string) (*regexp.Regexp, error) {
	bad := func(why string) error {
		return unknown("it matches the Python regular expression %q, which latlab does not work out (%s)", p, why)
	}
	for _, s := range []string{p, text} {
		for i := 0; i < len(s); i++ {
			if s[i] >= 0x80 {
				return nil, bad("a character outside ASCII")
			}
		}
	}
	if !multiline && strings.Contains(text, "\n") {
		return nil, bad("a text of several lines")
	}
	if strings.ContainsAny(text, "\v\x1c\x1d\x1e\x1f") {
		return nil, bad(`a character Python's \s matches and Go's does not`)
	}
	class := false
	for i := 0; i < len(p); i++ {
		c := p[i]
		switch {
		case c == '\\':
			if i+1 >= len(p) {
				return nil, bad("a trailing backslash")
			}
			i++
			e := p[i]
			switch {
			case strings.IndexByte("sSdDwWntrfv", e) >= 0:
			case strings.IndexByte("bB", e) >= 0 && !class:
			case (e >= 'a' && e <= 'z') || (e >= 'A' && e <= 'Z') || (e >= '0' && e <= '9'):
				return nil, bad(`the escape \` + string(e))
			}
		case class:
			if c == ']' {
				class = false
			} else if c == '[' && i+1 < len(p) && p[i+1] == ':' {
				return nil, bad("[: in a class")
			}
		case c == '[':
			class = true
			if i+1 < len(p) && p[i+1] == '^' {
				i++
			}
			if i+1 < len(p) && p[i+1] == ']' {
				i++ // a leading ] is a character
			}
		case c == '(' && i+1 < len(p) && p[i+1] == '?':
			if i+2 >= len(p) || p[i+2] != ':' {
				return nil, bad("a (? group")
			}
		case c == '{':
			if m := braceRE().FindString(p[i:]); m == "" {
				return nil, bad("a { that is not {N}, {N,} or {N,M}")
			}
		}
	}
	if class {
		return nil, bad("an unclosed [")
	}
	if multiline {
		p = "(?m)" + p
	}
	re, err := regexp.Compile(p)
	if err != nil {
		return nil, bad("Go's syntax differs")
	}
	return re, nil
}

var braceRE = lazy.Regexp(`^\{[0-9]+(,[0-9]*)?\}`)
