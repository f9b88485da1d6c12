// Command verify-pcap-corpus runs `latlab pcap tcp --events` and tshark
// over every capture in one or more corpora (directories, files, or git
// repositories to clone) and compares, frame by frame, the tcp.analysis
// flags, the D-SACK block and the duplicate-ACK number. It prints the
// files each tool reads and the disagreeing frames by class:
//
//   - capture: ...   the frame (or an earlier one of its TCP stream) was
//     decoded differently by latlab's capture reader: not decoded at all
//     (link type, encapsulation, IP fragment, a read that stopped early),
//     dropped as a duplicate, or given another payload length. The
//     analysis cannot agree on frames it was not given.
//   - allowed: ...   a Wireshark heuristic latlab deliberately does not
//     copy (allowList, each with its reason).
//   - tcpflow: ...   everything else: a difference in the TCP analysis.
//
// The public test corpora:
//
//	https://github.com/the-tcpdump-group/tcpdump#tests
//	https://github.com/zeek/zeek#testing/btest/Traces
//	https://gitlab.com/wireshark/wireshark#test/captures
//
// Usage (from the repository root; URLs are cloned with git into -cache):
//
//	go run ./scripts/verify-pcap-corpus [-j 2] [-v] DIR|FILE|URL[#SUBDIR]...
//
// It exits 1 when a frame disagrees for a reason of class tcpflow, or
// latlab refuses a file in which tshark decodes IP packets or stops
// reading one earlier, so that it can gate a release.
package main

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/latlab/latlab/internal/capture"
	"github.com/latlab/latlab/internal/tcpflow"
	"github.com/latlab/latlab/internal/testutil"
)

// allowList: Wireshark heuristics latlab chose not to copy. A disagreeing
// frame that one of them explains is counted apart, with the reason.
var allowList = []allowed{}

type allowed struct {
	name, reason string
	// match reports whether the heuristic explains the difference on
	// this frame.
	match func(f *fileResult, n int) bool
}

// exitCode is set by run; main exits with it once run's deferred
// clean-up is done.
var exitCode int

func main() {
	run()
	os.Exit(exitCode)
}

func run() {
	jobs := flag.Int("j", 2, "files compared at once")
	latlab := flag.String("latlab", "", "latlab binary (default: build ./cmd/latlab)")
	tshark := flag.String("tshark", "tshark", "tshark binary")
	cache := flag.String("cache", "", "where git URLs are cloned (default: the user cache dir, latlab-corpus)")
	verbose := flag.Bool("v", false, "list every file, not only those that disagree")
	examples := flag.Int("examples", 4, "example frames listed per class")
	maxSize := flag.Int64("max-size", 256<<20, "skip files larger than this many bytes")
	flag.Usage = func() {
		fmt.Fprintf(os.Stderr, "usage: go run ./scripts/verify-pcap-corpus [flags] DIR|FILE|URL[#SUBDIR]...\n")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() == 0 {
		flag.Usage()
		os.Exit(2)
	}
	if _, err := exec.LookPath(*tshark); err != nil {
		fatalf("tshark not found (%v): install it (apt-get install tshark)", err)
	}
	if *latlab == "" {
		*latlab = buildLatlab()
		defer os.RemoveAll(filepath.Dir(*latlab))
	}
	var files []string
	for _, arg := range flag.Args() {
		root, err := resolve(arg, *cache)
		if err != nil {
			fatalf("%s: %v", arg, err)
		}
		fs, err := candidates(root, *maxSize)
		if err != nil {
			fatalf("%s: %v", arg, err)
		}
		files = append(files, fs...)
	}
	out, _ := exec.Command(*tshark, "--version").Output()
	fmt.Printf("%s; %d candidate files\n", strings.SplitN(string(out), "\n", 2)[0], len(files))

	results := make([]*fileResult, len(files))
	var wg sync.WaitGroup
	next := make(chan int)
	for range max(1, *jobs) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				results[i] = compareFile(files[i], *latlab, *tshark)
			}
		}()
	}
	for i := range files {
		next <- i
	}
	close(next)
	wg.Wait()
	if report(os.Stdout, results, *verbose, *examples) {
		exitCode = 1
	}
}

