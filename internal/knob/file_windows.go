package knob

import "os"

// kernelFile is false on Windows: the file backend there only ever holds
// a fixture tree (--root), plain files.
func kernelFile(*os.File) bool { return false }

// openNonblock is 0: Windows has no FIFOs in the file system.
const openNonblock = 0
