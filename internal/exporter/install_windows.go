package exporter

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"unsafe"

	"golang.org/x/sys/windows"
)

// trustedSIDs may change the service's files: Administrators, SYSTEM and
// TrustedInstaller (NT SERVICE\TrustedInstaller, which owns Windows' own
// files).
var trustedSIDs = func() []*windows.SID {
	var out []*windows.SID
	for _, t := range []windows.WELL_KNOWN_SID_TYPE{windows.WinBuiltinAdministratorsSid, windows.WinLocalSystemSid} {
		if s, err := windows.CreateWellKnownSid(t); err == nil {
			out = append(out, s)
		}
	}
	if s, err := windows.StringToSid("S-1-5-80-956008885-3418522649-1831038044-1853292631-2271478464"); err == nil {
		out = append(out, s)
	}
	return out
}()

func trusted(s *windows.SID) bool {
	for _, t := range trustedSIDs {
		if windows.EqualSid(s, t) {
			return true
		}
	}
	return false
}

func sidName(s *windows.SID) string {
	if a, d, _, err := s.LookupAccount(""); err == nil {
		if d != "" {
			return d + `\` + a
		}
		return a
	}
	return s.String()
}

// fileAccess reads path's owner and DACL: every allow entry for another
// account that applies to path itself, and an owner that is not trusted
// (an owner may always rewrite the DACL).
func fileAccess(path string) ([]Grant, bool, error) {
	if _, err := os.Lstat(path); errors.Is(err, os.ErrNotExist) {
		return nil, false, nil
	}
	sd, err := windows.GetNamedSecurityInfo(path, windows.SE_FILE_OBJECT, windows.OWNER_SECURITY_INFORMATION|windows.DACL_SECURITY_INFORMATION)
	if err != nil {
		return nil, true, fmt.Errorf("GetNamedSecurityInfo: %w", err)
	}
	var grants []Grant
	if owner, _, err := sd.Owner(); err == nil && owner != nil && !trusted(owner) {
		grants = append(grants, Grant{Who: "the owner " + sidName(owner), Mask: accessWriteDAC})
	}
	dacl, _, err := sd.DACL()
	if err != nil || dacl == nil {
		// No DACL: everyone has every right.
		return append(grants, Grant{Who: "Everyone (no permissions set)", Mask: accessGenericAll}), true, nil
	}
	for i := range uint32(dacl.AceCount) {
		var ace *windows.ACCESS_ALLOWED_ACE
		if err := windows.GetAce(dacl, i, &ace); err != nil {
			return nil, true, fmt.Errorf("GetAce %d: %w", i, err)
		}
		if ace.Header.AceType != windows.ACCESS_ALLOWED_ACE_TYPE || ace.Header.AceFlags&windows.INHERIT_ONLY_ACE != 0 {
			continue
		}
		sid := (*windows.SID)(unsafe.Pointer(&ace.SidStart))
		if trusted(sid) {
			continue
		}
		grants = append(grants, Grant{Who: sidName(sid), Mask: uint32(ace.Mask)})
	}
	return grants, true, nil
}

// PrepareInstall checks what the service will run and read before it is
// registered: the --tls-config (absolute, admin-only) and latlab's own
// executable, copied to %ProgramFiles%\latlab when its place is not
// admin-only. It returns the executable to register and, after a copy, a
// line saying why. Refusals are *InstallError.
func PrepareInstall(exe, tlsConfig string) (target, note string, err error) {
	if err := CheckServiceConfig(tlsConfig, fileAccess); err != nil {
		return "", "", err
	}
	pf, err := windows.KnownFolderPath(windows.FOLDERID_ProgramFiles, 0)
	if err != nil {
		pf = ""
	}
	target, copied, why, err := ServiceExe(exe, pf, fileAccess)
	if err != nil || !copied {
		return target, "", err
	}
	if err := copyExe(exe, target); err != nil {
		return "", "", fmt.Errorf("copy latlab to %s: %w", target, err)
	}
	// The copy inherited its folder's permissions: check them as found.
	if who, where, err := writableBy(target, fileAccess); err != nil || who != "" {
		if err == nil {
			err = fmt.Errorf("%s can change %s", who, where)
		}
		return "", "", &InstallError{fmt.Sprintf("latlab was copied to %s, but %v: not installed", target, err)}
	}
	return target, fmt.Sprintf("copied latlab to %s: the service runs as LocalSystem and %s", target, why), nil
}

// copyExe writes exe to dest through a temporary file renamed over it.
func copyExe(exe, dest string) error {
	if err := os.MkdirAll(filepath.Dir(dest), 0o755); err != nil {
		return err
	}
	in, err := os.Open(exe)
	if err != nil {
		return err
	}
	defer in.Close()
	tmp, err := os.CreateTemp(filepath.Dir(dest), ".latlab-*.exe")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := io.Copy(tmp, io.LimitReader(in, 1<<30)); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), dest)
}