func fatalf(format string, a ...any) {
	fmt.Fprintf(os.Stderr, "verify-pcap-corpus: "+format+"\n", a...)
	os.Exit(2)
}

func buildLatlab() string {
	dir, err := os.MkdirTemp("", "verify-pcap-corpus")
	if err != nil {
		fatalf("%v", err)
	}
	bin := filepath.Join(dir, "latlab")
	cmd := exec.Command("go", "build", "-o", bin, "./cmd/latlab")
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Run(); err != nil {
		fatalf("go build ./cmd/latlab (run from the repository root): %v", err)
	}
	return bin
}

var urlRE = regexp.MustCompile(`^(https?://|git@|ssh://)`)

// resolve turns an argument into a local path, cloning a git URL (with an
// optional #subdir) into the cache, or reusing an earlier clone.
func resolve(arg, cache string) (string, error) {
	if !urlRE.MatchString(arg) {
		if _, err := os.Stat(arg); err != nil {
			return "", err
		}
		return arg, nil
	}
	url, sub, _ := strings.Cut(arg, "#")
	if cache == "" {
		c, err := os.UserCacheDir()
		if err != nil {
			return "", err
		}
		cache = filepath.Join(c, "latlab-corpus")
	}
	name := strings.TrimSuffix(filepath.Base(url), ".git")
	dir := filepath.Join(cache, filepath.Base(filepath.Dir(url))+"+"+name)
	if _, err := os.Stat(filepath.Join(dir, ".git")); err != nil {
		if err := os.MkdirAll(cache, 0o755); err != nil {
			return "", err
		}
		fmt.Fprintf(os.Stderr, "cloning %s into %s\n", url, dir)
		cmd := exec.Command("git", "clone", "--depth", "1", url, dir)
		cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
		if err := cmd.Run(); err != nil {
			return "", fmt.Errorf("git clone failed (no network? give a local directory instead): %v", err)
		}
	}
	return filepath.Join(dir, sub), nil
}

// candidates lists the files under root that may be captures: everything
// but text (the corpora hold expected outputs and scripts beside the
// captures), in a stable order.
func candidates(root string, maxSize int64) ([]string, error) {
	var out []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if d.Name() == ".git" {
				return filepath.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() {
			return nil
		}
		if info, err := d.Info(); err != nil || info.Size() == 0 || info.Size() > maxSize {
			return nil
		}
		if isText(p) {
			return nil
		}
		out = append(out, p)
		return nil
	})
	sort.Strings(out)
	return out, err
}

func isText(p string) bool {
	f, err := os.Open(p)
	if err != nil {
		return true
	}
	defer f.Close()
	b := make([]byte, 512)
	n, _ := io.ReadFull(f, b)
	b = b[:n]
	return bytes.IndexByte(b, 0) < 0 && utf8.Valid(b[:max(0, len(b)-4)])
}

// frameView is what a tool says about one TCP frame.
type frameView struct {
	flags     tcpflow.Flag
	dsack     string
	dupAckNum int
}

func (v frameView) String() string {
	s := "[" + v.flags.String() + "]"
	if v.dsack != "" {
		s += " dsack " + v.dsack
	}
	if v.dupAckNum != 0 {
		s += fmt.Sprintf(" dupack#%d", v.dupAckNum)
	}
	return s
}

// tsharkFrame is tshark's view of a TCP frame plus what the classes need.
type tsharkFrame struct {
	frameView
	stream    int
	tcpLen    int
	protocols string
}

// latlabFrame is how latlab's capture reader decoded a frame.
type latlabFrame struct {
	decoded  bool // an analysable TCP segment
	fragment bool
	l4Bad    bool // TCP header cut short or malformed
	len      int
	stream   int
}

type fileResult struct {
	path       string
	tsharkErr  string           // tshark could not read the file at all
	tsharkNote string           // tshark read part of it
	latlabErr  string           // latlab refused the file, or stopped early
	refused    bool             // latlab analysed nothing
	frames     int              // TCP frames tshark analysed
	agree      int              // frames latlab analysed, with tshark's flags
	undecoded  map[string][]int // frames without flags from tshark that latlab did not analyse, by reason
	diffs      []diff
	ts         map[int]tsharkFrame
	decDefault map[int]latlabFrame
	decOff     map[int]latlabFrame
	readStop   int // latlab's reader stopped early after this many frames; 0: it did not
}

