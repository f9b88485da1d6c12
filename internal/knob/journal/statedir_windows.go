package journal

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"unsafe"

	"golang.org/x/sys/windows"

	"github.com/latlab/latlab/internal/knob/internal/safefile"
)

// stateDir is the state directory. Windows has no openat for plain
// programs, so files are opened by path, each with
// FILE_FLAG_OPEN_REPARSE_POINT (the O_NOFOLLOW of CreateFile) and
// refused when what was opened is a link. The directory's ACL, checked
// when it is opened, keeps others from planting anything in it.
type stateDir struct {
	path string
}

// stateDirSDDL is the security of a state directory latlab creates:
// SYSTEM, Administrators and the creating user have full control, no one
// else has any access, and nothing is inherited from the parent
// (%ProgramData% lets every user create files in its sub-directories).
func stateDirSDDL() string {
	s := "D:P(A;OICI;FA;;;SY)(A;OICI;FA;;;BA)"
	if u, err := windows.GetCurrentProcessToken().GetTokenUser(); err == nil {
		s += "(A;OICI;FA;;;" + u.User.Sid.String() + ")"
	}
	return s
}

func openStateDir(path string, create bool) (*stateDir, error) {
	if create {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return nil, stateErr(path, err)
		}
		if err := mkdirPrivate(path); err != nil && !errors.Is(err, fs.ErrExist) {
			return nil, stateErr(path, err)
		}
	}
	p, err := windows.UTF16PtrFromString(path)
	if err != nil {
		return nil, err
	}
	h, err := windows.CreateFile(p, windows.READ_CONTROL|windows.FILE_READ_ATTRIBUTES,
		windows.FILE_SHARE_READ|windows.FILE_SHARE_WRITE|windows.FILE_SHARE_DELETE, nil,
		windows.OPEN_EXISTING, windows.FILE_FLAG_BACKUP_SEMANTICS|windows.FILE_FLAG_OPEN_REPARSE_POINT, 0)
	if err != nil {
		if errors.Is(err, windows.ERROR_FILE_NOT_FOUND) || errors.Is(err, windows.ERROR_PATH_NOT_FOUND) {
			err = fs.ErrNotExist
		}
		return nil, stateErr(path, err)
	}
	defer windows.CloseHandle(h)
	// The directory itself is never a link or junction, which whoever
	// made it could repoint at another journal between a set and its
	// revert (FILE_FLAG_OPEN_REPARSE_POINT opened the link itself).
	attrs, _, err := safefile.Attributes(h)
	if err != nil {
		return nil, stateErr(path, err)
	}
	if attrs&windows.FILE_ATTRIBUTE_REPARSE_POINT != 0 {
		return nil, fmt.Errorf("refusing state directory %s: it is a symbolic link or junction, which latlab never follows there; give the directory itself", path)
	}
	d := &stateDir{path: path}
	if err := d.check(h, path, true); err != nil {
		return nil, err
	}
	return d, nil
}

func mkdirPrivate(path string) error {
	sd, err := windows.SecurityDescriptorFromString(stateDirSDDL())
	if err != nil {
		return err
	}
	sa := &windows.SecurityAttributes{Length: uint32(unsafe.Sizeof(windows.SecurityAttributes{})), SecurityDescriptor: sd}
	p, err := windows.UTF16PtrFromString(path)
	if err != nil {
		return err
	}
	if err := windows.CreateDirectory(p, sa); err != nil {
		if errors.Is(err, windows.ERROR_ALREADY_EXISTS) {
			return fs.ErrExist
		}
		return err
	}
	return nil
}

// stateDirHint is what a permission error on the state directory needs.
const stateDirHint = "it is the administrators': run latlab in an elevated prompt (Run as administrator)"

func (d *stateDir) close() {}

// check refuses a link, a non-file, and (elevated) an owner or an ACL
// that lets someone other than SYSTEM, Administrators or this user change
// it.
func (d *stateDir) check(h windows.Handle, path string, dir bool) error {
	attrs, _, err := safefile.Attributes(h)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if attrs&windows.FILE_ATTRIBUTE_REPARSE_POINT != 0 && !dir {
		return fmt.Errorf("%s is a symbolic link or junction: latlab never follows one in its state directory (remove it)", path)
	}
	if isDir := attrs&windows.FILE_ATTRIBUTE_DIRECTORY != 0; isDir != dir {
		if dir {
			return fmt.Errorf("state directory %s is not a directory", path)
		}
		return fmt.Errorf("%s is not a regular file: latlab refuses it (remove it)", path)
	}
	if !windows.GetCurrentProcessToken().IsElevated() {
		return nil
	}
	self := ""
	if u, err := windows.GetCurrentProcessToken().GetTokenUser(); err == nil {
		self = u.User.Sid.String()
	}
	sd, err := windows.GetSecurityInfo(h, windows.SE_FILE_OBJECT, windows.OWNER_SECURITY_INFORMATION|windows.DACL_SECURITY_INFORMATION)
	if err != nil {
		return fmt.Errorf("%s: read its security: %w", path, err)
	}
	owner, _, err := sd.Owner()
	if err != nil {
		return fmt.Errorf("%s: read its owner: %w", path, err)
	}
	dacl, _, err := sd.DACL()
	if errors.Is(err, windows.ERROR_OBJECT_NOT_FOUND) {
		dacl, err = nil, nil // no DACL: everyone has full access
	}
	if err != nil {
		return fmt.Errorf("%s: read its ACL: %w", path, err)
	}
	var aces []aceInfo
	if dacl != nil {
		for i := uint32(0); i < uint32(dacl.AceCount); i++ {
			var ace *windows.ACCESS_ALLOWED_ACE
			if err := windows.GetAce(dacl, i, &ace); err != nil {
				return fmt.Errorf("%s: read its ACL: %w", path, err)
			}
			a := aceInfo{Type: ace.Header.AceType, Flags: ace.Header.AceFlags, Mask: uint32(ace.Mask)}
			if a.Type == windows.ACCESS_ALLOWED_ACE_TYPE || a.Type == windows.ACCESS_DENIED_ACE_TYPE {
				a.SID = (*windows.SID)(unsafe.Pointer(&ace.SidStart)).String()
			}
			aces = append(aces, a)
		}
	}
	return strictACL(path, owner.String(), aces, dacl == nil, self)
}

// open opens name without following a link: CreateFile with
// FILE_FLAG_OPEN_REPARSE_POINT opens a link itself, which check refuses.
func (d *stateDir) open(name string, access, disposition uint32) (*os.File, error) {
	path := filepath.Join(d.path, name)
	p, err := windows.UTF16PtrFromString(path)
	if err != nil {
		return nil, err
	}
	h, err := windows.CreateFile(p, access|windows.READ_CONTROL, windows.FILE_SHARE_READ|windows.FILE_SHARE_WRITE, nil,
		disposition, windows.FILE_ATTRIBUTE_NORMAL|windows.FILE_FLAG_OPEN_REPARSE_POINT, 0)
	if err != nil {
		if errors.Is(err, windows.ERROR_FILE_NOT_FOUND) || errors.Is(err, windows.ERROR_PATH_NOT_FOUND) {
			return nil, &fs.PathError{Op: "open", Path: path, Err: fs.ErrNotExist}
		}
		if errors.Is(err, fs.ErrPermission) {
			return nil, fmt.Errorf("open %s: %v: %s", path, err, stateDirHint)
		}
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	if err := d.check(h, path, false); err != nil {
		windows.CloseHandle(h)
		return nil, err
	}
	return os.NewFile(uintptr(h), path), nil
}

func (d *stateDir) read(name string, limit int64) ([]byte, error) {
	f, err := d.open(name, windows.GENERIC_READ, windows.OPEN_EXISTING)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return safefile.ReadLimited(f, f.Name(), limit)
}

// lock takes an exclusive lock on journal.lock; Windows drops it when the
// process dies.
func (d *stateDir) lock() (func(), error) {
	f, err := d.open(LockFile, windows.GENERIC_READ|windows.GENERIC_WRITE, windows.OPEN_ALWAYS)
	if err != nil {
		return nil, err
	}
	ol := new(windows.Overlapped)
	if err := windows.LockFileEx(windows.Handle(f.Fd()), windows.LOCKFILE_EXCLUSIVE_LOCK|windows.LOCKFILE_FAIL_IMMEDIATELY, 0, 1, 0, ol); err != nil {
		f.Close()
		return nil, errLocked(err)
	}
	return func() { windows.UnlockFileEx(windows.Handle(f.Fd()), 0, 1, 0, ol); f.Close() }, nil
}

// replace puts data in name atomically: a new file (CREATE_NEW, which
// never follows a link), flushed, moved over the old one write-through.
func (d *stateDir) replace(name string, data []byte) error {
	tmp, err := os.CreateTemp(d.path, name+".tmp-*")
	if err != nil {
		return fmt.Errorf("journal: %w", err)
	}
	ok := false
	defer func() {
		if !ok {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	if _, err := tmp.Write(data); err != nil {
		return fmt.Errorf("journal: write %s: %w", tmp.Name(), err)
	}
	if err := safefile.Sync(tmp); err != nil {
		return fmt.Errorf("journal: sync %s: %w", tmp.Name(), err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("journal: close %s: %w", tmp.Name(), err)
	}
	f, err := windows.UTF16PtrFromString(tmp.Name())
	if err != nil {
		return err
	}
	t, err := windows.UTF16PtrFromString(filepath.Join(d.path, name))
	if err != nil {
		return err
	}
	if err := windows.MoveFileEx(f, t, windows.MOVEFILE_REPLACE_EXISTING|windows.MOVEFILE_WRITE_THROUGH); err != nil {
		return fmt.Errorf("journal: rename %s: %w", tmp.Name(), err)
	}
	ok = true
	return nil
}
