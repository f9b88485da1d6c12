package knob

import (
	"strings"
	"testing"
)

// The constructs of /etc/default/grub files found in public
// repositories, each read as /bin/sh reads it (checked with
// sh -c '. FILE; printf ...' on the same text). The lines are written
// for the test in the form the named files use, not copied from them.
func TestShellStateGrub(t *testing.T) {
	long := "audit=0 isolcpus=2,3 nohz=on nohz_full=2,3 rcu_nocbs=2,3 irqaffinity=0,1 rcu_nocb_poll=1024 rcupdate.rcu_cpu_stall_suppress=1 acpi_irq_nobalance numa_balancing=disable cpufreq.off=1 nosmap noirqbalance hugepages=1024 i915.enable_rc6=0 i915.enable_dc=0 i915.disable_power_well=0 i915.enable_execlists=0 nmi_watchdog=0"
	for _, tc := range []struct {
		name, text     string
		linux, deflt   string
		unknown        string // a word of why the values cannot be known; "" known
		linuxAt, defAt int    // the lines that set them last (0: not checked)
	}{
		// Debian's and Ubuntu's shipped file (JoeKun/debian-configuration-files,
		// matsuu/isucon12q): GRUB_DISTRIBUTOR runs lsb_release in backquotes,
		// which touches no other variable.
		{"debian default", "GRUB_DEFAULT=0\nGRUB_TIMEOUT=5\nGRUB_DISTRIBUTOR=`lsb_release -i -s 2> /dev/null || echo Debian`\nGRUB_CMDLINE_LINUX_DEFAULT=\"quiet\"\nGRUB_CMDLINE_LINUX=\"\"\n#GRUB_BADRAM=\"0x01234567\"\n",
			"", "quiet", "", 5, 4},
		// Fedora's (Guru-25/fedora): $(sed ...) in GRUB_DISTRIBUTOR.
		{"fedora default", "GRUB_TIMEOUT=5\nGRUB_DISTRIBUTOR=\"$(sed 's, release .*$,,g' /etc/system-release)\"\nGRUB_DEFAULT=saved\nGRUB_CMDLINE_LINUX=\"rhgb quiet\"\n",
			"rhgb quiet", "", "", 4, 0},
		// JoonaHa/Single-GPU-VFIO-Win10: backquotes inside double quotes,
		// and a variable that expands another.
		{"backquotes in quotes", "GRUB_TIMEOUT=\"1\"\nGRUB_DISTRIBUTOR=\"`lsb_release -i -s 2> /dev/null || echo Debian`\"\nGRUB_CMDLINE_LINUX_DEFAULT=\"iommu=1 amd_iommu=on\"\n# GRUB_CMDLINE_LINUX_DEFAULT=\"usbcore.autosuspend=-1\"\nGRUB_CMDLINE_LINUX=\"\"\nGRUB_RECORDFAIL_TIMEOUT=$GRUB_TIMEOUT\n",
			"", "iommu=1 amd_iommu=on", "", 5, 3},
		// 4e6/archlinux-thinkpad-x1-carbon: escaped quotes in the value.
		{"escaped quotes", "GRUB_CMDLINE_LINUX_DEFAULT=\"quiet acpi_osi=\\\"!Windows 2012\\\"\"\nGRUB_CMDLINE_LINUX=\"\"\n",
			"", "quiet acpi_osi=\"!Windows 2012\"", "", 0, 1},
		// DStait/gpu-passthrough: one line, no newline at the end.
		{"no final newline", "GRUB_CMDLINE_LINUX_DEFAULT=\"quiet intel_iommu=on iommu=pt\"", "", "quiet intel_iommu=on iommu=pt", "", 0, 1},
		// Andrei-Paul/proxmox: commented alternatives around the one in force.
		{"commented alternatives", "# GRUB_CMDLINE_LINUX=\"root=ZFS=rpool/ROOT/pve-1 boot=zfs\" # ORIGINAL\nGRUB_CMDLINE_LINUX=\"root=ZFS=rpool/ROOT/pve-1 boot=zfs intel_iommu=on\"\n# GRUB_CMDLINE_LINUX=\"nofb\" # SUGGESTED\n",
			"root=ZFS=rpool/ROOT/pve-1 boot=zfs intel_iommu=on", "", "", 2, 0},
		{"trailing comment", "GRUB_CMDLINE_LINUX=\"quiet\" # note\n", "quiet", "", "", 1, 0},
		// Arch installers write single quotes (GRUB_CMDLINE_LINUX_DEFAULT='loglevel=3 quiet').
		{"single quotes", "GRUB_CMDLINE_LINUX_DEFAULT='loglevel=3 quiet'\n", "", "loglevel=3 quiet", "", 0, 1},
		{"unquoted", "GRUB_CMDLINE_LINUX=quiet\n", "quiet", "", "", 1, 0},
		// A guide's wrapped value: the backslash-newline goes, in quotes too.
		{"continuation", "GRUB_CMDLINE_LINUX_DEFAULT=\"quiet intel_idle.max_cstate=1 \\\nprocessor.max_cstate=1 pcie_aspm=off\"\n",
			"", "quiet intel_idle.max_cstate=1 processor.max_cstate=1 pcie_aspm=off", "", 0, 1},
		{"continuation outside quotes", "GRUB_CMDLINE_LINUX=\\\n\"quiet\"\n", "quiet", "", "", 1, 0},
		{"backslash escapes", "GRUB_CMDLINE_LINUX=a\\ b\\$c\" \\d\"\n", "a b$c \\d", "", "", 1, 0},
		// Drop-ins and salt states append: GRUB_CMDLINE_LINUX="$GRUB_CMDLINE_LINUX ...".
		{"appends", "GRUB_CMDLINE_LINUX=\"quiet\"\nGRUB_CMDLINE_LINUX=\"$GRUB_CMDLINE_LINUX rd.driver.blacklist=nouveau\"\nGRUB_CMDLINE_LINUX=\"${GRUB_CMDLINE_LINUX} nvidia-drm.modeset=1\"\n",
			"quiet rd.driver.blacklist=nouveau nvidia-drm.modeset=1", "", "", 3, 0},
		{"append to unset", "GRUB_CMDLINE_LINUX=\"$GRUB_CMDLINE_LINUX ipv6.disable=1\"\n", " ipv6.disable=1", "", "", 1, 0},
		{"last wins", "GRUB_CMDLINE_LINUX=\"a\"\nGRUB_CMDLINE_LINUX=\"b\"\n", "b", "", "", 2, 0},
		{"export", "export GRUB_CMDLINE_LINUX_DEFAULT=\"amd_iommu=on iommu=pt\"\nexport GRUB_CMDLINE_LINUX\n", "", "amd_iommu=on iommu=pt", "", 0, 1},
		{"two on a line", "GRUB_CMDLINE_LINUX=\"a\"; GRUB_CMDLINE_LINUX_DEFAULT=b\n", "a", "b", "", 1, 1},
		// A real-time machine's GRUB_CMDLINE_LINUX, over 256 bytes.
		{"long", "GRUB_CMDLINE_LINUX=\"" + long + "\"\n", long, "", "", 1, 0},
		{"unset", "GRUB_CMDLINE_LINUX=\"a\"\nunset GRUB_CMDLINE_LINUX\n", "", "", "", 2, 0},
		// What latlab cannot know without running the file.
		{"parameter operator", "GRUB_CMDLINE_LINUX=\"${GRUB_CMDLINE_LINUX:+${GRUB_CMDLINE_LINUX} }ipv6.disable=1\"\n", "", "", "GRUB_CMDLINE_LINUX:+", 0, 0},
		{"nested operator", "GRUB_CMDLINE_LINUX=${GRUB_CMDLINE_LINUX:+\"${GRUB_CMDLINE_LINUX} }\"}quiet\nGRUB_CMDLINE_LINUX_DEFAULT=splash\n", "", "", "expands ${GRUB_CMDLINE_LINUX:+", 0, 0},
		{"command substitution", "GRUB_CMDLINE_LINUX=\"root=UUID=$(blkid -s UUID -o value /dev/sda2)\"\n", "", "", "runs a command", 0, 0},
		{"backquotes", "GRUB_CMDLINE_LINUX_DEFAULT=`cat /etc/cmdline`\n", "", "", "runs a command", 0, 0},
		{"from the caller", "GRUB_CMDLINE_LINUX=\"root=$GRUB_DEVICE\"\n", "", "", "GRUB_DEVICE", 0, 0},
		{"spaces around =", "GRUB_CMDLINE_LINUX = \"quiet\"\n", "", "", "followed by a space and =", 0, 0},
		{"if", "if [ -z \"${GRUB_CMDLINE_LINUX}\" ]; then\n    GRUB_CMDLINE_LINUX=\"console=ttyS0\"\nfi\n", "", "", "has if", 0, 0},
		{"command", "GRUB_CMDLINE_LINUX=quiet splash\n", "", "", "runs a command (\"splash\")", 0, 0},
		{"source", ". /etc/default/grub.local\nGRUB_CMDLINE_LINUX=\"quiet\"\n", "", "", "runs a command", 0, 0},
		{"and list", "[ -r /x ] && GRUB_CMDLINE_LINUX=x\n", "", "", "has &", 0, 0},
		{"unclosed quote", "GRUB_CMDLINE_LINUX=\"quiet\nGRUB_TIMEOUT=5\n", "", "", "never closed", 0, 0},
		{"crlf", "GRUB_CMDLINE_LINUX=\"quiet\"\r\n", "", "", "control characters", 0, 0},
	} {
		st := newShellState(grubLinux, grubDefault)
		st.source("/etc/default/grub", tc.text)
		l, d := st.get(grubLinux), st.get(grubDefault)
		if tc.unknown != "" {
			why := l.Unknown + " | " + d.Unknown
			if !strings.Contains(why, tc.unknown) || l.Value != "" {
				t.Errorf("%s: unknown %q, value %q; want unknown with %q", tc.name, why, l.Value, tc.unknown)
			}
			continue
		}
		if l.Unknown != "" || d.Unknown != "" || l.Value != tc.linux || d.Value != tc.deflt {
			t.Errorf("%s: GRUB_CMDLINE_LINUX %q (%s), _DEFAULT %q (%s); want %q and %q", tc.name, l.Value, l.Unknown, d.Value, d.Unknown, tc.linux, tc.deflt)
		}
		if tc.linuxAt != 0 && l.Line != tc.linuxAt || tc.defAt != 0 && d.Line != tc.defAt {
			t.Errorf("%s: set on lines %d and %d, want %d and %d", tc.name, l.Line, d.Line, tc.linuxAt, tc.defAt)
		}
	}
}

