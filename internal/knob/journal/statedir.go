package journal

import (
	"errors"
	"fmt"
	"io/fs"
	"strings"
)

// stateErr is an error opening the state directory at path, with the
// path said once and, for a missing privilege, what to do.
func stateErr(path string, err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	if errors.Is(err, fs.ErrPermission) {
		return fmt.Errorf("state directory %s: %v: %s", path, err, stateDirHint)
	}
	return fmt.Errorf("state directory %s: %w", path, err)
}

// strictModes is sshd's StrictModes rule for a process running as root
// (euid 0): the state directory and its files must be root's and
// writable by no one else, since whoever can write them decides what
// root's revert writes. uid and mode are the file's owner and permission
// bits.
func strictModes(path string, dir bool, uid, mode uint32, euid int) error {
	if euid != 0 {
		return nil
	}
	q := path
	if strings.ContainsFunc(path, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("/._-+,:@", r))
	}) {
		q = shQuote(path)
	}
	var why, fix []string
	if uid != 0 {
		why = append(why, fmt.Sprintf("owned by uid %d", uid))
		fix = append(fix, "chown root "+q)
	}
	if mode&0o022 != 0 {
		why = append(why, "writable by group or others")
		fix = append(fix, "chmod go-w "+q)
	}
	if len(why) == 0 {
		return nil
	}
	what := "file"
	if dir {
		what = "state directory"
	}
	return fmt.Errorf("refusing %s %s: %s; fix: %s",
		what, path, strings.Join(why, " and "), strings.Join(fix, " && "))
}

// aceInfo is one entry of a Windows ACL.
type aceInfo struct {
	Type, Flags uint8
	Mask        uint32
	SID         string // of an allow or deny entry
}

// Well-known SIDs and ACL bits of the Windows check.
const (
	sidSystem         = "S-1-5-18"
	sidAdministrators = "S-1-5-32-544"
	sidTrustedInstall = "S-1-5-80-956008885-3418522649-1831038044-1853292631-2271478464"
	sidCreatorOwner   = "S-1-3-0"
	aceAllowed        = 0
	aceInheritOnly    = 0x8
	// write data or add a file, append or add a sub-directory, delete a
	// child, DELETE, WRITE_DAC, WRITE_OWNER, GENERIC_ALL, GENERIC_WRITE
	fileWriteAccess = 0x2 | 0x4 | 0x40 | 0x10000 | 0x40000 | 0x80000 | 0x10000000 | 0x40000000
)

// strictACL is the Windows form of strictModes for an elevated process:
// the owner must be SYSTEM, Administrators, TrustedInstaller or this user
// (self), and no entry of the ACL may let anyone else write, delete or
// re-permit the file. A missing ACL grants everyone everything.
func strictACL(path, owner string, aces []aceInfo, nullDACL bool, self string) error {
	trusted := func(sid string) bool {
		return sid == sidSystem || sid == sidAdministrators || sid == sidTrustedInstall || (self != "" && sid == self)
	}
	var why []string
	if !trusted(owner) {
		why = append(why, "owned by "+owner)
	}
	if nullDACL {
		why = append(why, "it has no ACL (everyone may change it)")
	}
	for _, a := range aces {
		if a.Type != aceAllowed || a.Flags&aceInheritOnly != 0 || a.Mask&fileWriteAccess == 0 || trusted(a.SID) || a.SID == sidCreatorOwner {
			continue
		}
		why = append(why, fmt.Sprintf("%s may change it (access 0x%x)", a.SID, a.Mask))
	}
	if len(why) == 0 {
		return nil
	}
	return fmt.Errorf(`refusing %s: %s; fix: icacls "%s" /setowner *S-1-5-32-544, then icacls "%s" /inheritance:r /grant:r *S-1-5-18:(OI)(CI)F *S-1-5-32-544:(OI)(CI)F`,
		path, strings.Join(why, "; "), path, path)
}

// shQuote quotes s for a POSIX shell, for the fix a refusal suggests.
func shQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }
