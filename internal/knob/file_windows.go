package knob

import "os"

// kernelFile is false on Windows: the file backend there only ever holds
// a fixture tree (--root), plain files.
func kernelFile(*os.File) bool { return false }
