package doctor

import (
	"fmt"
	"io/fs"
	"strings"
	"testing"
)

// fakeMachine is a machine of files and directories for tuned's
// functions; a path it lacks is not found.
func fakeMachine(host bool, files map[string]string, dirs map[string][]string) tunedMachine {
	return tunedMachine{
		read: func(p string) (string, error) {
			if s, ok := files[p]; ok {
				return s, nil
			}
			return "", &fs.PathError{Op: "open", Path: p, Err: fs.ErrNotExist}
		},
		list: func(d string) ([]string, error) {
			if l, ok := dirs[d]; ok {
				return l, nil
			}
			return nil, &fs.PathError{Op: "open", Path: d, Err: fs.ErrNotExist}
		},
		host: host,
	}
}

// fourCPUs: CPUs 0-3 online of 0-7 present, 0-1 in package 0 and 2-3 in
// package 1, an Intel Skylake.
func fourCPUs(host bool) tunedMachine {
	const c = "/sys/devices/system/cpu"
	return fakeMachine(host, map[string]string{
		c + "/online":                            "0-3\n",
		c + "/present":                           "0-7\n",
		c + "/cpu0/topology/physical_package_id": "0\n",
		c + "/cpu1/topology/physical_package_id": "0\n",
		c + "/cpu2/topology/physical_package_id": "1\n",
		c + "/cpu3/topology/physical_package_id": "1\n",
		"/proc/cpuinfo":                          "processor\t: 0\nvendor_id\t: GenuineIntel\nmodel name\t: Xeon\n",
		"/sys/devices/cpu/caps/pmu_name":         "skylake\n",
	}, map[string][]string{c: {"cpufreq", "cpu3", "cpu1", "cpuidle", "cpu0", "cpu2", "online"}})
}