type diff struct {
	frame  int
	class  string
	latlab frameView
	tshark frameView
}

var tsharkFields = func() []string {
	f := []string{"frame.number", "tcp.stream", "tcp.len", "frame.protocols",
		"tcp.options.sack.dsack_le", "tcp.options.sack.dsack_re", "tcp.analysis.duplicate_ack_num"}
	for _, fi := range tcpflow.AllFlags {
		f = append(f, fi.Wireshark)
	}
	return f
}()

func compareFile(path, latlab, tshark string) *fileResult {
	r := &fileResult{path: path}
	if !r.runTshark(tshark) {
		return r
	}
	ll, ok := r.runLatlab(latlab)
	if !ok {
		r.refused = true
		for _, f := range r.ts {
			if f.stream >= 0 {
				r.frames++
			}
		}
		return r
	}
	var frames []int
	for n, f := range r.ts {
		if f.stream >= 0 {
			frames = append(frames, n)
		}
	}
	for n := range ll {
		if f, ok := r.ts[n]; !ok || f.stream < 0 {
			frames = append(frames, n)
		}
	}
	sort.Ints(frames)
	r.decode()
	for _, n := range frames {
		t, inTS := r.ts[n]
		if inTS && t.stream >= 0 {
			r.frames++
		}
		if ll[n] == t.frameView {
			if inTS && !r.decDefault[n].decoded {
				// Agreement by default: no flags from either, but latlab
				// never saw the segment.
				if r.undecoded == nil {
					r.undecoded = map[string][]int{}
				}
				why := r.issue(n)
				r.undecoded[why] = append(r.undecoded[why], n)
				continue
			}
			r.agree++
			continue
		}
		d := diff{frame: n, latlab: ll[n], tshark: t.frameView}
		d.class = r.classify(&d)
		r.diffs = append(r.diffs, d)
	}
	return r
}

func (r *fileResult) runTshark(bin string) bool {
	rows, stderr, err := testutil.TsharkFields(bin, r.path, []string{"-E", "occurrence=f"}, tsharkFields)
	msg := tsharkMessage(stderr)
	r.ts = map[int]tsharkFrame{}
	for n, cols := range rows {
		f := tsharkFrame{stream: -1}
		if cols[1] != "" {
			f.stream, _ = strconv.Atoi(cols[1])
			f.tcpLen, _ = strconv.Atoi(cols[2])
			f.protocols = cols[3]
			if cols[4] != "" {
				f.dsack = cols[4] + "-" + cols[5]
			}
			f.dupAckNum, _ = strconv.Atoi(cols[6])
			for i, fi := range tcpflow.AllFlags {
				if cols[7+i] != "" {
					f.flags |= fi.Flag
				}
			}
		}
		r.ts[n] = f
	}
	if err != nil {
		if len(r.ts) == 0 {
			r.tsharkErr = msg
			return false
		}
		r.tsharkNote = msg
	}
	return true
}

// tsharkMessage is tshark's error without its notice about running as
// root.
func tsharkMessage(s string) string {
	var keep []string
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "Running as user") {
			keep = append(keep, l)
		}
	}
	m := strings.Join(keep, " ")
	if m == "" {
		m = "tshark failed"
	}
	return m
}

// runLatlab runs the command as a user would (default options) and reads
// its per-frame events.
func (r *fileResult) runLatlab(bin string) (map[int]frameView, bool) {
	dir, err := os.MkdirTemp("", "corpus")
	if err != nil {
		fatalf("%v", err)
	}
	defer os.RemoveAll(dir)
	ev := filepath.Join(dir, "events.csv")
	cmd := exec.Command(bin, "pcap", "tcp", r.path, "--events", ev, "--json")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		r.latlabErr = strings.TrimPrefix(strings.TrimSpace(stderr.String()), "latlab: ")
		var doc struct {
			Data struct {
				Capture struct {
					ReadError *struct{} `json:"read_error"`
				} `json:"capture"`
			} `json:"data"`
		}
		// A read that stopped early still analysed what came before it.
		if json.Unmarshal(out, &doc) != nil || doc.Data.Capture.ReadError == nil {
			if r.latlabErr == "" {
				r.latlabErr = err.Error()
			}
			return nil, false
		}
	}
	m, err := readEvents(ev)
	if err != nil {
		r.latlabErr = "events: " + err.Error()
		return nil, false
	}
	return m, true
}

