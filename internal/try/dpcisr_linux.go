package try

// dpcisrRefusal is why the dpcisr probe cannot run here ("" where it can).
const dpcisrRefusal = "--probe dpcisr is Windows-only (it traces DPCs and ISRs through Event Tracing for Windows); on Linux measure with --probe wake or udp"