// TestTunedFuncs: each function as tuned 2.28 works it out (values from
// function_*.py and tuned/utils/commands.py, worked by hand), what it
// leaves as written, and what latlab leaves unknown and why.
func TestTunedFuncs(t *testing.T) {
	for _, c := range []struct {
		in, want string
		old      string // what tuned before 2.26 gives, when it differs
		why      string // a reason the value stays unknown
		refused  string // tuned refuses the profile
	}{
		// strip and log join their arguments.
		{in: "${f:strip:  foo :bar  }", want: "foo bar"},
		{in: "${f:strip}", want: "${f:strip}"}, // too few arguments: as written
		{in: "${f:log:a:b}", want: "ab"},
		// cpulist_unpack: ranges, "^"/"!" taken off, hex masks up to ",,",
		// quotes, white space; a bad item empties the list.
		{in: "${f:cpulist_unpack:1-3,5}", want: "1,2,3,5"},
		{in: "${f:cpulist_unpack:0-5,^3}", want: "0,1,2,4,5"},
		{in: "${f:cpulist_unpack:0-7,!2-4}", want: "0,1,5,6,7"},
		{in: "${f:cpulist_unpack:^1,0-2}", want: "0,2"},
		{in: "${f:cpulist_unpack:}", want: ""},
		{in: "${f:cpulist_unpack:1,x}", want: ""},
		{in: "${f:cpulist_unpack:0-2,^x}", want: ""},
		{in: "${f:cpulist_unpack:0xf,,6}", want: "0,1,2,3,6"},
		{in: "${f:cpulist_unpack:0x00000001,00000002}", want: "1,32"},
		{in: "${f:cpulist_unpack:0xzz,,6}", want: "6"}, // a bad mask is no CPU
		{in: `${f:cpulist_unpack:"1-2"}`, want: "1,2"},
		{in: "${f:cpulist_unpack:1-2-9}", want: "1,2"},
		{in: "${f:cpulist_unpack:3-1}", want: ""},
		{in: "${f:cpulist_unpack: 2 , +4,1_0}", want: "2,4,10"},
		{in: "${f:cpulist_unpack:1__0}", want: ""},
		{in: "${f:cpulist_unpack:1:3}", want: "1,3"},
		{in: "${f:cpulist_unpack:-1}", want: ""},
		{in: "${f:cpulist_unpack:0-9000}", want: "${f:cpulist_unpack:0-9000}", why: "CPU 9000 is beyond any machine"},
		{in: "${f:cpulist_unpack:\u0661}", want: "${f:cpulist_unpack:\u0661}", why: "a character outside ASCII"},
		// cpulist_pack writes ranges, two CPUs too.
		{in: "${f:cpulist_pack:1,2,3,5}", want: "1-3,5"},
		{in: "${f:cpulist_pack:5,3,4,9}", want: "3-5,9"},
		{in: "${f:cpulist_pack:1,2}", want: "1-2"},
		{in: "${f:cpulist_pack:}", want: ""},
		// cpulist2hex: 32-bit words, zero-filled, comma-separated.
		{in: "${f:cpulist2hex:0-3}", want: "0000000f"},
		{in: "${f:cpulist2hex:}", want: "00000000"},
		{in: "${f:cpulist2hex:31}", want: "80000000"},
		{in: "${f:cpulist2hex:32}", want: "00000001,00000000"},
		{in: "${f:cpulist2hex:0,35}", want: "00000008,00000001"},
		{in: "${f:cpulist2hex:1-2,33,64}", want: "00000001,00000002,00000006"},
		// hex2cpulist: commas dropped, Python's int(mask, 16).
		{in: "${f:hex2cpulist:00000007}", want: "0,1,2"},
		{in: "${f:hex2cpulist:0x3,00000001}", want: "0,32,33"},
		{in: "${f:hex2cpulist:0x_f}", want: "0,1,2,3"},
		{in: "${f:hex2cpulist:zz}", want: ""},
		{in: "${f:hex2cpulist:}", want: ""},
		{in: "${f:hex2cpulist:1:2}", want: "${f:hex2cpulist:1:2}"}, // two arguments: as written
		{in: "${f:cpulist2devs:1-3,5}", want: "cpu1,cpu2,cpu3,cpu5"},
		{in: "${f:cpulist2devs}", want: ""},
		// cpulist2devs and cpulist_online join their arguments with ","
		// (a mask runs on), the others with ",," (a mask ends).
		{in: "${f:cpulist2devs:0x1:2}", want: "cpu1,cpu4"},
		{in: "${f:cpulist_online:0x1:2}", want: "1"},
		{in: "${f:cpulist_unpack:0x1:2}", want: "0,2"},
		// The online CPUs are 0-3, the present ones 0-7.
		{in: "${f:cpulist_invert:0,2,3}", want: "1"},
		{in: "${f:cpulist_invert:}", want: "0,1,2,3"},
		{in: "${f:cpulist_invert:0-3}", want: ""},
		{in: "${f:cpulist2hex_invert:0,2,3}", want: "00000002"},
		{in: "${f:cpulist2hex_invert:0-3}", want: "00000000"},
		{in: "${f:cpulist_online:0-6}", want: "0,1,2,3"},
		{in: "${f:cpulist_present:6-9}", want: "6,7"},
		{in: "${f:cpulist2hex:${f:cpulist_invert:${f:cpulist_unpack:1}}}", want: "0000000d"},
		// s2kb halves and rounds half to even, as Python's round.
		{in: "${f:s2kb:3}", want: "2"},
		{in: "${f:s2kb:5}", want: "2"},
		{in: "${f:s2kb:7}", want: "4"},
		{in: "${f:s2kb:-3}", want: "-2"},
		{in: "${f:s2kb:x}", want: "${f:s2kb:x}"},
		{in: "${f:kb2s:+1_024}", want: "2048"},
		{in: "${f:kb2s:99999999999999999999}", want: "199999999999999999998"},
		{in: "${f:kb2s:1.5}", want: "${f:kb2s:1.5}"},
		// regex_search_ternary: re.search(REGEX, STR); "\:" is a colon.
		{in: `${f:regex_search_ternary:Y:\b[y,Y,1,t,T]\b:managed_irq,domain,:}`, want: "managed_irq,domain,"},
		{in: `${f:regex_search_ternary:N:\b[y,Y,1,t,T]\b:managed_irq,domain,:}`, want: ""},
		{in: `${f:regex_search_ternary:5-10:\s*[0-9]: isolcpus=5-10:}`, want: " isolcpus=5-10"},
		{in: `${f:regex_search_ternary:a\:b:^a\:b$:yes:no}`, want: "yes"},
		{in: `${f:regex_search_ternary:Y:(?i)y:a:b}`, want: `${f:regex_search_ternary:Y:(?i)y:a:b}`, why: "a (? group"},
		{in: `${f:regex_search_ternary:a:[[\:alpha\:]]:a:b}`, want: `${f:regex_search_ternary:a:[[\:alpha\:]]:a:b}`, why: "[: in a class"},
		{in: `${f:regex_search_ternary:a{:a{:y:n}`, want: `${f:regex_search_ternary:a{:a{:y:n}`, why: "a { that is not"},
		{in: `${f:regex_search_ternary:a:[:a}`, want: `${f:regex_search_ternary:a:[:a}`},               // three arguments: as written
		{in: `${f:regex_search_ternary:aa:a{2\}:a:b}`, want: `${f:regex_search_ternary:aa:a{2\}:a:b}`}, // its "}" ends the call
		{in: `${f:regex_search_ternary:a:(a)\1:a:b}`, want: `${f:regex_search_ternary:a:(a)\1:a:b}`, why: `the escape \1`},
		{in: `${f:regex_search_ternary:é:\w:a:b}`, want: `${f:regex_search_ternary:é:\w:a:b}`, why: "outside ASCII"},
		// Assertions: as written when they hold, a refusal when not.
		{in: "${f:assertion:msg:1:1}", want: "${f:assertion:msg:1:1}"},
		{in: "${f:assertion:cores online:1:2}", want: "${f:assertion:cores online:1:2}", refused: `its assertion "cores online" fails ('1' != '2')`},
		{in: "${f:assertion_non_equal:msg:1:2}", want: "${f:assertion_non_equal:msg:1:2}"},
		{in: "${f:assertion_non_equal:cores set:${c}:${c}}", want: "${f:assertion_non_equal:cores set:${c}:${c}}", refused: `its assertion_non_equal "cores set" fails ('${c}' == '${c}')`},
		{in: "${f:assertion:a:${f:exec:true}:1}", want: "${f:assertion:a:${f:exec:true}:1}", why: "runs true", refused: `whether tuned accepts the profile is unknown: its assertion "a"`},
		// calc_isolated_cores: all but the first N of each package.
		{in: "${f:calc_isolated_cores}", want: "1,3"},
		{in: "${f:calc_isolated_cores:1}", want: "1,3"},
		{in: "${f:calc_isolated_cores:0}", want: "0-3", old: "0,1,2,3"},
		{in: "${f:cpulist2hex:${f:calc_isolated_cores:0}}", want: "0000000f"},
		{in: "${f:regex_search_ternary:${f:calc_isolated_cores:0}:-:a:b}", want: "a", old: "b"},
		{in: "${f:assertion_non_equal:m:${f:calc_isolated_cores:0}:${c}}", want: "${f:assertion_non_equal:m:0-3:${c}}", old: "${f:assertion_non_equal:m:0,1,2,3:${c}}"},
		{in: "${f:assertion:m:${f:calc_isolated_cores:0}:0-3}", want: "${f:assertion:m:0-3:0-3}", why: "depends on its version", refused: `whether tuned accepts the profile depends on its version: its assertion "m"`},
		{in: "${f:calc_isolated_cores:2}", want: ""},
		{in: "${f:calc_isolated_cores:x}", want: "${f:calc_isolated_cores:x}"},
		{in: "${f:calc_isolated_cores:}", want: "${f:calc_isolated_cores:}"},
		{in: "${f:cpuinfo_check:GenuineIntel:intel_pstate=disable:AuthenticAMD:amd_pstate=disable:}", want: "intel_pstate=disable"},
		{in: "${f:cpuinfo_check:AuthenticAMD:amd_pstate=disable:fallback}", want: "fallback"},
		{in: "${f:cpuinfo_check:AuthenticAMD:amd_pstate=disable}", want: ""},
		{in: "${f:cpuinfo_check:^model name\\s*\\: Xeon$:xeon}", want: "xeon"}, // MULTILINE
		{in: "${f:intel_recommended_pstate}", want: "disable"},
		{in: "${f:check_net_queue_count:4}", want: "4"},
		// Commands are never run.
		{in: "${f:check_net_queue_count:auto}", want: "${f:check_net_queue_count:auto}", why: "so it runs nproc, and latlab runs no command"},
		// An unset variable is its text, which tuned would read as a CPU
		// list (every CPU, inverted): unknown, not that.
		{in: "${f:cpulist2hex_invert:${isolated_cores}}", want: "${f:cpulist2hex_invert:${isolated_cores}}", why: "it uses ${isolated_cores}, which the profile leaves unset"},
		// ... but a test of that text is what some profiles mean.
		{in: "${f:regex_search_ternary:${no_balance_cores}:\\s*[0-9]: isolcpus=${no_balance_cores}:}", want: ""},
		{in: "${f:exec:mktemp:-d}", want: "${f:exec:mktemp:-d}", why: "tuned's exec: it runs mktemp -d, and latlab runs no command"},
		{in: "${f:strip:${f:exec:mktemp:-d}}x", want: "${f:strip:${f:exec:mktemp:-d}}x", why: "it runs mktemp -d"},
		{in: "${f:virt_check:vm:bare}", want: "${f:virt_check:vm:bare}", why: "it runs virt-what"},
		{in: "${f:lscpu_check:x:y}", want: "${f:lscpu_check:x:y}", why: "it runs lscpu"},
		{in: "${f:package2cpus:0}", want: "${f:package2cpus:0}", why: "not evaluated by latlab"},
		{in: "${f:nosuch:1}", want: "${f:nosuch:1}", why: "latlab does not know tuned's function nosuch"},
		// The parser: escapes, names, stray braces, its quirk after a call
		// at the start that gives "".
		{in: `\${f:strip: a }`, want: "${f:strip: a }"},
		{in: `a\\${f:strip: b }`, want: `a\${f:strip: b }`},
		{in: "${x}${f:strip: a }", want: "${x}a"},
		{in: "${f:bad-name:1}", want: "${f:bad-name:1}"},
		{in: "${f:cpulist_pack:}${f:strip:a}", want: "${f:strip:a}"},
		{in: "} ${f:strip: a }", want: "} ${f:strip: a }"},
		{in: "${f:strip: a ", want: "${f:strip: a "},
		{in: "} \\${f:strip: a }", want: "} ${f:strip: a }"},
		{in: "x${f:strip: a }${f:strip: b }y", want: "xaby"},
	} {
		f := newTunedFuncs(fourCPUs(false))
		got := f.expand(c.in, map[string]string{})
		if r := f.restore(got); r != c.want {
			t.Errorf("%s = %q, want %q", c.in, r, c.want)
		}
		if c.old == "" {
			c.old = c.want
		}
		if r := f.render(got, 1); r != c.old {
			t.Errorf("%s before tuned 2.26 = %q, want %q", c.in, r, c.old)
		}
		whys := strings.Join(f.whys(got), "; ")
		if (c.why == "") != (whys == "") || !strings.Contains(whys, c.why) {
			t.Errorf("%s: unknown because %q, want %q", c.in, whys, c.why)
		}
		refused := strings.Join(f.refusals, "; ")
		if (c.refused == "") != (refused == "") || !strings.Contains(refused, c.refused) {
			t.Errorf("%s: refusals %q, want %q", c.in, refused, c.refused)
		}
	}
}

