package exporter

import (
	"fmt"
	"strings"
)

// The exporter service runs as LocalSystem: whoever can change its
// executable, a DLL beside it, or its web configuration (TLS and basic
// auth: emptying the users list there opened /metrics without auth) runs
// code or changes the service as LocalSystem. Install therefore takes an
// executable and a --tls-config only from where Administrators alone can
// write (the checks here are pure functions over the access each path
// grants; the Windows side reads it from the security descriptors).

// Grant is a right over a file or folder held by an account other than
// Administrators, SYSTEM and TrustedInstaller (an owner counts: it may
// always change the permissions).
type Grant struct {
	Who  string // DOMAIN\name or the SID
	Mask uint32 // the ACCESS_MASK allowed
}

// Access masks that matter (winnt.h).
const (
	accessWriteData   = 0x00000002 // FILE_WRITE_DATA; FILE_ADD_FILE on a folder
	accessAppendData  = 0x00000004 // FILE_APPEND_DATA; FILE_ADD_SUBDIRECTORY on a folder
	accessDeleteChild = 0x00000040 // FILE_DELETE_CHILD
	accessDelete      = 0x00010000 // DELETE
	accessWriteDAC    = 0x00040000 // WRITE_DAC
	accessWriteOwner  = 0x00080000 // WRITE_OWNER
	accessGenericAll  = 0x10000000 // GENERIC_ALL
	accessGenericWr   = 0x40000000 // GENERIC_WRITE
)

// role is what a path is to the file being checked.
type role int

const (
	roleFile     role = iota // the file itself: may not be written, replaced or re-permitted
	roleFolder               // its folder: nothing may be added (a DLL beside the executable) or removed
	roleAncestor             // a folder above: nothing in it may be renamed or removed
)

// dangerous is the rights that let an account change what a path of
// role r holds.
func dangerous(r role) uint32 {
	common := uint32(accessWriteDAC | accessWriteOwner | accessGenericAll)
	switch r {
	case roleFile:
		return common | accessWriteData | accessAppendData | accessDelete | accessGenericWr
	case roleFolder:
		return common | accessWriteData | accessDeleteChild | accessDelete | accessGenericWr
	}
	// A folder above: adding to it (C:\ lets every user create folders)
	// changes nothing below; removing or renaming a child does.
	return common | accessDeleteChild | accessDelete
}

// AccessFunc reads the grants of a path to accounts other than
// Administrators, SYSTEM and TrustedInstaller; exists is false when the
// path is not there.
type AccessFunc func(path string) (grants []Grant, exists bool, err error)

// InstallError is an install refused for its input (exit 2): one line
// naming what was wrong and what is accepted.
type InstallError struct{ Msg string }

func (e *InstallError) Error() string { return e.Msg }

// chain is a Windows path and every folder above it, the path first:
// C:\a\b.exe, C:\a, C:\.
func chain(p string) []string {
	p = strings.TrimRight(strings.ReplaceAll(p, "/", `\`), `\`)
	out := []string{p}
	for {
		i := strings.LastIndexByte(p, '\\')
		if i < 0 || (i == 2 && p[1] == ':' && len(p) == 3) {
			break
		}
		p = p[:i]
		if len(p) == 2 && p[1] == ':' {
			p += `\`
			out = append(out, p)
			break
		}
		if strings.HasPrefix(p, `\\`) && strings.Count(p, `\`) < 3 {
			break // \\server\share is the top of a UNC path
		}
		out = append(out, p)
	}
	return out
}

// writableBy says who other than Administrators, SYSTEM and
// TrustedInstaller can change file (or the folders above it), and where;
// "" when no one can.
func writableBy(file string, access AccessFunc) (who, where string, err error) {
	for i, p := range chain(file) {
		r := roleAncestor
		switch i {
		case 0:
			r = roleFile
		case 1:
			r = roleFolder
		}
		grants, exists, err := access(p)
		if err != nil {
			return "", "", fmt.Errorf("read the permissions of %s: %w", p, err)
		}
		if !exists {
			if i == 0 {
				return "", "", fmt.Errorf("%s does not exist", p)
			}
			continue
		}
		var names []string
		for _, g := range grants {
			if g.Mask&dangerous(r) != 0 && !contains(names, g.Who) {
				names = append(names, g.Who)
			}
		}
		if len(names) > 0 {
			return strings.Join(names, ", "), p, nil
		}
	}
	return "", "", nil
}

func contains(s []string, v string) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

// isAbs: a drive letter, a colon and a backslash, or a UNC path.
func isAbs(p string) bool {
	if strings.HasPrefix(p, `\\`) {
		return len(p) > 2
	}
	return len(p) >= 3 && (p[0]|0x20 >= 'a' && p[0]|0x20 <= 'z') && p[1] == ':' && (p[2] == '\\' || p[2] == '/')
}

// CheckServiceConfig refuses a --tls-config the LocalSystem service
// cannot trust: a relative path (the service starts in System32), a file
// that does not exist, or one that an account other than Administrators,
// SYSTEM and TrustedInstaller can change (the file or a folder above it).
func CheckServiceConfig(path string, access AccessFunc) error {
	if path == "" {
		return nil
	}
	if !isAbs(path) {
		return &InstallError{fmt.Sprintf("--tls-config %s: the service needs an absolute path (e.g. C:\\ProgramData\\latlab\\web.yml)", path)}
	}
	who, where, err := writableBy(path, access)
	if err != nil {
		return &InstallError{fmt.Sprintf("--tls-config: %v", err)}
	}
	if who != "" {
		return &InstallError{fmt.Sprintf("--tls-config %s: %s can change %s, and the service runs as LocalSystem: keep it where only Administrators can write (e.g. C:\\ProgramData\\latlab, made so with icacls)", path, who, where)}
	}
	return nil
}

// ServiceExe is the executable the service is registered with: exe when
// only Administrators, SYSTEM and TrustedInstaller can change it and the
// folders above it; otherwise a copy at programFiles\latlab\latlab.exe
// (copy true, why naming who could write the original), when that place
// is admin-only itself. It refuses when neither is.
func ServiceExe(exe, programFiles string, access AccessFunc) (target string, copy bool, why string, err error) {
	if !isAbs(exe) {
		return "", false, "", &InstallError{fmt.Sprintf("latlab's own path %s is not absolute", exe)}
	}
	who, where, err := writableBy(exe, access)
	if err != nil {
		return "", false, "", &InstallError{err.Error()}
	}
	if who == "" {
		return exe, false, "", nil
	}
	why = fmt.Sprintf("%s can change %s", who, where)
	if !isAbs(programFiles) {
		return "", false, "", &InstallError{fmt.Sprintf("%s, and there is no Program Files folder to copy latlab to: install from a folder only Administrators can write", why)}
	}
	dest := strings.TrimRight(programFiles, `\`) + `\latlab\latlab.exe`
	// The copy's folder may not exist yet: it inherits Program Files'
	// permissions, so Program Files decides.
	check := dest
	if _, exists, err := access(dest); err == nil && !exists {
		check = strings.TrimRight(programFiles, `\`) + `\latlab`
		if _, exists, err := access(check); err == nil && !exists {
			check = programFiles
		}
	}
	if w, wh, err := writableBy(check, access); err != nil || w != "" {
		if err == nil {
			err = fmt.Errorf("%s can change %s", w, wh)
		}
		return "", false, "", &InstallError{fmt.Sprintf("%s, and the copy's place is not safe either (%v): install from a folder only Administrators can write", why, err)}
	}
	return dest, true, why, nil
}
