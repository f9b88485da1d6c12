package try

// dpcisrRefusal is why the dpcisr probe cannot run here ("" where it can):
// on Linux the watch traces softirqs and hard interrupts through tracefs,
// and itself says what stops it (no root).
const dpcisrRefusal = ""

// dpcisrSections is how many sections a module's blocks are tested in,
// as the plan counts them: a softirq (the module the verdict follows
// unless --module names a handler) is no hard interrupt handler's name,
// so one.
const dpcisrSections = 1