// TestTunedFuncsMachine: what is read of the machine. On this machine a
// missing file is what tuned reads as ""; in a --root tree it means the
// tree does not say.
func TestTunedFuncsMachine(t *testing.T) {
	bare := func(host bool) *tunedFuncs { return newTunedFuncs(fakeMachine(host, nil, nil)) }
	for _, c := range []struct {
		f        *tunedFuncs
		in, want string
		why      string
	}{
		{bare(true), "${f:intel_recommended_pstate}", "disable", ""},
		{bare(false), "${f:intel_recommended_pstate}", "${f:intel_recommended_pstate}", "which the --root tree does not give (not found)"},
		{bare(false), "${f:cpulist_invert:1}", "${f:cpulist_invert:1}", "reads /sys/devices/system/cpu/online, which the --root tree does not give"},
		{bare(false), "${f:calc_isolated_cores:1}", "${f:calc_isolated_cores:1}", "reads /sys/devices/system/cpu, which the --root tree"},
		{bare(true), "${f:cpuinfo_check:Intel:a:b}", "b", ""},
		{newTunedFuncs(fakeMachine(false, map[string]string{"/sys/devices/cpu/caps/pmu_name": "icelake\n"}, nil)), "${f:intel_recommended_pstate}", "active", ""},
		// A CPU without topology is offline to tuned; in a tree, unknown.
		{newTunedFuncs(fakeMachine(true, map[string]string{"/sys/devices/system/cpu/cpu1/topology/physical_package_id": "0"}, map[string][]string{"/sys/devices/system/cpu": {"cpu0", "cpu1", "cpu2"}})), "${f:calc_isolated_cores:0}", "1", ""},
		{newTunedFuncs(fakeMachine(false, map[string]string{"/sys/devices/system/cpu/cpu1/topology/physical_package_id": "0"}, map[string][]string{"/sys/devices/system/cpu": {"cpu0", "cpu1"}})), "${f:calc_isolated_cores:0}", "${f:calc_isolated_cores:0}", "cpu0/topology/physical_package_id, which the --root tree does not give"},
	} {
		got := c.f.expand(c.in, nil)
		if r := c.f.restore(got); r != c.want {
			t.Errorf("host %v: %s = %q, want %q", c.f.m.host, c.in, r, c.want)
		}
		whys := strings.Join(c.f.whys(got), "; ")
		if (c.why == "") != (whys == "") || !strings.Contains(whys, c.why) {
			t.Errorf("host %v: %s: unknown because %q, want %q", c.f.m.host, c.in, whys, c.why)
		}
	}
}

