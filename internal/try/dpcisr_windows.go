package try

// dpcisrRefusal is why the dpcisr probe cannot run here ("" where it can):
// on Windows the watch itself says what stops it (no elevation, Wine).
const dpcisrRefusal = ""
