package capture

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"testing"
)

// pcap files of every old format version, as tshark reads them: the
// same frames at the same times with the same lengths, decoding alike.
func TestOldPcapMatchesTshark(t *testing.T) {
	// In parallel with the package's other parallel tests: it mostly
	// waits on tshark, reading files of its own.
	t.Parallel()
	src, err := os.ReadFile("testdata/ssh.pcap")
	if err != nil {
		t.Fatal(err)
	}
	fddi, err := os.ReadFile("testdata/netmon/fddi.pcap")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	write := func(name string, b []byte) {
		p := filepath.Join(dir, name+".pcap")
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		checkFramesTshark(t, p)
	}
	for _, c := range oldPcapCases() {
		write(c.name, c.build(t, src, 80))
	}
	aix := oldPcapFile{order: binary.BigEndian, magic: magicPcapUs, major: 2, minor: 2, network: 15, oldOrder: true, nanos: true, fddiPad: true}
	write("aix-fddi", aix.build(t, fddi, 1000))
}
