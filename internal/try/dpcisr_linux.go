package try

// dpcisrRefusal is why the dpcisr probe cannot run here ("" where it can):
// on Linux the watch traces softirqs and hard interrupts through tracefs,
// and itself says what stops it (no root).
const dpcisrRefusal = ""
