package doctor

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/latlab/latlab/internal/badinput"
	"github.com/latlab/latlab/internal/knob"
	"github.com/latlab/latlab/internal/testutil"
	"golang.org/x/sys/unix"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// tunedTree is the unpacked tuned package (scripts/test): the directory
// above usr/lib/tuned, which also holds etc/tuned's variables files.
func tunedTree(t *testing.T) string {
	t.Helper()
	dir := os.Getenv("LATLAB_TUNED_PROFILES")
	if dir != "" {
		if _, err := os.Stat(filepath.Join(dir, "latency-performance", "tuned.conf")); err == nil {
			return filepath.Dir(filepath.Dir(filepath.Dir(dir)))
		}
	}
	if testutil.Required() {
		t.Fatal("tuned's profiles are required (LATLAB_REQUIRE_ALL=1): set LATLAB_TUNED_PROFILES")
	}
	t.Skip("tuned's profiles not found (LATLAB_TUNED_PROFILES); scripts/test unpacks them")
	return ""
}

// tunedRoot is againstRoot, an x86 machine's /proc/cpuinfo, and tuned's
// package as installed: its profiles in /usr/lib/tuned, its variables
// files in /etc/tuned. With topology, its two CPUs are in one package
// (tuned's calc_isolated_cores reads it); without, the tree does not
// say, and what the variables files work out from it stays unknown.
func tunedRoot(t *testing.T, topology bool) string {
	t.Helper()
	tree := tunedTree(t)
	root := againstRoot(t)
	testutil.WriteTree(t, root, map[string]string{"proc/cpuinfo": "processor\t: 0\nvendor_id\t: GenuineIntel\nflags\t\t: fpu sse2\n"})
	if topology {
		testutil.WriteTree(t, root, map[string]string{
			"sys/devices/system/cpu/cpu0/topology/physical_package_id": "0\n",
			"sys/devices/system/cpu/cpu1/topology/physical_package_id": "0\n",
		})
	}
	for _, d := range []string{"usr/lib/tuned", "etc/tuned"} {
		if err := os.CopyFS(filepath.Join(root, d), os.DirFS(filepath.Join(tree, d))); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

// itemKey is what an item says, but for how the value was written.
func itemKeys(a *Against) []string {
	var out []string
	for _, it := range a.Items {
		out = append(out, fmt.Sprintf("%s [%s] %s (%s): %s %q", it.Knob, it.Reference.Section, it.Reference.Key, it.Reference.Profile, it.State, it.Command))
	}
	sort.Strings(out)
	return out
}

// TestTunedFilesMatchReferences reads each profile latlab cites from
// tuned's own files and checks that it gives the items the catalogue's
// references give, on a tree that does not say which CPUs tuned's
// calc_isolated_cores would isolate (the references hold no variables).
func TestTunedFilesMatchReferences(t *testing.T) {
	root := tunedRoot(t, false)
	env := knob.NewEnv(root)
	settings := Audit(env, "linux")
	cmdline := Cmdline(root)
	for _, p := range CitedProfiles() {
		set, err := LoadTuned(filepath.Join(root, "usr/lib/tuned", p), root)
		if err != nil {
			t.Errorf("%s: %v", p, err)
			continue
		}
		for _, l := range set.Loaded {
			if l.From == embeddedFrom {
				t.Errorf("%s: %s read from the references, not its file", p, l.Name)
			}
		}
		file := CompareTuned(env, "linux", settings, set, cmdline)
		ref, err := CompareAgainst(env, "linux", settings, p, cmdline)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Join(file.Profiles, " ") != strings.Join(ref.Profiles, " ") {
			t.Errorf("%s: file merges %v, references %v", p, file.Profiles, ref.Profiles)
		}
		fk, rk := itemKeys(file), itemKeys(ref)
		if strings.Join(fk, "\n") != strings.Join(rk, "\n") {
			t.Errorf("%s: from the file:\n  %s\nfrom the references:\n  %s", p, strings.Join(fk, "\n  "), strings.Join(rk, "\n  "))
		}
	}
}

// TestTunedAllProfiles reads every profile tuned ships.
func TestTunedAllProfiles(t *testing.T) {
	root := tunedRoot(t, true)
	env := knob.NewEnv(root)
	settings := Audit(env, "linux")
	ents, err := os.ReadDir(filepath.Join(root, "usr/lib/tuned"))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, e := range ents {
		f := filepath.Join(root, "usr/lib/tuned", e.Name(), "tuned.conf")
		if _, err := os.Stat(f); err != nil {
			continue
		}
		n++
		set, err := LoadTuned(f, root)
		if err != nil {
			t.Errorf("%s: %v", e.Name(), err)
			continue
		}
		a := CompareTuned(env, "linux", settings, set, Cmdline(root))
		t.Logf("%s: %v; %d items, %d differ; not audited %d: %v; notes %v", e.Name(), a.Profiles, len(a.Items), a.Differ, len(a.NotAudited), a.NotAudited, a.Notes)
	}
	if n < 30 {
		t.Errorf("%d profiles, tuned 2.20 ships 37", n)
	}
}

// TestLoadTunedBadInput: what --against cannot read is bad input that
// names what was wrong and what is accepted.
func TestLoadTunedBadInput(t *testing.T) {
	dir := testutil.TempDir(t)
	testutil.WriteTree(t, dir, map[string]string{
		"empty/README":          "no profile here\n",
		"notini/tuned.conf":     "{\"main\": {\"include\": \"x\"}}\n",
		"words/tuned.conf":      "[main]\nthis is not a key\n",
		"big/tuned.conf":        "[sysctl]\n" + strings.Repeat("# padding\n", tunedMaxFile/10+1),
		"a/tuned.conf":          "[main]\ninclude=b\n",
		"b/tuned.conf":          "[main]\ninclude=c\n",
		"c/tuned.conf":          "[main]\ninclude=a\n",
		"self/tuned.conf":       "[main]\ninclude=self\n",
		"missinc/tuned.conf":    "[main]\ninclude=no-such-profile\n",
		"deep0/tuned.conf":      "[main]\ninclude=deep1\n",
		"root/etc/tuned/README": "",
	})
	for i := 1; i <= tunedMaxDepth+1; i++ {
		testutil.WriteTree(t, dir, map[string]string{fmt.Sprintf("deep%d/tuned.conf", i): fmt.Sprintf("[main]\ninclude=deep%d\n", i+1)})
	}
	// A named pipe would block the open until a writer came: refused
	// before it is opened, given as the file or as a directory's.
	for _, f := range []string{"fifo.conf", "fifodir/tuned.conf"} {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, f)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := unix.Mkfifo(filepath.Join(dir, f), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	emptyActive := filepath.Join(dir, "emptyactive")
	testutil.WriteTree(t, emptyActive, map[string]string{"etc/tuned/active_profile": "\n"})
	for _, c := range []struct{ spec, root, want string }{
		{filepath.Join(dir, "nothere/tuned.conf"), "", "nothere/tuned.conf: not found; give a tuned.conf, a profile's directory holding one"},
		{filepath.Join(dir, "empty"), "", "a directory with no tuned.conf"},
		{filepath.Join(dir, "notini"), "", "is not a tuned.conf as tuned reads it: line 1"},
		{filepath.Join(dir, "words/tuned.conf"), "", `line 2 ("this is not a key"): neither a [section], a key=value nor a comment`},
		{filepath.Join(dir, "big"), "", "over 256 KiB; latlab reads a tuned.conf of at most 256 KiB"},
		{filepath.Join(dir, "a"), "", "include loop: " + dir + "/a/tuned.conf -> " + dir + "/b/tuned.conf -> " + dir + "/c/tuned.conf -> " + dir + "/a/tuned.conf"},
		{filepath.Join(dir, "self"), "", "include loop: " + dir + "/self/tuned.conf -> " + dir + "/self/tuned.conf"},
		{filepath.Join(dir, "missinc"), filepath.Join(dir, "root"), `profile "no-such-profile", which ` + dir + "/missinc/tuned.conf includes, is in none of " + dir + "/no-such-profile/tuned.conf, " + dir + "/root/etc/tuned/profiles/no-such-profile/tuned.conf"},
		{filepath.Join(dir, "deep0"), "", "includes nest more than 8 deep"},
		{"active", filepath.Join(dir, "root"), "--against active: " + dir + "/root/etc/tuned/active_profile: not found"},
		{"active", emptyActive, "names no profile (tuned is off"},
		{filepath.Join(dir, "fifo.conf"), "", "fifo.conf: a named pipe, not a regular file"},
		{filepath.Join(dir, "fifodir"), "", "fifodir/tuned.conf: a named pipe, not a regular file"},
	} {
		var err error
		done := make(chan struct{})
		go func() { _, err = LoadTuned(c.spec, c.root); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			t.Fatalf("%s: still reading after 10 s", c.spec)
		}
		if !badinput.Is(err) || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: %v, want bad input on one line with %q", c.spec, err, c.want)
		}
	}
}

// TestLoadTunedIncludes: an include beside the file, one latlab cites
// that is not on disk (its references), an optional one that is
// missing, one tuned works out with a function, a variables file, and
// a profile included twice read once.
func TestLoadTunedIncludes(t *testing.T) {
	dir := testutil.TempDir(t)
	root := againstRoot(t)
	testutil.WriteTree(t, root, map[string]string{
		"etc/tuned/my-variables.conf":     "isolated_cores=2-3\nlone\n",
		"usr/lib/tuned/vendor/tuned.conf": "[main]\ninclude=network-latency\n[sysctl]\nvm.swappiness=20\nvm.dirty_ratio=10\n",
	})
	testutil.WriteTree(t, dir, map[string]string{
		"base/tuned.conf": "[main]\ninclude=vendor\n[sysctl]\nkernel.nmi_watchdog=0\n",
		"my/tuned.conf": "[main]\ninclude=base, -optional ;vendor,${f:virt_check:virtual-guest:balanced}\n" +
			"[variables]\ninclude=/etc/tuned/my-variables.conf\nbanned=${isolated_cores}\n" +
			"[sysctl]\nvm.swappiness=5\nvm.stat_interval=${f:strip: 10 }\nkernel.sched_rt_runtime_us=${f:exec:echo:-1}\n" +
			"[irqbalance]\nbanned_cpus=${banned}\n" +
			"[disk]\ndevices=sda\nreadahead=4096\n" +
			"[bootloader]\ncmdline_mine=+nohz=on\ncmdline_drop=-quiet\n" +
			"[my_sysctl]\ntype=sysctl\nkernel.timer_migration=0\nkernel.numa_balancing=>1\n",
	})
	set, err := LoadTuned(filepath.Join(dir, "my"), root)
	if err != nil {
		t.Fatal(err)
	}
	var loaded []string
	for _, l := range set.Loaded {
		loaded = append(loaded, l.Name+"="+strings.TrimPrefix(strings.TrimPrefix(l.From, dir), root))
	}
	want := "latency-performance=" + embeddedFrom + " network-latency=" + embeddedFrom +
		" vendor=/usr/lib/tuned/vendor/tuned.conf base=/base/tuned.conf my=/my/tuned.conf"
	if strings.Join(loaded, " ") != want {
		t.Errorf("loaded\n  %s\nwant\n  %s", strings.Join(loaded, " "), want)
	}
	notes := strings.Join(set.Notes, "\n")
	for _, w := range []string{"includes -optional, which is not found: skipped", "includes ${f:virt_check:virtual-guest:balanced}, which tuned works out on the machine"} {
		if !strings.Contains(notes, w) {
			t.Errorf("notes lack %q:\n%s", w, notes)
		}
	}
	if set.Vars["banned"] != "2-3" {
		t.Errorf("variables %v", set.Vars)
	}
	env := knob.NewEnv(root)
	a := CompareTuned(env, "linux", Audit(env, "linux"), set, Cmdline(root))
	got := map[string]AgainstItem{}
	for _, it := range a.Items {
		got[it.Knob] = it
	}
	if it := got["swappiness"]; it.Reference.Profile != "my" || it.Reference.Value != "5" || it.Command != "latlab knob set swappiness 5" {
		t.Errorf("swappiness: my profile's 5 wins: %+v", it)
	}
	if it := got["irqbalance"]; it.Reference.Value != "2-3" {
		t.Errorf("irqbalance: the variable from the file: %+v", it)
	}
	if it := got["stat-interval"]; it.Reference.Value != "10" || it.Command != "latlab knob set stat-interval 10" {
		t.Errorf("stat-interval: ${f:strip: 10 } is 10: %+v", it)
	}
	if it := got["rt-throttling"]; it.State != NotCompare || it.Reference.Value != "${f:exec:echo:-1}" || !strings.Contains(it.Note, "tuned's exec: it runs echo -1, and latlab runs no command") {
		t.Errorf("rt-throttling: exec is not run: %+v", it)
	}
	if it := got["nmi-watchdog"]; it.Reference.Profile != "base" || it.State != Same {
		t.Errorf("nmi-watchdog from base: %+v", it)
	}
	if it := got["timer-migration"]; it.Reference.Section != "sysctl" || !strings.Contains(it.Note, "set in [my_sysctl], a sysctl section") || it.Command != "latlab knob set timer-migration 0" {
		t.Errorf("timer-migration from a type=sysctl section: %+v", it)
	}
	if it := got["numa-balancing"]; it.State != NotCompare || !strings.Contains(it.Note, "tuned sets 1 only where the value now is lower") {
		t.Errorf("numa-balancing >1: %+v", it)
	}
	isolation := map[string]AgainstItem{}
	for _, it := range a.Items {
		if it.Knob == "isolation" {
			isolation[it.Reference.Key] = it
		}
	}
	// The test machine's command line is "ro quiet skew_tick=1".
	if it := isolation["cmdline_mine"]; it.State != Differs || !strings.Contains(it.Note, "add nohz=on to the kernel command line") {
		t.Errorf("cmdline_mine, a cmdline key of any suffix: %+v", it)
	}
	if it := isolation["cmdline_drop"]; it.State != Differs || !strings.Contains(it.Note, "take quiet off the kernel command line") {
		t.Errorf("cmdline_drop=-quiet: %+v", it)
	}
	if strings.Join(a.NotAudited, ", ") != "[sysctl] vm.dirty_ratio, [disk] readahead" {
		t.Errorf("not audited %v", a.NotAudited)
	}
	if strings.Join(a.Profiles, " ") != "my base vendor network-latency latency-performance" || len(a.From) != len(a.Profiles) {
		t.Errorf("profiles %v from %v", a.Profiles, a.From)
	}
}

// TestLoadTunedFunctions: a profile whose variables file sets its CPUs
// with tuned's functions, worked out on the tree's CPUs; without the
// file, tuned's assertion fails and the note says tuned refuses it.
func TestLoadTunedFunctions(t *testing.T) {
	dir := testutil.TempDir(t)
	root := againstRoot(t)
	testutil.WriteTree(t, root, map[string]string{
		"sys/devices/system/cpu/cpu0/topology/physical_package_id": "0\n",
		"sys/devices/system/cpu/cpu1/topology/physical_package_id": "0\n",
	})
	testutil.WriteTree(t, dir, map[string]string{
		"p/tuned.conf": "[variables]\ninclude=/etc/tuned/p-variables.conf\ncheck=\\\\${cores}\ncores=${cores}\n" +
			"a1=${f:assertion_non_equal:cores are set:${cores}:${check}}\n" +
			"[irqbalance]\nbanned_cpus=${cores}\ndevices=${f:cpulist2devs:${cores}}\n" +
			"[bootloader]\ncmdline_p=+nohz_full=${cores} irqaffinity=${f:cpulist_invert:${cores}} tmp=${f:exec:mktemp}\n",
	})
	load := func() *Against {
		set, err := LoadTuned(filepath.Join(dir, "p"), root)
		if err != nil {
			t.Fatal(err)
		}
		env := knob.NewEnv(root)
		return CompareTuned(env, "linux", Audit(env, "linux"), set, Cmdline(root))
	}
	a := load()
	notes := strings.Join(append(a.Refused, a.Notes...), "\n")
	for _, w := range []string{
		`tuned refuses this profile: its assertion_non_equal "cores are set" fails ('${cores}' == '${cores}')`,
		"p-variables.conf (p's [variables] include=) is not found: tuned skips it",
	} {
		if !strings.Contains(notes, w) {
			t.Errorf("without the variables file, notes lack %q:\n%s", w, notes)
		}
	}
	if len(a.Refused) != 1 {
		t.Errorf("refused %q, want the assertion", a.Refused)
	}
	for _, it := range a.Items {
		if it.Knob == "irqbalance" && !strings.Contains(it.Note, "cores, which neither the profile nor a variables file sets: tuned leaves ${cores} as written") {
			t.Errorf("irqbalance without the file: %+v", it)
		}
	}
	testutil.WriteTree(t, root, map[string]string{"etc/tuned/p-variables.conf": "cores=${f:calc_isolated_cores:1}\n"})
	a = load()
	if len(a.Refused) != 0 {
		t.Errorf("with the variables file: %v", a.Refused)
	}
	n := 0
	for _, it := range a.Items {
		switch {
		case it.Knob == "irqbalance":
			n++
			if it.Reference.Value != "1" || it.State == NotCompare || !strings.Contains(it.Note, "tuned applies it to devices=cpu1 only") {
				t.Errorf("irqbalance: banned_cpus is CPU 1, compared: %+v", it)
			}
		case it.Reference.Key == "cmdline_p":
			n++
			if it.Reference.Value != "+nohz_full=1 irqaffinity=0 tmp=${f:exec:mktemp}" || it.State != Differs || !strings.Contains(it.Note, "add nohz_full=1 irqaffinity=0 to the kernel command line") {
				t.Errorf("cmdline_p: %+v", it)
			}
		}
	}
	if n != 2 {
		t.Errorf("%d items of p, want 2: %+v", n, a.Items)
	}
}

// TestLoadTunedVersions: calc_isolated_cores packs its CPUs from tuned
// 2.26 on (1-3), and joined them before (1,2,3): a boot parameter made
// of it is the profile's in either form.
func TestLoadTunedVersions(t *testing.T) {
	dir := testutil.TempDir(t)
	testutil.WriteTree(t, dir, map[string]string{
		"p/tuned.conf": "[variables]\ncores=${f:calc_isolated_cores:1}\n[bootloader]\ncmdline_p=+nohz_full=${cores}\n",
	})
	for _, c := range []struct{ cmdline, state, note string }{
		{"ro nohz_full=1-3", Same, ""},
		{"ro nohz_full=1,2,3", Same, "as tuned before 2.26 writes it"},
		{"ro", Differs, "add nohz_full=1-3 to the kernel command line (latlab knob explain isolation); tuned before 2.26 writes it +nohz_full=1,2,3"},
	} {
		root := againstRoot(t)
		files := map[string]string{"proc/cmdline": c.cmdline + "\n"}
		for i := 0; i < 4; i++ {
			files[fmt.Sprintf("sys/devices/system/cpu/cpu%d/topology/physical_package_id", i)] = "0\n"
		}
		testutil.WriteTree(t, root, files)
		set, err := LoadTuned(filepath.Join(dir, "p"), root)
		if err != nil {
			t.Fatal(err)
		}
		env := knob.NewEnv(root)
		a := CompareTuned(env, "linux", Audit(env, "linux"), set, Cmdline(root))
		found := false
		for _, it := range a.Items {
			if it.Reference.Key != "cmdline_p" {
				continue
			}
			found = true
			if it.State != c.state || !strings.Contains(it.Note, c.note) || (c.note == "" && strings.Contains(it.Note, "2.26")) {
				t.Errorf("%q: %+v, want %s with %q", c.cmdline, it, c.state, c.note)
			}
		}
		if !found {
			t.Errorf("%q: no cmdline_p item: %+v", c.cmdline, a.Items)
		}
	}
}

// TestLoadTunedProfileDirVariables: a variables file beside a profile
// given by path (${i:PROFILE_DIR}) is read there, not in the --root tree.
func TestLoadTunedProfileDirVariables(t *testing.T) {
	dir := testutil.TempDir(t)
	root := againstRoot(t)
	testutil.WriteTree(t, dir, map[string]string{
		"p/tuned.conf": "[variables]\ninclude=${i:PROFILE_DIR}/vars.conf\n[irqbalance]\nbanned_cpus=${isolated_cores}\n",
		"p/vars.conf":  "isolated_cores=1\n",
	})
	set, err := LoadTuned(filepath.Join(dir, "p"), root)
	if err != nil {
		t.Fatal(err)
	}
	if set.Vars["isolated_cores"] != "1" || len(set.Notes) != 0 {
		t.Errorf("variables %v, notes %v", set.Vars, set.Notes)
	}
}

// TestLoadTunedActive: the profiles active_profile names, merged in
// order, looked up in /etc/tuned before /usr/lib/tuned.
func TestLoadTunedActive(t *testing.T) {
	root := againstRoot(t)
	testutil.WriteTree(t, root, map[string]string{
		"etc/tuned/active_profile":        "first second bad/name\n",
		"etc/tuned/first/tuned.conf":      "[sysctl]\nvm.swappiness=1\nkernel.nmi_watchdog=1\n",
		"usr/lib/tuned/first/tuned.conf":  "[sysctl]\nvm.swappiness=99\n",
		"usr/lib/tuned/second/tuned.conf": "[sysctl]\nvm.swappiness=2\n",
	})
	set, err := LoadTuned("active", root)
	if err != nil {
		t.Fatal(err)
	}
	if set.Name != "first second" || set.File != filepath.Join(root, ActiveProfileFile) {
		t.Errorf("name %q file %q", set.Name, set.File)
	}
	sc := set.Merged.unit("sysctl")
	if sc.Opts["vm.swappiness"] != (tunedOpt{"2", "second"}) || sc.Opts["kernel.nmi_watchdog"] != (tunedOpt{"1", "first"}) {
		t.Errorf("merged %+v", sc.Opts)
	}
	if set.Loaded[0].From != filepath.Join(root, "etc/tuned/first/tuned.conf") {
		t.Errorf("first read from %s, want /etc/tuned's", set.Loaded[0].From)
	}
}

// TestTunedGolden: the page of doctor --against for tuned's own
// cpu-partitioning profile, read from its file (variables file,
// functions, three profiles merged), on the test machine.
func TestTunedGolden(t *testing.T) {
	root := tunedRoot(t, true)
	set, err := LoadTuned(filepath.Join(root, "usr/lib/tuned/cpu-partitioning"), root)
	if err != nil {
		t.Fatal(err)
	}
	env := knob.NewEnv(root)
	a := CompareTuned(env, "linux", Audit(env, "linux"), set, Cmdline(root))
	b, err := json.MarshalIndent(a, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	testutil.Golden(t, "testdata/against_cpu_partitioning.json", strings.ReplaceAll(string(b), root, "ROOT")+"\n", *update, "LATLAB_TUNED_PROFILES=... go test ./internal/doctor -run TestTunedGolden -update")
}

// TestLoadTunedConditions: a section whose cpuinfo_regex does not match
// the machine's /proc/cpuinfo is turned off, as tuned turns it off; one
// that matches stays; one whose pattern Python and Go read differently
// (a look-ahead, which Go's syntax lacks; \w on a text outside ASCII,
// Unicode's in Python) is kept and said not checked.
func TestLoadTunedConditions(t *testing.T) {
	dir := testutil.TempDir(t)
	root := againstRoot(t)
	testutil.WriteTree(t, root, map[string]string{
		"proc/cpuinfo": "processor\t: 0\nvendor_id\t: GenuineIntel\nmodel name\t: Intel(R) Xeon(R) Processor\nCPU part\t: 0xd0c\n",
	})
	testutil.WriteTree(t, dir, map[string]string{
		"p/tuned.conf": "[sysctl.thunderx]\ntype=sysctl\ncpuinfo_regex=CPU part\\s+:\\s+(0x0a1|0x0a2|0x0a3)\nvm.swappiness=1\n" +
			"[vm.intel]\ntype=vm\ncpuinfo_regex=^vendor_id\\s+:\\s+GenuineIntel$\ntransparent_hugepages=never\n" +
			"[cpu.ahead]\ntype=cpu\ncpuinfo_regex=Xeon(?=\\(R\\))\ngovernor=performance\n",
	})
	set, err := LoadTuned(filepath.Join(dir, "p"), root)
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]bool{"sysctl.thunderx": false, "vm.intel": true, "cpu.ahead": true} {
		if u := set.Merged.unit(name); u.Enabled != want {
			t.Errorf("[%s] enabled %v, want %v", name, u.Enabled, want)
		}
	}
	notes := strings.Join(set.Notes, "\n")
	for _, w := range []string{
		"[sysctl.thunderx] applies only where /proc/cpuinfo matches cpuinfo_regex=CPU part\\s+:\\s+(0x0a1|0x0a2|0x0a3), which it does not here",
		"[cpu.ahead] applies only where /proc/cpuinfo matches cpuinfo_regex=Xeon(?=\\(R\\)): not checked here (it matches the Python regular expression",
	} {
		if !strings.Contains(notes, w) {
			t.Errorf("no note %q in:\n%s", w, notes)
		}
	}
	if strings.Contains(notes, "[vm.intel]") {
		t.Errorf("a note on the section that matches:\n%s", notes)
	}
}