// readEvents reads the --events CSV back into per-frame views, with the
// fields Wireshark would show (WiresharkFields).
func readEvents(path string) (map[int]frameView, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	byEvent := map[string]tcpflow.Flag{}
	for _, fi := range tcpflow.AllFlags {
		byEvent[fi.Event] = fi.Flag
	}
	m := map[int]frameView{}
	cr := csv.NewReader(bufio.NewReader(f))
	cr.FieldsPerRecord = 7
	if _, err := cr.Read(); err != nil { // header
		return nil, err
	}
	for {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, err
		}
		n, err := strconv.Atoi(rec[2])
		if err != nil {
			return nil, fmt.Errorf("frame %q", rec[2])
		}
		v := m[n]
		switch ev, detail := rec[3], rec[6]; {
		case byEvent[ev] != 0:
			v.flags = (v.flags | byEvent[ev]).WiresharkFields()
			if byEvent[ev] == tcpflow.FlagDuplicateAck {
				if _, err := fmt.Sscanf(detail, "#%d", &v.dupAckNum); err != nil {
					return nil, fmt.Errorf("frame %d: duplicate_ack detail %q", n, detail)
				}
			}
		case ev == "dsack":
			v.dsack = detail
		default:
			continue // latlab's own readings
		}
		m[n] = v
	}
	return m, nil
}

// decode runs latlab's capture reader and TCP analysis over the file, as
// the command does and with duplicates kept, to learn how each frame was
// decoded and which connection it went to.
func (r *fileResult) decode() {
	r.decDefault, r.readStop = decodeFrames(r.path, capture.ScanOptions{})
	r.decOff, _ = decodeFrames(r.path, capture.ScanOptions{Dedup: capture.DedupOff})
}

func decodeFrames(path string, opt capture.ScanOptions) (m map[int]latlabFrame, readStop int) {
	m = map[int]latlabFrame{}
	f, err := os.Open(path)
	if err != nil {
		return m, 0
	}
	defer f.Close()
	a := tcpflow.NewAnalyzer()
	a.OnFrame = func(fr *tcpflow.Frame) {
		l := m[fr.Seg.Frame]
		l.stream = fr.Conn.Stream
		m[fr.Seg.Frame] = l
	}
	var seg tcpflow.Segment
	st, err := capture.Scan(f, opt, func(rec *capture.Record, p *capture.Packet) {
		l := latlabFrame{fragment: p.Fragment, l4Bad: p.L4Cut || p.L4Malformed, stream: -1}
		if tcpflow.FromCapture(rec, p, &seg) {
			l.decoded, l.len = true, seg.Len
			m[rec.Frame] = l
			a.Add(&seg)
			return
		}
		m[rec.Frame] = l
	})
	a.Finish()
	if err == nil && st.ReadError != nil {
		readStop = max(st.Frames, 1)
	}
	return m, readStop
}

// issue is the capture-side reason frame n (of tshark's TCP frames) cannot
// be compared, or "".
func (r *fileResult) issue(n int) string {
	t := r.ts[n]
	off, okOff := r.decOff[n]
	def, okDef := r.decDefault[n]
	switch {
	case !off.decoded && off.fragment:
		return "capture: IP fragment not reassembled"
	case !off.decoded && r.readStop > 0 && n > r.readStop:
		return "capture: read stopped before this frame"
	case !off.decoded && (strings.Contains(t.protocols, ":icmp:") || strings.Contains(t.protocols, ":icmpv6:")):
		return "TCP header quoted in an ICMP error (neither tool analyses it)"
	case !off.decoded && off.l4Bad:
		return "TCP header cut short or malformed (neither tool analyses it)"
	case !off.decoded:
		return "capture: not decoded (" + protoChain(t.protocols) + ")"
	case okOff && (!okDef || !def.decoded):
		return "capture: dropped as a duplicate"
	case off.len != t.tcpLen:
		return "capture: payload length differs"
	}
	_ = okDef
	return ""
}

