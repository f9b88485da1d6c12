package exporter

import (
	"errors"
	"strings"
	"testing"
)

// fakeACL is the permissions of a Windows tree, as the security
// descriptors would give them: path -> grants to untrusted accounts.
type fakeACL map[string][]Grant

func (f fakeACL) access(p string) ([]Grant, bool, error) {
	g, ok := f[p]
	return g, ok, nil
}

var (
	users     = Grant{Who: `BUILTIN\Users`, Mask: 0x001200a9}                    // read and execute
	usersAdd  = Grant{Who: `BUILTIN\Users`, Mask: accessAppendData}              // C:\: create folders
	bobFull   = Grant{Who: `DESKTOP\bob`, Mask: 0x001f01ff}                      // FILE_ALL_ACCESS
	authWrite = Grant{Who: `NT AUTHORITY\Authenticated Users`, Mask: 0x001301bf} // Modify
)

// A machine: Program Files and ProgramData admin-only (C:\ lets users
// add folders, which changes nothing below), bob's Downloads his own.
func machine() fakeACL {
	return fakeACL{
		`C:\`:                                      {users, usersAdd},
		`C:\Program Files`:                         {users},
		`C:\Program Files\tools`:                   {users},
		`C:\Program Files\tools\latlab.exe`:        {users},
		`C:\Users`:                                 {users},
		`C:\Users\bob`:                             {bobFull},
		`C:\Users\bob\Downloads`:                   {bobFull},
		`C:\Users\bob\Downloads\latlab.exe`:        {bobFull},
		`C:\ProgramData`:                           {users},
		`C:\ProgramData\latlab`:                    {users},
		`C:\ProgramData\latlab\web.yml`:            {users},
		`C:\ProgramData\open`:                      {users, authWrite},
		`C:\ProgramData\open\web.yml`:              {users},
		`C:\ProgramData\latlab\bob.yml`:            {users, {Who: "the owner DESKTOP\\bob", Mask: accessWriteDAC}},
		`C:\Program Files\tools\dll-plantable.exe`: {users},
	}
}

func TestServiceExe(t *testing.T) {
	m := machine()
	tests := []struct {
		name, exe, pf string
		target        string
		copy          bool
		err           string
	}{
		{"admin-only folder", `C:\Program Files\tools\latlab.exe`, `C:\Program Files`, `C:\Program Files\tools\latlab.exe`, false, ""},
		{"downloads: copied", `C:\Users\bob\Downloads\latlab.exe`, `C:\Program Files`, `C:\Program Files\latlab\latlab.exe`, true, ""},
		{"downloads, no program files", `C:\Users\bob\Downloads\latlab.exe`, ``, "", false, `DESKTOP\bob can change C:\Users\bob\Downloads\latlab.exe, and there is no Program Files folder`},
		{"relative", `latlab.exe`, `C:\Program Files`, "", false, "is not absolute"},
		{"missing", `C:\Program Files\tools\gone.exe`, `C:\Program Files`, "", false, `C:\Program Files\tools\gone.exe does not exist`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			target, cp, why, err := ServiceExe(tt.exe, tt.pf, m.access)
			if tt.err != "" {
				var ie *InstallError
				if err == nil || !errors.As(err, &ie) || !strings.Contains(err.Error(), tt.err) || strings.Contains(err.Error(), "\n") {
					t.Fatalf("%q %v %v: want InstallError %q", target, cp, err, tt.err)
				}
				return
			}
			if err != nil || target != tt.target || cp != tt.copy {
				t.Fatalf("%q copy %v (%v), want %q copy %v", target, cp, err, tt.target, tt.copy)
			}
			if cp && why != `DESKTOP\bob can change C:\Users\bob\Downloads\latlab.exe` {
				t.Errorf("why %q", why)
			}
		})
	}
	// A folder others can add files to (a DLL beside the executable) is
	// refused, even when the file itself is not writable.
	m[`C:\Program Files\tools`] = []Grant{users, {Who: `BUILTIN\Users`, Mask: accessWriteData}}
	if target, cp, _, err := ServiceExe(`C:\Program Files\tools\latlab.exe`, `C:\Program Files`, m.access); err != nil || !cp || target != `C:\Program Files\latlab\latlab.exe` {
		t.Errorf("plantable folder: %q copy %v %v, want the copy", target, cp, err)
	}
}

func TestCheckServiceConfig(t *testing.T) {
	m := machine()
	tests := []struct{ path, err string }{
		{``, ""},
		{`C:\ProgramData\latlab\web.yml`, ""},
		{`web.yml`, `--tls-config web.yml: the service needs an absolute path`},
		{`.\conf\web.yml`, "needs an absolute path"},
		{`C:\Users\bob\Downloads\web.yml`, `does not exist`},
		{`C:\ProgramData\open\web.yml`, `--tls-config C:\ProgramData\open\web.yml: NT AUTHORITY\Authenticated Users can change C:\ProgramData\open, and the service runs as LocalSystem`},
		{`C:\ProgramData\latlab\bob.yml`, `the owner DESKTOP\bob can change C:\ProgramData\latlab\bob.yml`},
	}
	for _, tt := range tests {
		err := CheckServiceConfig(tt.path, m.access)
		if tt.err == "" {
			if err != nil {
				t.Errorf("%q: %v", tt.path, err)
			}
			continue
		}
		var ie *InstallError
		if err == nil || !errors.As(err, &ie) || !strings.Contains(err.Error(), tt.err) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%q: %v, want %q", tt.path, err, tt.err)
		}
	}
}

func TestChain(t *testing.T) {
	for in, want := range map[string]string{
		`C:\a\b\c.exe`:         `C:\a\b\c.exe|C:\a\b|C:\a|C:\`,
		`C:\x.exe`:             `C:\x.exe|C:\`,
		`\\srv\share\d\x.yml`:  `\\srv\share\d\x.yml|\\srv\share\d|\\srv\share`,
		`C:/ProgramData/w.yml`: `C:\ProgramData\w.yml|C:\ProgramData|C:\`,
	} {
		if got := strings.Join(chain(in), "|"); got != want {
			t.Errorf("chain(%q) = %q, want %q", in, got, want)
		}
	}
}
