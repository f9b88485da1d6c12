//go:build !windows

package safefile

import "os"

// Stat is what os.File.Stat says of f's size, type and permission bits.
func Stat(f *os.File) (Info, error) {
	st, err := f.Stat()
	if err != nil {
		return Info{}, err
	}
	return Info{Size: st.Size(), Regular: st.Mode().IsRegular(), Perm: st.Mode().Perm()}, nil
}