// protoChain shortens tshark's frame.protocols to the layers up to TCP.
func protoChain(p string) string {
	if i := strings.Index(p, ":tcp"); i >= 0 {
		p = p[:i+4]
	}
	return p
}

// classify says why frame d.frame differs.
func (r *fileResult) classify(d *diff) string {
	t, ok := r.ts[d.frame]
	if !ok || t.stream < 0 {
		return "capture: TCP for latlab, not for tshark"
	}
	if is := r.issue(d.frame); is != "" {
		return is
	}
	// An earlier frame of the same TCP stream that latlab decoded
	// differently changes the state the flags are computed from.
	members := map[int]bool{}
	for n, f := range r.ts {
		if f.stream == t.stream && n <= d.frame {
			members[n] = true
		}
	}
	first := -1
	for n := range members {
		if r.issue(n) != "" && (first < 0 || n < first) {
			first = n
		}
	}
	if first >= 0 {
		return r.issue(first) + " (earlier in the stream)"
	}
	// The same frames must form the connection in both tools, or the
	// flows are keyed differently (tunnels, VLANs, ports reused).
	ls := r.decDefault[d.frame].stream
	for n, l := range r.decDefault {
		if n <= d.frame && l.decoded && (l.stream == ls) != members[n] {
			return "capture: connection keyed differently"
		}
	}
	for _, a := range allowList {
		if a.match(r, d.frame) {
			return "allowed: " + a.name
		}
	}
	return "tcpflow: " + flagDiff(d.latlab, d.tshark)
}

// flagDiff names what latlab has (+) and lacks (-) relative to tshark.
func flagDiff(l, t frameView) string {
	var s []string
	for _, fi := range tcpflow.AllFlags {
		switch {
		case l.flags&fi.Flag != 0 && t.flags&fi.Flag == 0:
			s = append(s, "+"+fi.Event)
		case l.flags&fi.Flag == 0 && t.flags&fi.Flag != 0:
			s = append(s, "-"+fi.Event)
		}
	}
	if l.dsack != t.dsack {
		s = append(s, "dsack")
	}
	if l.dupAckNum != t.dupAckNum && l.flags&t.flags&tcpflow.FlagDuplicateAck != 0 {
		s = append(s, "dupack#")
	}
	return strings.Join(s, " ")
}

