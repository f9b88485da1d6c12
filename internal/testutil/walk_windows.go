package testutil

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
)

// walkTree calls fn for root and everything below it, parents before
// their children, as filepath.WalkDir does (without SkipDir), telling
// whether each is a directory it enters: not a link or junction.
//
// It lists each directory with FindFirstFile, by path: os.ReadDir opens
// the directory and asks for its file and volume information first,
// which under Wine made the walks of SnapshotTree and RemoveTree half of
// the time of the knob tests' hundreds of small fixture trees.
func walkTree(root string, fn func(p string, dir bool, err error) error) error {
	p, err := syscall.UTF16PtrFromString(root)
	if err != nil {
		return fn(root, false, err)
	}
	attrs, err := syscall.GetFileAttributes(p)
	if err != nil {
		return fn(root, false, &os.PathError{Op: "GetFileAttributes", Path: root, Err: err})
	}
	dir := entered(attrs)
	if err := fn(root, dir, nil); err != nil || !dir {
		return err
	}
	return walkDir(root, fn)
}

func walkDir(dir string, fn func(p string, dir bool, err error) error) error {
	pat, err := syscall.UTF16PtrFromString(filepath.Join(dir, "*"))
	if err != nil {
		return fn(dir, true, err)
	}
	var data syscall.Win32finddata
	h, err := syscall.FindFirstFile(pat, &data)
	if err != nil {
		return fn(dir, true, &os.PathError{Op: "FindFirstFile", Path: dir, Err: err})
	}
	type entry struct {
		name  string
		attrs uint32
	}
	var ents []entry
	for {
		if name := syscall.UTF16ToString(data.FileName[:]); name != "." && name != ".." {
			ents = append(ents, entry{name, data.FileAttributes})
		}
		if err := syscall.FindNextFile(h, &data); err != nil {
			syscall.FindClose(h)
			if !errors.Is(err, syscall.ERROR_NO_MORE_FILES) {
				return fn(dir, true, &os.PathError{Op: "FindNextFile", Path: dir, Err: err})
			}
			break
		}
	}
	for _, e := range ents {
		p := filepath.Join(dir, e.name)
		d := entered(e.attrs)
		if err := fn(p, d, nil); err != nil {
			return err
		}
		if d {
			if err := walkDir(p, fn); err != nil {
				return err
			}
		}
	}
	return nil
}

// entered reports whether WalkDir would enter what has attrs: a
// directory that is not a reparse point (a link or junction, which it
// reports without following).
func entered(attrs uint32) bool {
	return attrs&syscall.FILE_ATTRIBUTE_DIRECTORY != 0 && attrs&syscall.FILE_ATTRIBUTE_REPARSE_POINT == 0
}

// remove removes one entry walkTree found: a directory with
// RemoveDirectory, anything else with os.Remove (which tries DeleteFile
// first, a failed call more for each directory).
func remove(p string, dir bool) {
	if dir {
		if q, err := syscall.UTF16PtrFromString(p); err == nil && syscall.RemoveDirectory(q) == nil {
			return
		}
	}
	_ = os.Remove(p)
}
