package capture

import (
	"bytes"
	"encoding/binary"
	"reflect"
	"testing"

	"github.com/gopacket/gopacket/layers"

	"github.com/latlab/latlab/internal/testutil"
)

// nextPcap24 fills the record field by field instead of assigning a
// literal: into a record filled with non-zero values it reads what it
// reads into a zero one. A field added to Record and not to nextPcap24
// would keep the previous record's value.
func TestNextPcap24SetsEveryField(t *testing.T) {
	file := writePcap(binary.LittleEndian, false, layers.LinkTypeEthernet, [][]byte{{1, 2, 3, 4}}, 0)
	read := func(rec *Record) {
		t.Helper()
		r, err := NewReader(bytes.NewReader(file))
		if err != nil {
			t.Fatal(err)
		}
		if r.fast == nil {
			t.Fatal("a pcap 2.4 file is not read by nextPcap24")
		}
		if err := r.Next(rec); err != nil {
			t.Fatal(err)
		}
	}
	setsEveryField(t, "nextPcap24", read)
}

// setsEveryField checks that read, a reader's way of filling a record,
// leaves nothing of what the record held: into a record filled with
// non-zero values it reads what it reads into a zero one.
func setsEveryField(t *testing.T, name string, read func(*Record)) {
	t.Helper()
	var zero, filled Record
	testutil.FillNonZero(&filled)
	read(&zero)
	read(&filled)
	if !reflect.DeepEqual(zero, filled) {
		t.Errorf("%s leaves a field as it was:\n%+v\nwant\n%+v", name, filled, zero)
	}
}
