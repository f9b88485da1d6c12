package safefile

import (
	"io/fs"
	"os"
	"unsafe"

	"golang.org/x/sys/windows"
)

// fileStandardInfo is FILE_STANDARD_INFO (winbase.h).
type fileStandardInfo struct {
	AllocationSize, EndOfFile int64
	NumberOfLinks             uint32
	DeletePending, Directory  bool
}

// fileAttributeTagInfo is FILE_ATTRIBUTE_TAG_INFO (winbase.h).
type fileAttributeTagInfo struct {
	FileAttributes, ReparseTag uint32
}

// ioReparseTagDedup is IO_REPARSE_TAG_DEDUP (winnt.h): a file the Data
// Deduplication service optimized, which os.FileMode counts as regular.
const ioReparseTagDedup = 0x80000013

// reparseTagNameSurrogate is the bit IsReparseTagNameSurrogate tests
// (winnt.h): a link or mount point, another name for what it points to.
const reparseTagNameSurrogate = 0x20000000

// Attributes returns the attributes and reparse tag of an open handle
// (FileAttributeTagInfo). Unlike GetFileInformationByHandle it does not
// ask for the volume's serial number, which under Wine is a round trip
// to its mount manager in another process, ten times the cost of
// opening the file.
func Attributes(h windows.Handle) (attrs, reparseTag uint32, err error) {
	var ti fileAttributeTagInfo
	if err := windows.GetFileInformationByHandleEx(h, windows.FileAttributeTagInfo, (*byte)(unsafe.Pointer(&ti)), uint32(unsafe.Sizeof(ti))); err != nil {
		return 0, 0, err
	}
	return ti.FileAttributes, ti.ReparseTag, nil
}

// Stat is what os.File.Stat says of f's size, type and permission bits,
// from its file type, attributes and size alone (see Attributes).
func Stat(f *os.File) (Info, error) {
	h := windows.Handle(f.Fd())
	ft, err := windows.GetFileType(h)
	if err != nil {
		return Info{}, &fs.PathError{Op: "GetFileType", Path: f.Name(), Err: err}
	}
	if ft == windows.FILE_TYPE_PIPE || ft == windows.FILE_TYPE_CHAR {
		return Info{Perm: 0o666}, nil
	}
	attrs, tag, err := Attributes(h)
	if err != nil {
		return Info{}, &fs.PathError{Op: "GetFileInformationByHandleEx", Path: f.Name(), Err: err}
	}
	var si fileStandardInfo
	if err := windows.GetFileInformationByHandleEx(h, windows.FileStandardInfo, (*byte)(unsafe.Pointer(&si)), uint32(unsafe.Sizeof(si))); err != nil {
		return Info{}, &fs.PathError{Op: "GetFileInformationByHandleEx", Path: f.Name(), Err: err}
	}
	in := Info{Size: si.EndOfFile, Perm: 0o666}
	if attrs&windows.FILE_ATTRIBUTE_READONLY != 0 {
		in.Perm = 0o444
	}
	// As os.FileMode: a directory, a link, a socket or any other reparse
	// point but a deduplicated file is not regular; a directory that is
	// not a link or mount point (a name surrogate) is searchable.
	reparse := attrs&windows.FILE_ATTRIBUTE_REPARSE_POINT != 0
	dir := attrs&windows.FILE_ATTRIBUTE_DIRECTORY != 0
	in.Regular = !dir && (!reparse || tag == ioReparseTagDedup)
	if dir && !(reparse && tag&reparseTagNameSurrogate != 0) {
		in.Perm |= 0o111
	}
	return in, nil
}
