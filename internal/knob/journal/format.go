package journal

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/latlab/latlab/internal/lazy"
)

// The journal file, format 2: JSON, one entry per line, each entry with
// the SHA-256 of its bytes, and the file with the SHA-256 of everything
// before its own:
//
//	{"version":2,"next_id":3,"next_set":3,"entries":[
//	{"sum":"<sha256 of the entry>","entry":{"id":1,...}},
//	{"sum":"...","entry":{"id":2,...}}
//	],"sum":"<sha256 of the file up to here>"}
//
// An entry is trusted only when its bytes match its sum and it decodes
// to a valid entry; one that does not is a Damage, reported with its id
// and line and left alone (kept in the file as it was found). The file's
// sum finds damage outside the entries (the counters, the layout). Format
// 1, an indented JSON document without sums, is still read: its entries
// are checked for what can be checked without sums, and the next save
// writes format 2.

// Damage is a journal line that cannot be trusted.
type Damage struct {
	Line int    `json:"line"`
	ID   int    `json:"id,omitempty"` // the id the line records, when it can be read
	Why  string `json:"why"`

	raw   []byte // the line as found, kept in the journal
	after int    // the number of trusted entries before it
}

// String names the damaged entry: its id as far as it can be read, and
// its line (format 2).
func (d Damage) String() string {
	switch {
	case d.ID > 0 && d.Line > 0:
		return fmt.Sprintf("entry %d (line %d)", d.ID, d.Line)
	case d.ID > 0:
		return fmt.Sprintf("entry %d", d.ID)
	}
	return fmt.Sprintf("line %d", d.Line)
}

var (
	headerRE = lazy.Regexp(`^\{"version":([0-9]{1,9}),"next_id":([0-9]{1,9}),"next_set":([0-9]{1,9}),"entries":\[$`)
	footerRE = lazy.Regexp(`^\],"sum":"([0-9a-f]{64})"\}$`)
)

const (
	entryPrefix = `{"sum":"`
	entryMid    = `","entry":`
)

