package doctor

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/latlab/latlab/internal/host"
	"github.com/latlab/latlab/internal/knob"
	"github.com/latlab/latlab/internal/result"
)

var planted = Identity{User: "zqtester", Host: "zq-box.example.org", Home: "/home/zqtester"}

func TestRedactor(t *testing.T) {
	win := Identity{User: "Bob", Host: "DESKTOP-7QX2", Home: `C:\Users\Bob`}
	for _, c := range []struct {
		id       Identity
		in, want string
	}{
		{planted, "/home/zqtester/games/x.exe", "~/games/x.exe"},
		{planted, "/home/other/x", "/home/<user>/x"},
		{planted, "zqtester zqtester@zq-box.example.org zq-box", "<user> <user>@<host> <host>"},
		{planted, "zqtesters and nozqtester stay", "zqtesters and nozqtester stay"},
		{planted, "mac 00:1A:2b:3c:4d:5e or 00-1a-2b-3c-4d-5e", "mac <mac> or <mac>"},
		{win, `C:\Users\Bob\Games\game.exe`, `~\Games\game.exe`},
		{win, `c:/users/bob/x`, `~/x`},
		{win, `D:\Users\Alice\x.exe`, `D:\Users\<user>\x.exe`},
		{win, "policy of desktop-7qx2 for bob", "policy of <host> for <user>"},
		// Names that are also latlab's words stay: they identify no one.
		{Identity{User: "root", Host: "vm", Home: "/root"}, "unknown (needs root) on kvm-clock, /root/x, /rootfs", "unknown (needs root) on kvm-clock, ~/x, /rootfs"},
		// Host names that are also words: only whole tokens go, in the
		// case the OS reports a name of letters alone.
		{Identity{Host: "vm"}, "vm.swappiness 10; fold the VM counters; kvm-clock; vm-1; on vm.", "vm.swappiness 10; fold the VM counters; kvm-clock; vm-1; on <host>."},
		{Identity{Host: "irq"}, "irq-affinity of irq 24 (/proc/irq/24/smp_affinity), irqbalance", "irq-affinity of <host> 24 (/proc/<host>/24/smp_affinity), irqbalance"},
		{Identity{Host: "net"}, "net.core.busy_poll, net.ipv4.tcp_sack, latlab net udp", "net.core.busy_poll, net.ipv4.tcp_sack, latlab <host> udp"},
		{Identity{Host: "game"}, "game.exe, the game profile, Game Mode", "game.exe, the <host> profile, Game Mode"},
		{Identity{Host: "vm-7"}, "on VM-7 and vm-7.local", "on <host> and vm-7.local"},
		{Identity{User: "Administrator", Home: `C:\Users\Administrator`}, "unknown (needs Administrator)", "unknown (needs Administrator)"},
	} {
		if got := c.id.Redactor()(c.in); got != c.want {
			t.Errorf("%+v: %q -> %q, want %q", c.id, c.in, got, c.want)
		}
		if leaks := c.id.Leaks([]byte(c.id.Redactor()(c.in))); len(leaks) > 0 {
			t.Errorf("%q redacted still leaks %v", c.in, leaks)
		}
	}
	if leaks := planted.Leaks([]byte(`{"path": "/home/zqtester/x", "host": "ZQ-BOX.example.org"}`)); len(leaks) != 3 {
		t.Errorf("leaks %v, want the home, the user (in it) and the host", leaks)
	}
}

// Every string of the result and the document is redacted, the file
// paths in the settings keep only their base name, and the samples stay.
func TestRedact(t *testing.T) {
	r := &Result{Profile: Standard, OS: "linux",
		Timer:    Timer{Facts: []Fact{{"note", "read on zq-box"}}},
		Wake:     &Probe{Name: "wake", What: "by zqtester", Samples: []int64{1, 2, 3}},
		Settings: []Setting{{Knob: "qos-dscp", Target: "zqtester's policy", Value: "DSCP 46", Meaning: "/home/zqtester/game.exe udp", Verdict: knob.Changed, Reason: "r"}},
		Next:     []Step{}}
	doc, err := Document(host.Facts{}, r, map[string]string{"bundle": "/home/zqtester/out/checkup.zip", "root": "/", "quick": "true"})
	if err != nil {
		t.Fatal(err)
	}
	doc.Notes = append(doc.Notes, "written by zqtester")
	rr, rd, err := Redact(r, doc, planted)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(rd)
	if leaks := planted.Leaks(b); len(leaks) > 0 {
		t.Errorf("document leaks %v: %s", leaks, b)
	}
	if rd.Settings["bundle"] != "checkup.zip" || rd.Settings["root"] != "/" || rd.Kind != Kind.Name() || rd.Schema != result.Schema {
		t.Errorf("document %+v", rd)
	}
	back, err := FromDocument(rd)
	if err != nil || back.Settings[0].Meaning != "~/game.exe udp" || back.Settings[0].Target != "<user>'s policy" {
		t.Errorf("payload %+v %v", back, err)
	}
	if len(rr.Wake.Samples) != 3 || !strings.Contains(rr.Wake.What, "<user>") || r.Wake.What != "by zqtester" {
		t.Errorf("redacted %+v, original %+v", rr.Wake, r.Wake)
	}
}

// Whatever the text, what the redactor returns names no one: the bundle's
// final scan never finds what the redactor let through.
func FuzzRedactor(f *testing.F) {
	for _, s := range []string{"", "/home/zqtester/x", "zqtester@zq-box.example.org", `C:\Users\zqtester\a`, "00:1a:2b:3c:4d:5e",
		"zqtester zqtester zqtester", "zq-box.zq-box", "/home/zqtester/home/zqtester", "ZQTESTER/ZQ-BOX"} {
		f.Add(s)
	}
	red := planted.Redactor()
	f.Fuzz(func(t *testing.T, s string) {
		if leaks := planted.Leaks([]byte(red(s))); len(leaks) > 0 {
			t.Errorf("%q -> %q leaks %v", s, red(s), leaks)
		}
	})
}

// A cancelled check-up measures nothing and says so.
func TestRunCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	r, err := Run(ctx, tiny(ForProfile(Standard)))
	if err != nil || r.Sleep != nil || r.Wake != nil || !strings.Contains(strings.Join(r.Notes, " "), "interrupted") || len(r.Settings) == 0 {
		t.Errorf("%v %+v", err, r)
	}
}