// TestTunedFuncsInvertOrder: tuned writes cpulist_invert's CPUs in a
// Python set's order, ascending only while they are all below 8: beyond,
// the list stays unknown, but a function that reads it as a set of CPUs
// gets them.
func TestTunedFuncsInvertOrder(t *testing.T) {
	m := fakeMachine(false, map[string]string{"/sys/devices/system/cpu/online": "0-15\n"}, nil)
	for _, c := range []struct{ in, want, why string }{
		{"${f:cpulist_invert:8-15}", "0,1,2,3,4,5,6,7", ""},
		{"${f:cpulist_invert:2-7}", "${f:cpulist_invert:2-7}", "gives CPUs 0,1,8,9,10,11,12,13,14,15 in a Python set's order"},
		{"${f:cpulist_invert:2-14}", "${f:cpulist_invert:2-14}", "gives CPUs 0,1,15 in a Python set's order"},
		{"${f:cpulist_invert:0-14}", "15", ""},
		{"${f:cpulist2hex:${f:cpulist_invert:2-14}}", "00008003", ""},
		{"${f:cpulist_pack:${f:cpulist_invert:2-14}}", "0-1,15", ""},
		{"${f:strip:${f:cpulist_invert:2-14}}", "${f:strip:${f:cpulist_invert:2-14}}", "Python set's order"},
	} {
		f := newTunedFuncs(m)
		got := f.expand(c.in, nil)
		if r := f.restore(got); r != c.want {
			t.Errorf("%s = %q, want %q", c.in, r, c.want)
		}
		whys := strings.Join(f.whys(got), "; ")
		if (c.why == "") != (whys == "") || !strings.Contains(whys, c.why) {
			t.Errorf("%s: unknown because %q, want %q", c.in, whys, c.why)
		}
	}
}