// A value written back reads as itself.
func TestShellQuote(t *testing.T) {
	for _, v := range []string{"", "quiet", `quiet acpi_osi="!Windows 2012"`, `a\b $HOME ` + "`x`", "it's"} {
		st := newShellState("V")
		st.source("f", "V="+shellQuote(v)+"\n")
		if got := st.get("V"); got.Value != v || got.Unknown != "" {
			t.Errorf("%q written as %s reads back as %q (%s)", v, shellQuote(v), got.Value, got.Unknown)
		}
	}
}

// Any text reads without a panic, and a value it yields, written back
// as latlab prints it, reads as itself.
func FuzzShellState(f *testing.F) {
	for _, s := range []string{
		"GRUB_CMDLINE_LINUX=\"quiet\" # note\n",
		"GRUB_CMDLINE_LINUX_DEFAULT=\"quiet acpi_osi=\\\"!Windows 2012\\\"\"\n",
		"GRUB_CMDLINE_LINUX=${GRUB_CMDLINE_LINUX:+\"${GRUB_CMDLINE_LINUX} }\"}quiet\n",
		"export GRUB_CMDLINE_LINUX='a'\\\n; unset X\nGRUB_DISTRIBUTOR=`lsb_release -i -s 2> /dev/null || echo Debian`\n",
		"A=$(echo \"$(x)\")\nGRUB_CMDLINE_LINUX=\"$A\"\n",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		st := newShellState(grubLinux, grubDefault)
		st.source("f", text)
		for _, name := range []string{grubLinux, grubDefault} {
			v := st.get(name)
			if v.Unknown != "" || hasControl(v.Value) {
				continue
			}
			back := newShellState(name)
			back.source("g", name+"="+shellQuote(v.Value)+"\n")
			if got := back.get(name); got.Value != v.Value || got.Unknown != "" {
				t.Errorf("%q reads back as %q (%s)", v.Value, got.Value, got.Unknown)
			}
		}
	})
}
