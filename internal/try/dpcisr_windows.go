package try

// dpcisrRefusal is why the dpcisr probe cannot run here ("" where it can):
// on Windows the watch itself says what stops it (no elevation, Wine).
const dpcisrRefusal = ""

// dpcisrSections is how many sections a module's blocks are tested in,
// as the plan counts them: a driver that runs DPCs has its interrupts
// too, DPC and ISR.
const dpcisrSections = 2
