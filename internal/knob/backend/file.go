package backend

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/latlab/latlab/internal/knob/internal/safefile"
)

// Files reads and writes files under a root directory: /proc and /sys on
// Linux, a fixture tree shaped like them in tests (global flag --root).
type Files struct{ Root string }

func (f Files) path(p string) string {
	return filepath.Join(f.Root, filepath.FromSlash(strings.TrimPrefix(p, "/")))
}

// maxFileRead bounds a read of a setting file: the longest, a CPU mask of
// 8192 CPUs, is under 2.5 KB; /proc/PID/stat under 1 KB.
const maxFileRead = 64 << 10

// Read returns the file's content; with Name "stat-field:N" only field N
// (1-based, as proc(5) counts) of a /proc/PID/stat line.
// A file that is not a regular file (a FIFO in a fixture tree would block
// forever) or holds more than maxFileRead bytes is an error.
func (f Files) Read(l Loc) (Value, error) {
	fh, err := f.openRead(l.Path, os.O_RDONLY|openNonblock)
	if errors.Is(err, fs.ErrNotExist) {
		return Absent, nil
	}
	if err != nil {
		return Value{}, fmt.Errorf("read %s: %w", l, err)
	}
	defer fh.Close()
	if st, err := safefile.Stat(fh); err != nil || !st.Regular {
		return Value{}, fmt.Errorf("read %s: not a regular file", l)
	}
	b, err := safefile.ReadLimited(fh, l.String(), maxFileRead)
	var tl *safefile.TooLargeError
	if errors.As(err, &tl) {
		return Value{}, fmt.Errorf("read %s: over %s, more than a setting file holds", l, safefile.SizeName(maxFileRead))
	}
	if err != nil {
		return Value{}, err
	}
	if n, ok := strings.CutPrefix(l.Name, "stat-field:"); ok {
		return statField(l, b, n)
	}
	if l.Name == NameSelected {
		return selectedWord(l, b)
	}
	return Value{Type: TypeFile, Data: b}, nil
}

// NameSelected, as a file Loc's Name, reads only the word the kernel
// marks as selected in a list such as "none voluntary (full) lazy"
// (debugfs sched/preempt) or "always [madvise] never": what writing
// the file takes back. A file of one bare word (a fixture tree latlab
// wrote) reads as that word.
const NameSelected = "selected"

func selectedWord(l Loc, b []byte) (Value, error) {
	choices, chosen := ChoiceList(string(b))
	if chosen == "" && len(choices) == 1 {
		chosen = choices[0]
	}
	if chosen == "" {
		return Value{}, fmt.Errorf("read %s: no selected value in %q", l, strings.TrimSpace(string(b)))
	}
	return FileValue(chosen + "\n"), nil
}

// statField picks a field of a /proc/PID/stat line; the command name (field
// 2) is in parentheses and may hold spaces, so counting starts after it.
func statField(l Loc, b []byte, n string) (Value, error) {
	var i int
	if _, err := fmt.Sscan(n, &i); err != nil || i < 3 {
		return Value{}, fmt.Errorf("read %s: bad field %q", l, n)
	}
	s := string(b)
	p := strings.LastIndexByte(s, ')')
	if p < 0 {
		return Value{}, fmt.Errorf("read %s: no command name in %q", l, s)
	}
	fields := strings.Fields(s[p+1:])
	if len(fields) < i-2 {
		return Value{}, fmt.Errorf("read %s: %d fields, want field %d", l, len(fields)+2, i)
	}
	return Value{Type: TypeFile, Data: []byte(fields[i-3])}, nil
}

// fileWriteStep, when set, is called between the steps of a write: the
// tests crash there to check that no crash point loses the value.
var fileWriteStep func(step string)

func writeStep(step string) {
	if fileWriteStep != nil {
		fileWriteStep(step)
	}
}

