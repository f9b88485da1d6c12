package knob

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// applyGrubSteps does what the steps say to the files under root: each
// "in FILE, replace lines N-M ... with" or "in FILE, add after line M
// ... the line" or "in FILE, add the line" step with its Line; false,
// with the test failed, on a step it cannot follow.
func applyGrubSteps(t *testing.T, root string, steps []ManualStep) bool {
	t.Helper()
	re := regexp.MustCompile(`^in (/\S+), (?:replace lines? (\d+)(?:-(\d+))? |add after line (\d+) |add the line)`)
	for _, s := range steps {
		if s.Line == "" {
			continue
		}
		m := re.FindStringSubmatch(s.Do)
		if m == nil {
			t.Errorf("a step with a line latlab does not say where to put: %+v", s)
			return false
		}
		p := filepath.Join(root, m[1])
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(string(b), "\n")
		switch {
		case m[2] != "":
			from, _ := strconv.Atoi(m[2])
			to := from
			if m[3] != "" {
				to, _ = strconv.Atoi(m[3])
			}
			lines = slices.Replace(lines, from-1, to, s.Line)
		case m[4] != "":
			after, _ := strconv.Atoi(m[4])
			lines = slices.Insert(lines, after, s.Line)
		default:
			if lines[len(lines)-1] != "" {
				lines = append(lines, "")
			}
			lines = slices.Insert(lines, len(lines)-1, s.Line)
		}
		if err := os.WriteFile(p, []byte(strings.Join(lines, "\n")), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return true
}

// grubCmdline is the command line grub-mkconfig's 10_linux gives a
// normal entry: "${GRUB_CMDLINE_LINUX} ${GRUB_CMDLINE_LINUX_DEFAULT}".
func grubCmdline(t *testing.T, env *Env) string {
	t.Helper()
	g, ok := readGrub(env)
	if !ok || g.Problem != "" {
		t.Fatalf("the GRUB settings after the steps: %+v", g)
	}
	return strings.Join(strings.Fields(g.Linux.Value+" "+g.Default.Value), " ")
}

// The steps for GRUB settings written as public /etc/default/grub files,
// Ubuntu cloud images' drop-ins and real-time guides write them: each
// step followed as written gives the command line wanted, with every
// other parameter kept and no old isolation or preempt= left. The
// constructs are those of the files named; the lines are written for the
// test.
func TestGrubStepsApplied(t *testing.T) {
	iso := "isolcpus=managed_irq,domain,2-3 nohz_full=2-3 rcu_nocbs=2-3"
	for _, tc := range []struct {
		name  string
		knob  string
		value string
		files map[string]string
		lines []string // the steps' lines, in order
		want  string   // the normal entries' command line after them
	}{
		// Real-time guides put isolation in GRUB_CMDLINE_LINUX_DEFAULT
		// ("GRUB_CMDLINE_LINUX_DEFAULT=\"quiet splash isolcpus=2-5 nohz_full=2-5
		// rcu_nocbs=2-5 threadirqs ...\""); left there, it would follow the new one.
		{"isolation in _DEFAULT", isolationName, "2-3", map[string]string{
			"etc/default/grub": "GRUB_DEFAULT=0\nGRUB_DISTRIBUTOR=`lsb_release -i -s 2> /dev/null || echo Debian`\nGRUB_CMDLINE_LINUX_DEFAULT=\"quiet splash isolcpus=2-5 nohz_full=2-5 rcu_nocbs=2-5 threadirqs\"\nGRUB_CMDLINE_LINUX=\"\"\n"},
			[]string{`GRUB_CMDLINE_LINUX="` + iso + `"`, `GRUB_CMDLINE_LINUX_DEFAULT="quiet splash threadirqs"`},
			iso + " quiet splash threadirqs"},
		{"none from _DEFAULT", isolationName, "none", map[string]string{
			"proc/cmdline":     "ro quiet isolcpus=2 nohz_full=2\n",
			"etc/default/grub": "GRUB_CMDLINE_LINUX_DEFAULT=\"quiet isolcpus=2 nohz_full=2\"\nGRUB_CMDLINE_LINUX=\"console=ttyS0\"\n"},
			[]string{`GRUB_CMDLINE_LINUX="console=ttyS0"`, `GRUB_CMDLINE_LINUX_DEFAULT="quiet"`},
			"console=ttyS0 quiet"},
		// Ubuntu cloud images (matsuu/isucon12q's tree): 50-cloudimg-settings.cfg
		// sets GRUB_CMDLINE_LINUX_DEFAULT after /etc/default/grub, so an
		// isolation added there is what the kernel gets.
		{"cloud image drop-in", isolationName, "2-3", map[string]string{
			"etc/default/grub":                                 "GRUB_DEFAULT=0\nGRUB_CMDLINE_LINUX_DEFAULT=\"quiet splash\"\nGRUB_CMDLINE_LINUX=\"\"\n",
			"etc/default/grub.d/40-force-partuuid.cfg":         "# Remove this line to enable boot with an initramfs\nGRUB_FORCE_PARTUUID=c3ef978b-f0c4-4be6-bb88-720a79ce333a\n",
			"etc/default/grub.d/50-cloudimg-settings.cfg":      "# Set the default commandline\nGRUB_CMDLINE_LINUX_DEFAULT=\"console=tty1 console=ttyS0 isolcpus=1\"\n\nGRUB_TERMINAL=console\n",
			"etc/default/grub.d/init-select.cfg":               "# This file does\n# nothing and will be removed in a later release.\n",
			"etc/default/grub.d/50-cloudimg-settings.cfg.dpkg": "GRUB_CMDLINE_LINUX_DEFAULT=\"not read: not *.cfg\"\n"},
			[]string{`GRUB_CMDLINE_LINUX="` + iso + `"`, `GRUB_CMDLINE_LINUX_DEFAULT="console=tty1 console=ttyS0"`},
			iso + " console=tty1 console=ttyS0"},
		// A drop-in that appends (salt states and guides write
		// /etc/default/grub.d/*.cfg with GRUB_CMDLINE_LINUX="$GRUB_CMDLINE_LINUX ...").
		{"appending drop-in", isolationName, "2-3", map[string]string{
			"etc/default/grub":                  "GRUB_CMDLINE_LINUX=\"rhgb quiet\"\n",
			"etc/default/grub.d/90-isolate.cfg": "GRUB_CMDLINE_LINUX=\"$GRUB_CMDLINE_LINUX isolcpus=1 nohz_full=1\"\n"},
			[]string{`GRUB_CMDLINE_LINUX="rhgb quiet ` + iso + `"`},
			"rhgb quiet " + iso},
		// Ubuntu's kdump-tools appends crashkernel= in a drop-in; the
		// isolation is in /etc/default/grub, which is where it is edited,
		// so the drop-in keeps appending.
		{"appended to by a package's drop-in", isolationName, "2-3", map[string]string{
			"etc/default/grub":                    "GRUB_CMDLINE_LINUX_DEFAULT=\"quiet splash isolcpus=1\"\nGRUB_CMDLINE_LINUX=\"\"\n",
			"etc/default/grub.d/kdump-tools.cfg":  "GRUB_CMDLINE_LINUX_DEFAULT=\"$GRUB_CMDLINE_LINUX_DEFAULT crashkernel=512M-:192M\"\n",
			"etc/default/grub.d/90-ipv6.cfg":      "GRUB_CMDLINE_LINUX=\"$GRUB_CMDLINE_LINUX ipv6.disable=1\"\n",
			"etc/default/grub.d/95-isolation.cfg": "# nothing\n"},
			[]string{`GRUB_CMDLINE_LINUX="` + iso + `"`, `GRUB_CMDLINE_LINUX_DEFAULT="quiet splash"`},
			iso + " ipv6.disable=1 quiet splash crashkernel=512M-:192M"},
		{"trailing comment", isolationName, "2-3", map[string]string{
			"etc/default/grub": "GRUB_CMDLINE_LINUX=\"console=ttyS0\" # serial console\n"},
			[]string{`GRUB_CMDLINE_LINUX="console=ttyS0 ` + iso + `"`},
			"console=ttyS0 " + iso},
		// 4e6/archlinux-thinkpad-x1-carbon quotes inside the value.
		{"escaped quotes", isolationName, "2-3", map[string]string{
			"etc/default/grub": "GRUB_CMDLINE_LINUX_DEFAULT=\"quiet acpi_osi=\\\"!Windows 2012\\\" isolcpus=1\"\nGRUB_CMDLINE_LINUX=\"\"\n"},
			[]string{`GRUB_CMDLINE_LINUX="` + iso + `"`, `GRUB_CMDLINE_LINUX_DEFAULT="quiet acpi_osi=\"!Windows 2012\""`},
			iso + ` quiet acpi_osi="!Windows 2012"`},
		{"single quotes and continuation", isolationName, "2-3", map[string]string{
			"etc/default/grub": "GRUB_CMDLINE_LINUX='quiet'\nGRUB_CMDLINE_LINUX_DEFAULT=\"intel_idle.max_cstate=1 \\\nisolcpus=1 pcie_aspm=off\"\nGRUB_TIMEOUT=5\n"},
			[]string{`GRUB_CMDLINE_LINUX_DEFAULT="intel_idle.max_cstate=1 pcie_aspm=off"`, `GRUB_CMDLINE_LINUX="quiet ` + iso + `"`},
			"quiet " + iso + " intel_idle.max_cstate=1 pcie_aspm=off"},
		// A wrapped GRUB_CMDLINE_LINUX above the _DEFAULT to edit: the
		// later lines are edited first, so the line numbers hold.
		{"wrapped above", isolationName, "2-3", map[string]string{
			"etc/default/grub": "GRUB_CMDLINE_LINUX=\"console=ttyS0 \\\n  quiet\"\nGRUB_CMDLINE_LINUX_DEFAULT=\"isolcpus=1\"\n"},
			[]string{`GRUB_CMDLINE_LINUX_DEFAULT=""`, `GRUB_CMDLINE_LINUX="console=ttyS0 quiet ` + iso + `"`},
			"console=ttyS0 quiet " + iso},
		{"several and export", isolationName, "2-3", map[string]string{
			"etc/default/grub": "GRUB_CMDLINE_LINUX=\"old\"\nexport GRUB_CMDLINE_LINUX=\"quiet isolcpus=1\"\n"},
			[]string{`GRUB_CMDLINE_LINUX="quiet ` + iso + `"`},
			"quiet " + iso},
		{"shared line", isolationName, "2-3", map[string]string{
			"etc/default/grub": "GRUB_TIMEOUT=5; GRUB_CMDLINE_LINUX=\"quiet\"\n"},
			[]string{`GRUB_CMDLINE_LINUX="quiet ` + iso + `"`},
			"quiet " + iso},
		{"not set", isolationName, "2-3", map[string]string{
			"etc/default/grub": "GRUB_TIMEOUT=5\n"},
			[]string{`GRUB_CMDLINE_LINUX="` + iso + `"`},
			iso},
		// A real-time machine's GRUB_CMDLINE_LINUX, longer than 256 bytes.
		{"long", isolationName, "2-3", map[string]string{
			"etc/default/grub": "GRUB_CMDLINE_LINUX=\"audit=0 isolcpus=2,3 nohz=on nohz_full=2,3 rcu_nocbs=2,3 irqaffinity=0,1 rcu_nocb_poll=1024 rcupdate.rcu_cpu_stall_suppress=1 acpi_irq_nobalance numa_balancing=disable cpufreq.off=1 nosmap noirqbalance hugepages=1024 i915.enable_rc6=0 i915.enable_dc=0 i915.disable_power_well=0 i915.enable_execlists=0 nmi_watchdog=0\"\n"},
			[]string{`GRUB_CMDLINE_LINUX="audit=0 nohz=on irqaffinity=0,1 rcu_nocb_poll=1024 rcupdate.rcu_cpu_stall_suppress=1 acpi_irq_nobalance numa_balancing=disable cpufreq.off=1 nosmap noirqbalance hugepages=1024 i915.enable_rc6=0 i915.enable_dc=0 i915.disable_power_well=0 i915.enable_execlists=0 nmi_watchdog=0 ` + iso + `"`},
			"audit=0 nohz=on irqaffinity=0,1 rcu_nocb_poll=1024 rcupdate.rcu_cpu_stall_suppress=1 acpi_irq_nobalance numa_balancing=disable cpufreq.off=1 nosmap noirqbalance hugepages=1024 i915.enable_rc6=0 i915.enable_dc=0 i915.disable_power_well=0 i915.enable_execlists=0 nmi_watchdog=0 " + iso},
		{"preempt in _DEFAULT", preemptionName, "full", map[string]string{
			"etc/default/grub": "GRUB_CMDLINE_LINUX_DEFAULT=\"quiet preempt=voluntary\"\nGRUB_CMDLINE_LINUX=\"\"\n"},
			[]string{`GRUB_CMDLINE_LINUX="preempt=full"`, `GRUB_CMDLINE_LINUX_DEFAULT="quiet"`},
			"preempt=full quiet"},
	} {
		files := map[string]string{"proc/cmdline": "ro quiet\n", "proc/sys/kernel/version": versionDynamic}
		for k, v := range tc.files {
			files[k] = v
		}
		env, root := isolationEnv(t, files)
		p, err := plan(env, tc.knob, Selector{}, tc.value)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		var lines []string
		for _, s := range p.Manual {
			if s.Line != "" {
				lines = append(lines, s.Line)
			}
		}
		if !slices.Equal(lines, tc.lines) {
			t.Errorf("%s: lines\n%q\nwant\n%q\nsteps %+v", tc.name, lines, tc.lines, p.Manual)
			continue
		}
		if !applyGrubSteps(t, root, p.Manual) {
			continue
		}
		if got := grubCmdline(t, env); got != tc.want {
			t.Errorf("%s: after the steps the command line is\n%q\nwant\n%q", tc.name, got, tc.want)
		}
	}
}

// Settings latlab cannot read without running them give a step that
// says so and gives only the parameters to add, never a
// GRUB_CMDLINE_LINUX= line built from a guess.
func TestGrubStepsUnreadable(t *testing.T) {
	for _, tc := range []struct{ name, grub, dropin, why string }{
		{"parameter operator", "GRUB_CMDLINE_LINUX=\"quiet\"\n", "GRUB_CMDLINE_LINUX=\"${GRUB_CMDLINE_LINUX:+${GRUB_CMDLINE_LINUX} }ipv6.disable=1\"\n", "/etc/default/grub.d/90-x.cfg line 1 expands ${GRUB_CMDLINE_LINUX:+"},
		{"command substitution", "GRUB_CMDLINE_LINUX=\"root=UUID=$(blkid -s UUID -o value /dev/sda2) quiet\"\n", "", "runs a command ($(...))"},
		{"spaces around =", "GRUB_CMDLINE_LINUX = \"quiet isolcpus=1\"\n", "", "sh takes it for a command"},
		{"if", "if [ -z \"${GRUB_CMDLINE_LINUX}\" ]; then\n    GRUB_CMDLINE_LINUX=\"console=tty0\"\nfi\n", "", "line 1 has if"},
		{"unclosed quote", "GRUB_CMDLINE_LINUX_DEFAULT=\"quiet\nGRUB_CMDLINE_LINUX=\"\"\n", "", "never closed"},
		{"crlf", "GRUB_CMDLINE_LINUX=\"quiet\"\r\nGRUB_CMDLINE_LINUX_DEFAULT=\"\"\r\n", "", "control characters"},
	} {
		files := map[string]string{"proc/cmdline": "ro\n", "etc/default/grub": tc.grub}
		if tc.dropin != "" {
			files["etc/default/grub.d/90-x.cfg"] = tc.dropin
		}
		env, _ := isolationEnv(t, files)
		p, err := plan(env, isolationName, Selector{}, "2-3")
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if len(p.Manual) != 3 || !strings.Contains(p.Manual[0].Do, "latlab cannot tell") || !strings.Contains(p.Manual[0].Do, tc.why) ||
			p.Manual[0].Line != isolationLine("2-3") || !strings.HasPrefix(p.Manual[2].Do, "reboot") {
			t.Errorf("%s: steps %+v, want the reason %q and only the parameters", tc.name, p.Manual, tc.why)
		}
		for _, s := range p.Manual {
			if strings.HasPrefix(s.Line, "GRUB_") {
				t.Errorf("%s: a line to paste from settings latlab cannot read: %q", tc.name, s.Line)
			}
		}
	}
}
