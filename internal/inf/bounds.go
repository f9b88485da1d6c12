package inf

import (
	"fmt"

	"github.com/latlab/latlab/internal/textdec"
)

// Bounds of the work one analysis does. An INF is at most MaxInput bytes,
// but a few bytes of it can name a large section again and again
// (AddReg=R,R,R,...), chain thousands of Needs, or make a note of every
// line; these bounds keep the work and the memory in proportion to what
// a real driver package needs.
const (
	// MaxApplied bounds the section entries one List or Analyze (its
	// donor search included) processes: every field of every line of a
	// DDInstall, Needs or AddReg section counts once each time the
	// section is followed. An AddReg section is followed once per install
	// section however often it is named, and a listing follows each
	// install section once. A listing of the INFs in testdata processes
	// 280 to 1,220. Real vendor INFs need far more, in proportion to
	// their install sections times the AddReg sections each names:
	// Broadcom's bxnd.inf 15.4.12.1 (549 KB, 577 install sections, each
	// naming a dozen AddReg sections) takes 349,495 for a listing and
	// 352,269 for one device, a third of the former bound of 1<<20; ten
	// other network INFs of 186 KB to 1.7 MB take 18,741 to 142,802.
	// This bound is six times the most. At it a hostile file takes 0.2 s and 45 MB to refuse as a
	// listing and 125 MB with --device (the donor search keeps each
	// install section it resolved).
	MaxApplied = 1 << 21
	// MaxNeedsDepth bounds a chain of Needs= (real ones are one or two
	// sections deep); it also bounds the recursion that follows it.
	MaxNeedsDepth = 64
	// MaxNotes bounds the notes kept for one parse, install section,
	// listing or device report; the rest are counted in a last note.
	// The eleven real network INFs measured (docs/commands/inf.md) make
	// at most 2 in a listing (Broadcom's bcmwl63.inf: an Include= and a
	// Needs= in each of ten install sections naming a file not beside it,
	// 20 before such notes were said once each), Cirrus Logic's audio
	// CL_Audio.inf (2.6 MB) 22 (113 before).
	MaxNotes = 1000
	// MaxEntries and MaxFields bound the entries (the lines of its
	// sections) and their comma-separated fields one INF may hold.
	// MaxInput bytes of short lines are millions of entries, each kept
	// with its fields: 30 MiB of "a=b,c" lines made a listing take 5.4 GB
	// and 32 s, and one models line of 15 million hardware IDs 12 GB.
	// Real INFs are far below: IDT's audio STWRT64.INF (2.75 MB, UTF-16),
	// the largest measured, has 21,749 entries and 55,965 fields; of the
	// network INFs, Broadcom's bcmwl63.inf (1.1 MB, UTF-16) has the most
	// entries, 14,854, and Intel's NETwLv64.inf (785 KB) fields, 29,945.
	MaxEntries = 1 << 19
	MaxFields  = 1 << 20
	// MaxExpanded bounds the bytes %strkey% substitution produces for one
	// INF: a string value may be long, and a short line can name it many
	// times (a 1 MiB file naming a 1 MiB string 5,000 times asked for
	// 5 GB). A listing or a device of the INFs in testdata expands to
	// less than a third of the file's size; of the real network INFs
	// measured, the most is 517,879 bytes (a device of Broadcom's
	// bxnd.inf, 549 KB).
	MaxExpanded = 2 * MaxInput
	// MaxListed bounds the devices, and their hardware and compatible
	// IDs, one listing reports over every models section it shows: each
	// is kept, and printed, on its own line. Realtek's Netrtle.inf
	// 5.810 (1.7 MB, UTF-16), the most of the real INFs measured, lists
	// 12,720 in its three models sections.
	MaxListed = 1 << 18
)

// The bounds as the analysis applies them: always the constants above,
// variables only so that a test can lower them and prove each bound on
// an input of kilobytes (TestBoundsAsDocumented checks the values they
// start at).
var (
	maxApplied        = MaxApplied
	maxEntries        = MaxEntries
	maxFields         = MaxFields
	maxExpanded int64 = MaxExpanded
	maxListed         = MaxListed
)

// work counts the entries an analysis has processed (maxApplied).
type work struct {
	entries int
	sizes   map[*Section]int
}

// charge counts the entries of sec, each comma-separated field of a
// line one entry (AddReg=R,R,R is three), and fails once the analysis
// has processed more than maxApplied.
func (w *work) charge(f *File, sec *Section) error {
	n, ok := w.sizes[sec]
	if !ok {
		for _, l := range sec.Lines {
			n += max(1, len(l.Fields))
		}
		if w.sizes == nil {
			w.sizes = map[*Section]int{}
		}
		w.sizes[sec] = n
	}
	w.entries += n
	if w.entries > maxApplied {
		return &ParseError{Line: sec.Line, Msg: fmt.Sprintf("following the install sections of %s takes more than %d section entries (the limit was reached in [%s]): expected Needs= and AddReg= that name sections a few times, not thousands", f.Name, maxApplied, textdec.Clip(sec.Name))}
	}
	return nil
}

// over reports whether the analysis ran out of work (maxApplied).
func (w *work) over() bool { return w.entries > maxApplied }

// noteSet keeps a list of notes once each, at most MaxNotes of them: a
// map instead of a search of the list, which made a file of many bad
// lines quadratic.
type noteSet struct {
	seen map[string]struct{}
	more int
}

// add appends n to list unless it is there already or the list is full.
func (s *noteSet) add(list *[]string, n string) {
	if s.seen == nil {
		s.seen = make(map[string]struct{}, len(*list))
		for _, x := range *list {
			s.seen[x] = struct{}{}
		}
	}
	if _, ok := s.seen[n]; ok {
		return
	}
	if len(*list) >= MaxNotes {
		s.more++
		return
	}
	s.seen[n] = struct{}{}
	*list = append(*list, n)
}

// finish says how many notes add left out, once.
func (s *noteSet) finish(list *[]string) {
	if s.more > 0 {
		what := "notes"
		if s.more == 1 {
			what = "note"
		}
		*list = append(*list, fmt.Sprintf("%d more %s not kept (latlab keeps the first %d; repeats are counted)", s.more, what, MaxNotes))
		s.more = 0
	}
}