// Write stores v so that no crash point loses both the old and the new
// content. A kernel setting file (procfs, sysfs) takes a value in one
// write call and has nothing to truncate: it gets one write. Any other
// file (a fixture tree under --root) is replaced whole: a new file beside
// it, synced, renamed over it. Truncating and then writing would leave it
// empty if the process died in between. Files are never created or
// deleted: /proc and /sys files exist or the setting does not.
//
// A Loc named ChoiceName is a file that lists its choices and brackets the
// one in force ("always [madvise] never"): a write of such a list writes
// the bracketed word, the only form the kernel takes, and in a --root
// tree moves the bracket, as the kernel would then show the file. A Loc
// named NameSelected is written so too: the bare word to the kernel, the
// list with its mark moved in a --root tree.
func (f Files) Write(l Loc, v Value) error {
	if v.IsAbsent() {
		return fmt.Errorf("%s: a kernel setting file cannot be deleted", l)
	}
	var listed []byte // a --root tree's choice file with the bracket moved
	if l.Name == ChoiceName {
		word, err := ChosenWord(string(v.Data))
		if err != nil {
			return fmt.Errorf("write %s: %w", l, err)
		}
		// A kernel file is read only to check the word; a failed read
		// leaves the check to the kernel and the write.
		if cur, err := f.Read(l); err == nil && !cur.IsAbsent() {
			if listed, err = MoveBracket(string(cur.Data), word); err != nil {
				return fmt.Errorf("write %q to %s: %w", word, l, err)
			}
		}
		v = FileValue(word + "\n")
	}
	if l.Name == NameSelected {
		// The same in a --root tree for a list whose selection is read
		// (debugfs's sched/preempt): the mark moves to the word written.
		if cur, err := f.Read(Loc{Backend: l.Backend, Path: l.Path}); err == nil && !cur.IsAbsent() {
			if listed, err = MoveBracket(string(cur.Data), strings.TrimSpace(string(v.Data))); err != nil {
				return fmt.Errorf("write %q to %s: %w", strings.TrimSpace(string(v.Data)), l, err)
			}
		}
	}
	fh, err := f.open(l.Path, os.O_WRONLY|openNonblock)
	if err != nil {
		return fmt.Errorf("write %s: %w", l, err)
	}
	writeStep("opened")
	st, err := safefile.Stat(fh)
	if err == nil && st.Regular && !kernelFile(fh) {
		fh.Close()
		data := v.Data
		if listed != nil {
			data = listed
		}
		err = f.replace(l.Path, st.Perm, data)
	} else if err == nil {
		_, err = fh.Write(v.Data)
		if cerr := fh.Close(); err == nil {
			err = cerr
		}
	} else {
		fh.Close()
	}
	if err != nil {
		return fmt.Errorf("write %q to %s: %w", strings.TrimSpace(string(v.Data)), l, err)
	}
	return nil
}

// replaceFile puts data in path by renaming a new file over it: under
// the machine's own root, where only the kernel's files and root's are.
func replaceFile(path string, perm fs.FileMode, data []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".latlab-*")
	if err != nil {
		return err
	}
	return fillAndRename(tmp, perm, data,
		func() error { return os.Rename(tmp.Name(), path) },
		func() { os.Remove(tmp.Name()) })
}

// fillAndRename writes data to the new file tmp, syncs and closes it and
// renames it into place; on an error it removes tmp.
func fillAndRename(tmp *os.File, perm fs.FileMode, data []byte, rename func() error, remove func()) error {
	ok := false
	defer func() {
		if !ok {
			tmp.Close()
			remove()
		}
	}()
	if err := tmp.Chmod(perm); err != nil {
		return err
	}
	if _, err := tmp.Write(data); err != nil {
		return err
	}
	writeStep("written")
	if err := safefile.Sync(tmp); err != nil {
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	writeStep("closed")
	if err := rename(); err != nil {
		return err
	}
	ok = true
	writeStep("renamed")
	return nil
}

// CheckWrite opens the file for writing without writing: it fails the
// same way a write would for a missing file or a missing privilege.
func (f Files) CheckWrite(l Loc) error {
	fh, err := f.open(l.Path, os.O_WRONLY|openNonblock)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("%s does not exist", l)
		}
		return fmt.Errorf("cannot write %s: %w", l, err)
	}
	return fh.Close()
}