func sum(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// encode writes the journal in format 2; damaged lines stay where they
// were found, as they were found.
func (j *Journal) encode() ([]byte, error) {
	var lines [][]byte
	d := 0
	flush := func(upto int) {
		for d < len(j.Damaged) && j.Damaged[d].after <= upto {
			lines = append(lines, j.Damaged[d].raw)
			d++
		}
	}
	for i := range j.Entries {
		flush(i)
		e, err := json.Marshal(&j.Entries[i])
		if err != nil {
			return nil, err
		}
		lines = append(lines, []byte(entryPrefix+sum(e)+entryMid+string(e)+"}"))
	}
	flush(len(j.Entries) + len(j.Damaged))
	var b bytes.Buffer
	fmt.Fprintf(&b, `{"version":%d,"next_id":%d,"next_set":%d,"entries":[`+"\n", journalVersion, j.NextID, j.NextSet)
	for i, l := range lines {
		b.Write(l)
		if i < len(lines)-1 {
			b.WriteByte(',')
		}
		b.WriteByte('\n')
	}
	b.WriteString(`],"sum":"`)
	s := sum(b.Bytes())
	b.WriteString(s + `"}` + "\n")
	return b.Bytes(), nil
}

// decodeJournal reads a journal file into j. An error means nothing of it
// can be trusted; damage that leaves entries readable is in j.Damaged
// and j.FileDamage.
func decodeJournal(j *Journal, b []byte) error {
	if !bytes.HasPrefix(b, []byte(`{"version":2,`)) {
		// Format 1 was JSON in any layout. A format 2 file that one flip
		// made valid JSON in another shape never says version 1 (that is
		// two bits from 2): it goes on as a damaged format 2 file.
		var probe struct {
			Version int `json:"version"`
		}
		if json.Unmarshal(b, &probe) == nil && probe.Version == 1 {
			return decodeV1(j, b)
		}
	}
	if len(b) == 0 || b[len(b)-1] != '\n' {
		j.FileDamage = "it does not end with a newline (cut short?)"
	} else {
		b = b[:len(b)-1]
	}
	lines := bytes.Split(b, []byte("\n"))
	if len(lines) < 2 {
		return fmt.Errorf("it is not a journal (one line; a journal has a header and a footer line at least)")
	}
	header, footer, body := lines[0], lines[len(lines)-1], lines[1:len(lines)-1]
	fileOK := false
	if m := footerRE().FindSubmatch(footer); m != nil && j.FileDamage == "" {
		fileOK = sum(b[:len(b)-len(footer)+len(`],"sum":"`)]) == string(m[1])
	}
	if !fileOK && j.FileDamage == "" {
		j.FileDamage = "its checksum does not match"
	}
	h := headerRE().FindSubmatch(header)
	if h == nil {
		if fileOK {
			return fmt.Errorf("its first line is not a journal header")
		}
		j.FileDamage += "; its first line is not a journal header"
	} else {
		v, _ := strconv.Atoi(string(h[1]))
		if v != journalVersion {
			if fileOK {
				return fmt.Errorf("it has format %d; this latlab reads 1 and %d", v, journalVersion)
			}
			j.FileDamage += fmt.Sprintf("; its header says format %d", v)
		}
		j.NextID, _ = strconv.Atoi(string(h[2]))
		j.NextSet, _ = strconv.Atoi(string(h[3]))
	}
	seen := map[int]bool{}
	for i, l := range body {
		// The commas between entries are not checked: the file's sum
		// covers them, and a line removed by hand leaves one too many.
		l = bytes.TrimSuffix(l, []byte(","))
		e, id, why := decodeEntryLine(l)
		if why == "" && seen[e.ID] {
			why = "a second entry with this id"
		}
		if why != "" {
			j.damage(l, i+2, id, why)
			continue
		}
		seen[e.ID] = true
		j.Entries = append(j.Entries, e)
	}
	if h == nil || j.FileDamage != "" {
		// The counters may be damaged: never hand out an id or a set
		// number again.
		j.NextID, j.NextSet = max(j.NextID, 1), max(j.NextSet, 1)
	}
	for _, e := range j.Entries {
		j.NextID, j.NextSet = max(j.NextID, e.ID+1), max(j.NextSet, e.Set+1)
	}
	for _, d := range j.Damaged {
		j.NextID = max(j.NextID, d.ID+1)
	}
	if fileOK {
		j.FileDamage = ""
	}
	return nil
}

func (j *Journal) damage(raw []byte, line, id int, why string) {
	j.Damaged = append(j.Damaged, Damage{Line: line, ID: id, Why: why, raw: bytes.Clone(raw), after: len(j.Entries)})
}

// decodeEntryLine checks one entry line: its sum, then the entry.
func decodeEntryLine(l []byte) (Entry, int, string) {
	n := len(entryPrefix) + 64 + len(entryMid)
	if len(l) < n+2 || !bytes.HasPrefix(l, []byte(entryPrefix)) || string(l[len(entryPrefix)+64:n]) != entryMid || l[len(l)-1] != '}' {
		return Entry{}, recordedID(l), "not an entry line with a checksum"
	}
	raw := l[n : len(l)-1]
	id := recordedID(raw)
	if sum(raw) != string(l[len(entryPrefix):len(entryPrefix)+64]) {
		return Entry{}, id, "its checksum does not match"
	}
	e, why := decodeEntry(raw)
	return e, id, why
}

// decodeEntry decodes and checks an entry: every field known, an id, a
// set and a state latlab writes.
func decodeEntry(raw []byte) (Entry, string) {
	var e Entry
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&e); err != nil {
		return Entry{}, "it does not decode: " + err.Error()
	}
	if dec.More() {
		return Entry{}, "it holds more than one entry"
	}
	switch {
	case e.ID <= 0 || e.Set <= 0:
		return Entry{}, fmt.Sprintf("id %d, set %d: both must be positive", e.ID, e.Set)
	case e.Knob == "":
		return Entry{}, "it names no knob"
	}
	switch e.State {
	case StatePending, StateApplied, StateReverted, StateGone:
	default:
		return Entry{}, fmt.Sprintf("state %q is none of pending, applied, reverted, gone", e.State)
	}
	return e, ""
}

// recordedID is the id a damaged entry records, when it can be read.
func recordedID(raw []byte) int {
	var p struct {
		ID int `json:"id"`
	}
	if json.Unmarshal(raw, &p) != nil || p.ID < 0 {
		return 0
	}
	return p.ID
}

// decodeV1 reads format 1, which has no checksums: entries are checked
// for what can be checked without them.
func decodeV1(j *Journal, b []byte) error {
	var v1 struct {
		Version int               `json:"version"`
		NextID  int               `json:"next_id"`
		NextSet int               `json:"next_set"`
		Entries []json.RawMessage `json:"entries"`
	}
	if err := json.Unmarshal(b, &v1); err != nil {
		return fmt.Errorf("it does not decode (%v)", err)
	}
	if v1.Version != 1 {
		return fmt.Errorf("it has format %d; this latlab reads 1 and %d", v1.Version, journalVersion)
	}
	j.NextID, j.NextSet = max(v1.NextID, 1), max(v1.NextSet, 1)
	seen := map[int]bool{}
	for _, raw := range v1.Entries {
		var c bytes.Buffer
		json.Compact(&c, raw)
		e, why := decodeEntry(raw)
		if why == "" && seen[e.ID] {
			why = "a second entry with this id"
		}
		if why != "" {
			j.damage(c.Bytes(), 0, recordedID(raw), "format 1 journal: "+why)
			continue
		}
		seen[e.ID] = true
		j.Entries = append(j.Entries, e)
		j.NextID, j.NextSet = max(j.NextID, e.ID+1), max(j.NextSet, e.Set+1)
	}
	for _, d := range j.Damaged {
		j.NextID = max(j.NextID, d.ID+1)
	}
	return nil
}
