//go:build !linux

package infile

import (
	"io"
	"os"
)

// regularReader reads the regular file f (see read_linux.go).
func regularReader(f *os.File) io.Reader { return f }