// List returns the sub-directories and files of a directory.
func (f Files) List(path string) (dirs, files []string, err error) {
	ents, err := f.readDir(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, fmt.Errorf("%s: %w", path, ErrNotFound)
	}
	if err != nil {
		return nil, nil, err
	}
	for _, e := range ents {
		isDir := e.IsDir()
		// /sys/class/net/eth0 is a link to a directory; in a --root tree
		// it is followed only while it stays inside the tree.
		if e.Type()&fs.ModeSymlink != 0 {
			isDir = f.linkIsDir(strings.TrimSuffix(path, "/") + "/" + e.Name())
		}
		if isDir {
			dirs = append(dirs, e.Name())
		} else {
			files = append(files, e.Name())
		}
	}
	sort.Strings(dirs)
	sort.Strings(files)
	return dirs, files, nil
}

// ChoiceName is the Loc name of a kernel file that lists its choices and
// brackets the one in force (/sys/kernel/mm/transparent_hugepage/enabled
// reads "always [madvise] never"). It is read whole, so the journal keeps
// the file as it was; it is written as the bare word, as the kernel wants.
const ChoiceName = "choice"

// ChosenWord is the word a choice file's content stands for: the
// bracketed one of a list, or a bare word.
func ChosenWord(s string) (string, error) {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '['); i >= 0 {
		j := strings.IndexByte(s[i:], ']')
		if j < 0 || strings.Count(s, "[") != 1 || strings.Count(s, "]") != 1 {
			return "", fmt.Errorf("%q: not a list with one bracketed choice", s)
		}
		s = s[i+1 : i+j]
	}
	if s == "" || strings.ContainsAny(s, " \t[]") {
		return "", fmt.Errorf("%q: not one choice", s)
	}
	return s, nil
}

// ChoiceList is the choices of a choice file's content and the one in
// force ("" when none is marked: the file holds a bare word).
func ChoiceList(s string) (choices []string, chosen string) {
	for _, w := range strings.Fields(s) {
		if m, ok := marked(w); ok {
			w, chosen = m, m
		}
		choices = append(choices, w)
	}
	return choices, chosen
}

// marked is the word inside the marks a kernel list puts around the
// choice in force: brackets ("always [madvise] never") or, in debugfs's
// sched/preempt, parentheses ("none voluntary (full) lazy").
func marked(w string) (string, bool) {
	if len(w) > 2 && (w[0] == '[' && w[len(w)-1] == ']' || w[0] == '(' && w[len(w)-1] == ')') {
		return w[1 : len(w)-1], true
	}
	return "", false
}

// MoveBracket is a choice file's content with word marked instead, as
// the kernel shows it after the write, in the marks and the spacing the
// file uses ("none voluntary (full) lazy \n" stays so laid out); nil when
// the file holds no list. A word the list lacks is refused, as the kernel
// refuses it (EINVAL).
func MoveBracket(cur, word string) ([]byte, error) {
	choices, chosen := ChoiceList(cur)
	if chosen == "" {
		return nil, nil
	}
	open, shut := "[", "]"
	if strings.Contains(cur, "("+chosen+")") {
		open, shut = "(", ")"
	}
	var out strings.Builder
	found := false
	for i := 0; i < len(cur); {
		j := i
		for j < len(cur) && !isSpace(cur[j]) {
			j++
		}
		if j == i {
			out.WriteByte(cur[i])
			i++
			continue
		}
		w := cur[i:j]
		if m, ok := marked(w); ok {
			w = m
		}
		if w == word {
			w, found = open+w+shut, true
		}
		out.WriteString(w)
		i = j
	}
	if !found {
		return nil, fmt.Errorf("%w: not one of %s", fs.ErrInvalid, strings.Join(choices, " "))
	}
	return []byte(out.String()), nil
}

func isSpace(b byte) bool {
	return b == ' ' || b == '\t' || b == '\n' || b == '\r' || b == '\v' || b == '\f'
}