// report prints the summary; it returns true when something fails the
// goal (a tcpflow difference, or a file only tshark reads).
func report(w io.Writer, results []*fileResult, verbose bool, examples int) bool {
	classes := map[string]*class{}
	var tsReads, whole, partial, frames, agree, refusedFrames int
	var refused, stopped, notPackets []string
	undecoded := map[string]*class{}
	add := func(m map[string]*class, k, path string, n int, ex string) {
		c := m[k]
		if c == nil {
			c = &class{files: map[string]bool{}}
			m[k] = c
		}
		c.frames += n
		c.files[path] = true
		if len(c.ex) < examples {
			c.ex = append(c.ex, ex)
		}
	}
	for _, r := range results {
		if r.tsharkErr != "" {
			if verbose {
				fmt.Fprintf(w, "%s: tshark does not read it: %s\n", r.path, r.tsharkErr)
			}
			continue
		}
		tsReads++
		switch {
		case r.refused && r.frames == 0 && !r.anyIP():
			// tshark made frames of something that holds no IP packet
			// (it reads a kernel .etl trace's bytes as MPEG): a file
			// latlab refuses as no capture is no difference.
			notPackets = append(notPackets, fmt.Sprintf("%s: %s", r.path, r.latlabErr))
			continue
		case r.refused:
			refused = append(refused, fmt.Sprintf("%s (%d TCP frames): %s", r.path, r.frames, r.latlabErr))
			refusedFrames += r.frames
			continue
		case r.latlabErr != "":
			partial++
			if r.tsharkNote == "" {
				stopped = append(stopped, r.latlabErr)
			}
		default:
			whole++
		}
		frames += r.frames
		agree += r.agree
		for k, v := range r.undecoded {
			add(undecoded, k, r.path, len(v), fmt.Sprintf("%s frame %d", r.path, v[0]))
		}
		if verbose || len(r.diffs) > 0 || r.latlabErr != "" {
			fmt.Fprintf(w, "%s: %d TCP frames, %d differ", r.path, r.frames, len(r.diffs))
			if r.latlabErr != "" {
				fmt.Fprintf(w, "; latlab: %s", r.latlabErr)
			}
			fmt.Fprintln(w)
		}
		for _, d := range r.diffs {
			add(classes, d.class, r.path, 1, fmt.Sprintf("%s frame %d: latlab %v, tshark %v", r.path, d.frame, d.latlab, d.tshark))
		}
	}
	fmt.Fprintf(w, "\nfiles: %d candidates, %d read by tshark\n", len(results), tsReads)
	fmt.Fprintf(w, "latlab: %d read whole, %d up to a bad record, %d refused\n", whole, partial, len(refused))
	for _, s := range notPackets {
		fmt.Fprintf(w, "  refused, and no IP packet in tshark's reading either: %s\n", s)
	}
	for _, s := range refused {
		fmt.Fprintf(w, "  refused: %s\n", s)
	}
	for _, s := range stopped {
		fmt.Fprintf(w, "  stopped early where tshark did not: %s\n", s)
	}
	nUndecoded := 0
	for _, c := range undecoded {
		nUndecoded += c.frames
	}
	fmt.Fprintf(w, "TCP frames (tshark) in the files both read: %d\n", frames)
	fmt.Fprintf(w, "  %7d with the same flags in latlab\n", agree)
	fmt.Fprintf(w, "  %7d with other flags (classes below)\n", frames-agree-nUndecoded)
	fmt.Fprintf(w, "  %7d without flags in tshark, not analysed by latlab\n", nUndecoded)
	if refusedFrames > 0 {
		fmt.Fprintf(w, "  %7d more in the files latlab refused\n", refusedFrames)
	}
	printClasses(w, "not analysed by latlab, no flags in tshark, by reason:", undecoded)
	printClasses(w, "frames with other flags, by class:", classes)
	nTCP, nAllowed := 0, 0
	for k, c := range classes {
		switch {
		case strings.HasPrefix(k, "tcpflow:"):
			nTCP += c.frames
		case strings.HasPrefix(k, "allowed:"):
			nAllowed += c.frames
		}
	}
	fmt.Fprintf(w, "differences in the TCP analysis: %d; allowed: %d\n", nTCP, nAllowed)
	for _, a := range allowList {
		fmt.Fprintf(w, "allowed %q: %s\n", a.name, a.reason)
	}
	return nTCP > 0 || len(refused) > 0 || len(stopped) > 0
}

type class struct {
	frames int
	files  map[string]bool
	ex     []string
}

func printClasses(w io.Writer, title string, classes map[string]*class) {
	if len(classes) == 0 {
		return
	}
	fmt.Fprintln(w, title)
	names := make([]string, 0, len(classes))
	for k := range classes {
		names = append(names, k)
	}
	sort.Slice(names, func(i, j int) bool {
		if classes[names[i]].frames != classes[names[j]].frames {
			return classes[names[i]].frames > classes[names[j]].frames
		}
		return names[i] < names[j]
	})
	for _, k := range names {
		c := classes[k]
		fmt.Fprintf(w, "  %6d frames in %3d files: %s\n", c.frames, len(c.files), k)
		for _, e := range c.ex {
			fmt.Fprintf(w, "           e.g. %s\n", e)
		}
	}
}

// anyIP says whether tshark decoded an IPv4 or IPv6 packet in any frame.
func (r *fileResult) anyIP() bool {
	for _, f := range r.ts {
		if strings.Contains(f.protocols+":", ":ip:") || strings.Contains(f.protocols+":", ":ipv6:") {
			return true
		}
	}
	return false
}
