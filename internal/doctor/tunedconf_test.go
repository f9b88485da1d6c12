package doctor

import (
	"fmt"
	"strings"
	"testing"
)

// iniText is a parsed file written back as "[section] key=value" lines,
// [DEFAULT]'s first.
func iniText(f *iniFile) string {
	var b strings.Builder
	for _, s := range append([]*iniSection{f.Defaults}, f.Sections...) {
		if s == nil {
			continue
		}
		for _, k := range s.Keys {
			fmt.Fprintf(&b, "[%s] %s=%s\n", s.Name, k, s.Values[k])
		}
	}
	return b.String()
}

// TestParseTunedINI: the file as Python's configparser reads it with
// tuned's settings.
func TestParseTunedINI(t *testing.T) {
	for _, c := range []struct {
		name, in, want, err string
	}{
		{"keys and values trimmed", "[sysctl]\n vm.swappiness = 10 \n", "[sysctl] vm.swappiness=10\n", ""},
		{"comment lines, # and ;", "# top\n[main]\n; note\n  # indented\nsummary=x\n", "[main] summary=x\n", ""},
		{"inline comment after white space", "[cpu]\ngovernor=performance # fast\n", "[cpu] governor=performance\n", ""},
		{"a # inside a value stays", "[sysctl]\nkernel.x=a#b\n", "[sysctl] kernel.x=a#b\n", ""},
		{"a ; inside a value stays", "[sysctl]\nkernel.x=a ;b\n", "[sysctl] kernel.x=a ;b\n", ""},
		{"only the first = splits", "[bootloader]\ncmdline=isolcpus=1 nohz=on\n", "[bootloader] cmdline=isolcpus=1 nohz=on\n", ""},
		{"case kept", "[sysctl]\nNet.Core.X=1\n", "[sysctl] Net.Core.X=1\n", ""},
		{"a later key wins, first place kept", "[s]\na=1\nb=2\na=3\n", "[s] a=3\n[s] b=2\n", ""},
		{"a repeated section merges", "[s]\na=1\n[t]\nx=1\n[s]\nb=2\n", "[s] a=1\n[s] b=2\n[t] x=1\n", ""},
		{"a continuation line", "[script]\nscript=a\n  b\nc=1\n", "[script] script=a\nb\n[script] c=1\n", ""},
		{"a blank line inside a value, trailing ones dropped", "[s]\nk=a\n\n  b\n\n", "[s] k=a\n\nb\n", ""},
		{"empty value", "[s]\nk=\n", "[s] k=\n", ""},
		{"CRLF", "[s]\r\nk=v\r\n", "[s] k=v\n", ""},
		{"DEFAULT", "[DEFAULT]\nd=1\n[s]\nk=v\n", "[DEFAULT] d=1\n[s] k=v\n", ""},
		{"header with text after ]", "[main] x\nk=v\n", "[main] k=v\n", ""},
		{"no section", "k=v\n", "", "line 1 (\"k=v\"): a key before any [section]"},
		{"no =", "[s]\njust words\n", "", "line 2 (\"just words\"): neither a [section], a key=value nor a comment"},
		{"no key", "[s]\n=v\n", "", "line 2 (\"=v\"): a value with no key"},
		{"[] is no header", "[]\n", "", "line 1 (\"[]\"): a key before any [section]"},
		{"not UTF-8", "[s]\nk=\xff\n", "", "not UTF-8 text"},
		{"NUL", "[s]\nk=\x00\n", "", "holds a NUL byte"},
		{"JSON is not a tuned.conf", "{\"a\": 1}\n", "", "a key before any [section]"},
	} {
		t.Run(c.name, func(t *testing.T) {
			f, err := parseTunedINI([]byte(c.in), false)
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("error %v, want %q", err, c.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := iniText(f); got != c.want {
				t.Errorf("got\n%s\nwant\n%s", got, c.want)
			}
		})
	}
	// A variables file takes a key without a value, and drops it.
	f, err := parseTunedINI([]byte("[variables]\nlone\nisolated_cores=1-3\n"), true)
	if err != nil || iniText(f) != "[variables] isolated_cores=1-3\n" {
		t.Errorf("variables file: %v %q", err, iniText(f))
	}
}

// TestExpandVars: tuned's one-pass substitution, escapes, and what is left.
func TestExpandVars(t *testing.T) {
	vars := map[string]string{"isolated_cores": "2-3", "a": "${b}", "b": "x"}
	for _, c := range []struct{ in, want string }{
		{"nohz_full=${isolated_cores}", "nohz_full=2-3"},
		{"${a}", "${b}"}, // not expanded again
		{`\${isolated_cores}`, "${isolated_cores}"},
		{"${f:cpulist_invert:${isolated_cores}}", "${f:cpulist_invert:2-3}"},
		{"${unknown}", "${unknown}"},
		{"${", "${"},
		{"plain", "plain"},
	} {
		if got := expandVars(c.in, vars); got != c.want {
			t.Errorf("expandVars(%q) = %q, want %q", c.in, got, c.want)
		}
	}
	funcs, vs := unresolved("${f:cpulist_invert:${x}} ${y} ${f:cpulist_invert:1}")
	if strings.Join(funcs, ",") != "cpulist_invert" || strings.Join(vs, ",") != "x,y" {
		t.Errorf("unresolved: %v %v", funcs, vs)
	}
}

// TestMergeInto: tuned's merger: options laid over, replace=1, drop=,
// type=, enabled=, devices=, [variables].
func TestMergeInto(t *testing.T) {
	load := func(name, text string) (*tunedProfile, map[string]bool, map[string][]string) {
		f, err := parseTunedINI([]byte(text), false)
		if err != nil {
			t.Fatal(err)
		}
		p, _, r, d := profileFromINI(f, name, "/p/"+name)
		return p, r, d
	}
	base, _, _ := load("base", "[main]\ninclude=x\n[variables]\nv=1\nw=2\n[sysctl]\na=1\nb=2\n[cpu]\ngovernor=powersave\n[disk]\nreadahead=4096\n[vm]\nx=1\n")
	top, r, d := load("top", "[variables]\nv=9\n[sysctl]\nb=3\nc=${i:PROFILE_DIR}\n[cpu]\nreplace=1\nforce_latency=1\n[disk]\ndrop=readahead\ndevices=sda\n[vm]\nenabled=false\n[mine]\ntype=sysctl\nd=4\n")
	mergeInto(base, top, r, d)
	var b strings.Builder
	for _, u := range base.Units {
		fmt.Fprintf(&b, "[%s] type=%s enabled=%v devices=%s:", u.Name, u.Type, u.Enabled, u.Devices)
		for _, k := range u.Keys {
			fmt.Fprintf(&b, " %s=%s(%s)", k, u.Opts[k].Value, u.Opts[k].Profile)
		}
		b.WriteString("\n")
	}
	for _, k := range base.Vars {
		fmt.Fprintf(&b, "var %s=%s(%s)\n", k, base.VarsOf[k].Value, base.VarsOf[k].Profile)
	}
	want := `[sysctl] type=sysctl enabled=true devices=*: a=1(base) b=3(top) c=/p/top(top)
[cpu] type=cpu enabled=true devices=*: force_latency=1(top)
[disk] type=disk enabled=true devices=sda:
[vm] type=vm enabled=false devices=*: x=1(base)
[mine] type=sysctl enabled=true devices=*: d=4(top)
var v=9(top)
var w=2(base)
`
	if b.String() != want {
		t.Errorf("merged\n%s\nwant\n%s", b.String(), want)
	}
	// [variables] replace=1 drops the variables before it.
	top2, r2, d2 := load("top2", "[variables]\nreplace=1\nz=1\n")
	mergeInto(base, top2, r2, d2)
	if strings.Join(base.Vars, ",") != "z" {
		t.Errorf("variables after replace=1: %v", base.Vars)
	}
}

// FuzzParseTunedINI: any input parses or is refused with a line named,
// never a panic; what parses keeps every key in its section.
func FuzzParseTunedINI(f *testing.F) {
	for _, s := range []string{
		"[main]\ninclude=a, b;c\n[sysctl]\nvm.swappiness=10 # c\n",
		"[s]\nk=a\n  b\n\n  c\n",
		"[DEFAULT]\nx=1\n[s]\n",
		"k=v", "[", "[]\n", "[s]\n=\n", "\xff", "[s]\r\nk=v\r\n",
	} {
		f.Add([]byte(s), false)
	}
	f.Fuzz(func(t *testing.T, b []byte, noValue bool) {
		ini, err := parseTunedINI(b, noValue)
		if err != nil {
			return
		}
		for _, s := range ini.Sections {
			if len(s.Keys) != len(s.Values) {
				t.Fatalf("section %q: keys %v, values %v", s.Name, s.Keys, s.Values)
			}
		}
		p, _, r, d := profileFromINI(ini, "p", "/d")
		mergeInto(newTunedProfile(), p, r, d)
	})
}

// TestSplitIncludes: "," and ";" split, not inside a function's ${...}.
func TestSplitIncludes(t *testing.T) {
	for in, want := range map[string]string{
		"a":            "a",
		"a, b ;c":      "a|b|c",
		"a,${f:x:1,2}": "a|${f:x:1,2}",
		"openshift-node,cpu-partitioning${f:regex_search_ternary:${f:exec:uname:-r}:rt:,rt-x:}": "openshift-node|cpu-partitioning${f:regex_search_ternary:${f:exec:uname:-r}:rt:,rt-x:}",
		"a,,b":         "a||b",
		"${f:x:1},b;c": "${f:x:1}|b|c",
	} {
		if got := strings.Join(splitIncludes(in), "|"); got != want {
			t.Errorf("splitIncludes(%q) = %q, want %q", in, got, want)
		}
	}
}
