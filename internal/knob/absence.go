package knob

import (
	"errors"
	"fmt"
	"strings"

	"github.com/latlab/latlab/internal/knob/backend"
	"github.com/latlab/latlab/internal/rootfs"
)

// A setting file a kernel built without the feature lacks is simply not
// there; so is every file of a --root tree that copied only part of a
// machine's /proc and /sys (procfs's test fixture has no /sys/kernel/mm),
// and every file of a live system whose sysfs or procfs is not mounted
// where latlab looks. The file alone cannot tell these apart. Its anchor
// can: the nearest directory above it that every kernel with that file
// system has. With the anchor there, the file's absence is the kernel's;
// with the anchor missing too, the tree (or the system) does not show
// the setting, and whether the kernel has it cannot be told.

// anchors are the directories every Linux kernel with the file system
// has, each with where the kernel makes it.
var anchors = []string{
	// net/core/sysctl_net_core.c, sysctl_core_init: register_net_sysctl(
	// &init_net, "net/core", net_core_table), on every kernel with
	// networking (CONFIG_NET).
	"proc/sys/net/core",
	// net/ipv4/sysctl_net_ipv4.c, sysctl_ipv4_init: register_net_sysctl(
	// &init_net, "net/ipv4", ipv4_table), on every kernel with IPv4
	// (CONFIG_INET), and the per-namespace table beside it.
	"proc/sys/net/ipv4",
	// kernel/sysctl.c, sysctl_init_bases: register_sysctl_init("kernel",
	// kern_table), called by proc_sys_init (fs/proc/proc_sysctl.c).
	"proc/sys/kernel",
	// kernel/sysctl.c, sysctl_init_bases: register_sysctl_init("vm",
	// vm_table); as the vm table moves out of it, fs/drop_caches.c's
	// register_sysctl_init("vm", drop_caches_table) still makes it, with
	// no option around it.
	"proc/sys/vm",
	// mm/mm_init.c, mm_sysfs_init: mm_kobj = kobject_create_and_add("mm",
	// kernel_kobj), a postcore_initcall with no option around it, since
	// July 2008 ("mm: create /sys/kernel/mm": "Add a kobject to create
	// /sys/kernel/mm when sysfs is mounted. The kobject will exist
	// regardless.").
	"sys/kernel/mm",
	// fs/proc/self.c, proc_setup_self: the "self" link every procfs
	// mount gets, to the reading process's directory.
	"proc/self",
	// kernel/time/clocksource.c, init_clocksource_sysfs: subsys_system_
	// register(&clocksource_subsys, NULL), then clocksource0.
	"sys/devices/system/clocksource",
	// drivers/base/cpu.c, cpu_dev_init: subsys_system_register(
	// &cpu_subsys, ...), which panics when it fails.
	"sys/devices/system/cpu",
}

// anchorOf is the anchor of a setting file: the anchors' directory it is
// in, else the top of its file system (/proc or /sys), which shows only
// whether the file system is there at all.
func anchorOf(l backend.Loc) string {
	p := strings.TrimPrefix(l.Path, "/")
	for _, a := range anchors {
		if strings.HasPrefix(p, a+"/") {
			return a
		}
	}
	top, _, _ := strings.Cut(p, "/")
	return top
}

// absence is what the absence of a setting file shows.
type absence struct {
	lacks string // the feature, and its build option, a kernel without the file lacks
	// missing is the file's anchor ("/sys/kernel/mm") when it is missing
	// too: the absence then says nothing of the kernel. "" when the
	// anchor is there.
	missing string
	host    bool // the machine's own /proc and /sys, not a --root tree
}

// absenceOf says what the absence of the setting file l shows: its
// anchor is looked for. A failure to look other than the anchor's own
// absence is an error: what the tree shows is not known.
func absenceOf(env *Env, l backend.Loc, lacks string) (absence, error) {
	a := absence{lacks: lacks, host: true}
	if f, ok := env.Backends[backend.BackendFile].(backend.Files); ok {
		a.host = rootfs.IsHost(f.Root)
	}
	dir := anchorOf(l)
	_, _, err := env.list(backend.BackendFile, dir)
	switch {
	case errors.Is(err, backend.ErrNotFound):
		a.missing = "/" + dir
	case err != nil:
		return a, fmt.Errorf("%s does not exist, and whether /%s does cannot be read: %w", l, dir, err)
	}
	return a, nil
}

// unseen reports whether the tree (or the system) does not show the
// file's file system there, so the kernel's having it cannot be told.
func (a absence) unseen() bool { return a.missing != "" }

// why is what the absence shows, after the name of the file or sysctl
// ("kernel.x does not exist: this kernel has no ..."); with name "", as
// the meaning of a reading ("not present: this kernel has no ...").
func (a absence) why(name string) string {
	if !a.unseen() {
		// A --root tree may hold the anchor and still leave the file out
		// (node_exporter's fixture keeps /sys/kernel/mm/ksm alone): there
		// the kernel's lacking it is likely, not shown.
		tail := ""
		if !a.host {
			tail = ", or the tree's copy left the file out"
		}
		if name == "" {
			return "not present: this kernel has no " + a.lacks + tail
		}
		return name + " does not exist: this kernel has no " + a.lacks + tail
	}
	where, who := "not in this tree", "the tree does"
	if a.host {
		// The machine's own: the file system is not mounted where latlab
		// reads it, or a container hides it (or, for the network anchors,
		// the kernel has no networking or IPv4: cautious, never false).
		where, who = "not shown", "this system does"
	}
	if name != "" {
		where = name + " is " + where
	}
	return fmt.Sprintf("%s: %s is missing too, so %s not say whether the kernel has %s", where, a.missing, who, a.lacks)
}

// notShown is the item's NotShown: the missing anchor, or "".
func (a absence) notShown() string { return a.missing }

// absentItem is the reading item of the absent setting file l: value
// "absent", the meaning what the absence shows (name as for why).
func absentItem(env *Env, l backend.Loc, v backend.Value, lacks, name string) (Item, error) {
	a, err := absenceOf(env, l, lacks)
	if err != nil {
		return Item{}, err
	}
	it := item("", l, v, a.why(name))
	it.Value = "absent"
	it.NotShown = a.notShown()
	return it, nil
}

// absentError is the error of a plan for the absent setting file l:
// nothing was changed, and what the absence shows (name as for why).
func absentError(env *Env, l backend.Loc, lacks, name string) error {
	a, err := absenceOf(env, l, lacks)
	if err != nil {
		return fmt.Errorf("nothing was changed: %w", err)
	}
	return errors.New("nothing was changed: " + a.why(name))
}
