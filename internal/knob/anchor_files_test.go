package knob_test

// A file in each directory every kernel has above its settings
// (absence.go), none of them read by a knob: a tree holding one shows the
// directory, so a setting file missing beside it is the kernel's lack; a
// tree without it shows neither, and the setting is "not shown".
const (
	kernelAnchorFile  = "proc/sys/kernel/ostype"
	vmAnchorFile      = "proc/sys/vm/overcommit_memory"
	netCoreAnchorFile = "proc/sys/net/core/somaxconn"
	mmAnchorFile      = "sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages"
)