// TestTunedFuncsVariables: a variable is expanded, functions too, when
// it is set, as tuned's add_variable does; "\\${x}" keeps one backslash
// and the call using it compares the text "${x}".
func TestTunedFuncsVariables(t *testing.T) {
	f := newTunedFuncs(fourCPUs(true))
	vars := map[string]string{}
	set := func(k, v string) { vars[k] = f.expand(v, vars) }
	set("check", `\\${cores}`)
	set("cores", "${cores}") // unset: kept as written
	set("a1", "${f:assertion_non_equal:cores are set:${cores}:${check}}")
	if vars["check"] != `\${cores}` || len(f.refusals) != 1 {
		t.Fatalf("unset: check %q, refusals %q", vars["check"], f.refusals)
	}
	f = newTunedFuncs(fourCPUs(true))
	vars = map[string]string{}
	set("cores", "${f:calc_isolated_cores:1}")
	set("check", `\\${cores}`)
	set("cores", "${cores}")
	set("a1", "${f:assertion_non_equal:cores are set:${cores}:${check}}")
	set("mask", "${f:cpulist2hex_invert:${cores}}")
	if vars["cores"] != "1,3" || vars["mask"] != "00000005" || len(f.refusals) != 0 {
		t.Errorf("set: %q, refusals %q", vars, f.refusals)
	}
	// A variables file latlab cannot read may set what is unset here:
	// whether the assertion holds is unknown, not a refusal.
	f = newTunedFuncs(fourCPUs(true))
	f.unreadVars = []string{"/etc/tuned/v.conf"}
	vars = map[string]string{}
	set("check", `\\${cores}`)
	set("a1", "${f:assertion_non_equal:cores are set:${cores}:${check}}")
	if w := strings.Join(f.whys(vars["a1"]), "; "); !strings.Contains(w, "a variable that /etc/tuned/v.conf, which latlab cannot read, may set") || len(f.refusals) != 0 {
		t.Errorf("unread variables file: why %q, refusals %q", w, f.refusals)
	}
}

