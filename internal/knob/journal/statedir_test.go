package journal

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/latlab/latlab/internal/knob/backend"
	"github.com/latlab/latlab/internal/testutil"
)

func TestStrictModes(t *testing.T) {
	for _, c := range []struct {
		uid, mode uint32
		euid      int
		want      string
	}{
		{0, 0o700, 0, ""},
		{0, 0o755, 0, ""},
		{0, 0o600, 0, ""},
		{0, 0o1777, 0, "writable by group or others"},
		{0, 0o770, 0, "writable by group or others"},
		{0, 0o702, 0, "writable by group or others"},
		{1000, 0o700, 0, "owned by uid 1000"},
		{1000, 0o777, 0, "owned by uid 1000 and writable by group or others"},
		{1000, 0o777, 1000, ""}, // not root: nothing of the system is at stake
	} {
		err := strictModes("/s d", true, c.uid, c.mode, c.euid)
		if c.want == "" {
			if err != nil {
				t.Errorf("uid %d mode %o euid %d: %v", c.uid, c.mode, c.euid, err)
			}
			continue
		}
		fix := "chmod go-w '/s d'"
		if c.uid != 0 {
			fix = "chown root '/s d'"
		}
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "fix: "+fix) || strings.Contains(err.Error(), "\n") {
			t.Errorf("uid %d mode %o: %v, want %q and the fix on one line", c.uid, c.mode, err, c.want)
		}
	}
}

func TestStrictACL(t *testing.T) {
	const self = "S-1-5-21-1-2-3-1001"
	full := uint32(0x1f01ff)
	read := uint32(0x1200a9)
	for _, c := range []struct {
		name  string
		owner string
		aces  []aceInfo
		null  bool
		want  string
	}{
		{"created by latlab", sidAdministrators, []aceInfo{{SID: sidSystem, Mask: full}, {SID: sidAdministrators, Mask: full}, {SID: self, Mask: full}}, false, ""},
		{"users may read", sidAdministrators, []aceInfo{{SID: sidSystem, Mask: full}, {SID: "S-1-5-32-545", Mask: read}}, false, ""},
		{"owned by a user", "S-1-5-21-1-2-3-1002", []aceInfo{{SID: sidSystem, Mask: full}}, false, "owned by S-1-5-21-1-2-3-1002"},
		// What a plain sub-directory of %ProgramData% inherits.
		{"users may add files", sidAdministrators, []aceInfo{{SID: sidSystem, Mask: full}, {SID: "S-1-5-32-545", Mask: 0x116}}, false, "S-1-5-32-545 may change it"},
		{"everyone may delete", sidSystem, []aceInfo{{SID: "S-1-1-0", Mask: 0x10000}}, false, "S-1-1-0 may change it"},
		{"generic write", sidSystem, []aceInfo{{SID: "S-1-5-11", Mask: 0x40000000}}, false, "S-1-5-11 may change it"},
		{"inherit-only entries do not apply", sidSystem, []aceInfo{{SID: "S-1-5-32-545", Mask: full, Flags: aceInheritOnly}, {SID: sidCreatorOwner, Mask: full}}, false, ""},
		{"deny entries are no grant", sidSystem, []aceInfo{{Type: 1, SID: "S-1-1-0", Mask: full}}, false, ""},
		{"no ACL", sidSystem, nil, true, "no ACL"},
	} {
		err := strictACL(`C:\ProgramData\latlab`, c.owner, c.aces, c.null, self)
		if c.want == "" {
			if err != nil {
				t.Errorf("%s: %v", c.name, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), `fix: icacls "C:\ProgramData\latlab" /setowner`) {
			t.Errorf("%s: %v, want %q and the fix", c.name, err, c.want)
		}
	}
}

// dsackLoc is where an entry of the tests says it changed a value.
var dsackLoc = backend.Loc{Backend: backend.BackendFile, Path: "proc/sys/net/ipv4/tcp_dsack"}

// The journal is read only up to maxJournal, with a message naming the
// cap, and never written beyond what can be read back.
func TestJournalSizeCapped(t *testing.T) {
	dir := testutil.TempDir(t)
	j, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	old := maxJournal
	defer func() { maxJournal = old }()
	maxJournal = 4 << 10
	for len(j.Entries) < 4 {
		j.Add([]Entry{{Knob: "tcp-dsack", Loc: dsackLoc, Original: backend.FileValue("1\n"), New: backend.FileValue("0\n"), State: StateApplied}})
	}
	if err := j.Save(); err != nil {
		t.Fatal(err)
	}
	for len(j.Entries) < 20 {
		j.Add([]Entry{{Knob: "tcp-dsack", Loc: dsackLoc, Original: backend.FileValue("1\n"), New: backend.FileValue("0\n"), State: StateApplied}})
	}
	if err := j.Save(); err == nil || !strings.Contains(err.Error(), "would grow over 4 KiB") {
		t.Fatalf("save over the cap: %v", err)
	}
	p := filepath.Join(dir, File)
	if err := os.Truncate(p, maxJournal+1); err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf("journal %s is over 4 KiB, the most latlab reads", p)
	if _, err := Read(dir); err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("read of an oversized journal: %v, want %q", err, want)
	}
}
