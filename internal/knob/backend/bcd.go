package backend

import (
	"bufio"
	"fmt"
	"io"
	"os/exec"
	"strings"

	"github.com/latlab/latlab/internal/systool"
)

// BCDObject is one object of `bcdedit /enum` output: its heading and its
// elements in order.
type BCDObject struct {
	Heading  string
	Elements []BCDElement
}

// BCDElement is one "name  value" line (continuation lines appended).
type BCDElement struct{ Name, Value string }

// Get returns the value of element name (case-insensitive).
func (o BCDObject) Get(name string) (string, bool) {
	for _, e := range o.Elements {
		if strings.EqualFold(e.Name, name) {
			return e.Value, true
		}
	}
	return "", false
}

// ParseBCDEnum reads the text of `bcdedit /enum ...`: objects, each a
// heading line, a line of dashes, then elements as a name, spaces and a
// value; a value that goes on (displayorder lists) continues on lines
// that start with spaces.
func ParseBCDEnum(r io.Reader) ([]BCDObject, error) {
	sc := bufio.NewScanner(r)
	var objs []BCDObject
	var prev string
	lineNo := 0
	for sc.Scan() {
		lineNo++
		line := strings.TrimRight(sc.Text(), "\r \t")
		line = strings.TrimPrefix(line, "\ufeff")
		switch {
		case line == "":
		case strings.Trim(line, "-") == "" && len(line) >= 3:
			if prev == "" {
				return nil, fmt.Errorf("bcdedit output line %d: a line of dashes without a heading", lineNo)
			}
			objs = append(objs, BCDObject{Heading: prev})
		case line[0] == ' ' || line[0] == '\t':
			if len(objs) == 0 || len(objs[len(objs)-1].Elements) == 0 {
				return nil, fmt.Errorf("bcdedit output line %d: continuation line %q without an element", lineNo, strings.TrimSpace(line))
			}
			el := &objs[len(objs)-1].Elements[len(objs[len(objs)-1].Elements)-1]
			el.Value += " " + strings.TrimSpace(line)
		default:
			if len(objs) > 0 {
				name, val, _ := strings.Cut(line, " ")
				objs[len(objs)-1].Elements = append(objs[len(objs)-1].Elements, BCDElement{Name: name, Value: strings.TrimSpace(val)})
			}
		}
		prev = line
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	// A heading read as an element of the previous object belongs to the next one.
	for i := 0; i+1 < len(objs); i++ {
		if n := len(objs[i].Elements); n > 0 {
			last := objs[i].Elements[n-1]
			if strings.TrimSpace(last.Name+" "+last.Value) == objs[i+1].Heading {
				objs[i].Elements = objs[i].Elements[:n-1]
			}
		}
	}
	if len(objs) == 0 {
		return nil, fmt.Errorf("bcdedit output has no object (no heading followed by a line of dashes)")
	}
	return objs, nil
}

// BCD reads and writes elements of BCD objects by running bcdedit. Loc
// Path is the object ({current}), Name the element (tscsyncpolicy).
type BCD struct {
	// Run runs bcdedit with args and returns its standard output; tests
	// replace it.
	Run func(args ...string) ([]byte, error)
}

// NewBCD runs the real bcdedit, System32's (never one found on PATH).
func NewBCD() *BCD {
	return &BCD{Run: func(args ...string) ([]byte, error) {
		exe, err := systool.Path(systool.Bcdedit)
		if err != nil {
			return nil, err
		}
		out, err := exec.Command(exe, args...).CombinedOutput()
		if err != nil {
			return out, fmt.Errorf("bcdedit %s: %v: %s", strings.Join(args, " "), err, strings.TrimSpace(string(out)))
		}
		return out, nil
	}}
}

func (b *BCD) object(path string) (BCDObject, error) {
	out, err := b.Run("/enum", path)
	if err != nil {
		return BCDObject{}, err
	}
	objs, err := ParseBCDEnum(strings.NewReader(string(out)))
	if err != nil {
		return BCDObject{}, err
	}
	// Each object's first element is its identifier. bcdedit translates
	// that element's label ("Bezeichner" on a German Windows,
	// "identificateur" on a French one, "标识符" on a Chinese one) but not
	// its value, so the object is found by the value of its first element.
	for _, o := range objs {
		if len(o.Elements) > 0 && strings.EqualFold(o.Elements[0].Value, path) {
			return o, nil
		}
	}
	if len(objs) == 1 {
		return objs[0], nil // /enum {current} prints that one object
	}
	return BCDObject{}, fmt.Errorf("bcdedit /enum %s printed %d objects, none with the identifier %s", path, len(objs), path)
}

func (b *BCD) Read(l Loc) (Value, error) {
	o, err := b.object(l.Path)
	if err != nil {
		return Value{}, err
	}
	if v, ok := o.Get(l.Name); ok {
		return Value{Type: TypeBCD, Data: []byte(v)}, nil
	}
	return Absent, nil
}

func (b *BCD) Write(l Loc, v Value) error {
	var err error
	if v.IsAbsent() {
		_, err = b.Run("/deletevalue", l.Path, l.Name)
	} else {
		_, err = b.Run("/set", l.Path, l.Name, strings.ToLower(strings.TrimSpace(string(v.Data))))
	}
	return err
}

// CheckWrite reads the object: bcdedit refuses to open the store without
// elevation, for reading as for writing.
func (b *BCD) CheckWrite(l Loc) error {
	_, err := b.object(l.Path)
	return err
}