// A profile of a few lines can double a variable again and again (2^40
// copies of it): a value stops at tunedMaxValue and is a call latlab
// does not work out, and what is shown of it stays bounded too. Without
// the bound this test runs out of memory.
func TestTunedFuncsBoundsGrowth(t *testing.T) {
	f := newTunedFuncs(fourCPUs(false))
	vars := map[string]string{}
	set := func(k, v string) { vars[k] = f.expand(v, vars) }
	set("v0", "0123456789abcdef")
	for i := 1; i <= 40; i++ {
		set(fmt.Sprint("v", i), fmt.Sprintf("${v%d}${v%d}", i-1, i-1))
	}
	// Functions multiply too: each call writes the 8,192 CPUs out.
	set("cpus", strings.Repeat("${f:cpulist_unpack:0-8191}", 32))
	for _, k := range []string{"v40", "cpus"} {
		v := vars[k]
		if len(v) > tunedMaxValue {
			t.Errorf("%s is %d bytes, more than %d", k, len(v), tunedMaxValue)
		}
		if w := strings.Join(f.whys(v), "; "); !strings.Contains(w, "expands to more than 64 KiB") {
			t.Errorf("%s: why %q", k, w)
		}
		if r := f.restore(v); len(r) > tunedMaxValue+len("…") {
			t.Errorf("%s shown in %d bytes", k, len(r))
		}
	}
	// A real value is untouched: the realtime profile's command line.
	set("cmd", "isolcpus=${f:cpulist_pack:1,2,3} nohz_full=1-3")
	if vars["cmd"] != "isolcpus=1-3 nohz_full=1-3" {
		t.Errorf("cmd %q", vars["cmd"])
	}
}

// FuzzTunedFuncs: any value expands without a panic, and what is shown
// has every call latlab left put back (no token).
func FuzzTunedFuncs(f *testing.F) {
	for _, s := range []string{
		"${f:cpulist2hex:${f:cpulist_invert:${f:cpulist_unpack:1}}}",
		"${f:strip:${f:exec:mktemp:-d}}", `\${f:x}`, "}${", "${f:cpulist_pack:}${f:strip:a}",
		"${f:regex_search_ternary:a:(:b:c}", "${f:cpulist_unpack:0x1,,^2-3}", "${f:hex2cpulist:0x_}",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		fx := newTunedFuncs(fourCPUs(false))
		v := fx.expand(s, map[string]string{"x": "${f:exec:a}"})
		fx.whys(v)
		if r := fx.restore(v); strings.IndexByte(s, 0) < 0 && strings.IndexByte(r, 0) >= 0 {
			t.Fatalf("%q shows a token: %q", s, r)
		}
	})
}
