package doctor

import (
	"encoding/json"
	"fmt"
	"os"
	"os/user"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"unicode"

	"github.com/latlab/latlab/internal/lazy"

	"github.com/latlab/latlab/internal/result"
)

// A check-up meant for sharing (the bundle) must carry nothing personal:
// no user or host names, no paths under a home directory, no hardware
// addresses or serial numbers. The check-up never reads serial numbers
// (display configurations, whose ids hold the monitors' EDID serials, are
// numbered instead), so what remains is text that may quote a path or a
// name: every string of the result and the document goes through
// Redactor.

// Identity is what would identify the person or the machine.
type Identity struct {
	User string
	Host string
	Home string
}

// CurrentIdentity is this process's user, host and home directory; a
// part that cannot be read is empty.
func CurrentIdentity() Identity {
	var id Identity
	if u, err := user.Current(); err == nil {
		id.User = u.Username
		// Windows gives DOMAIN\user.
		if i := strings.LastIndexByte(id.User, '\\'); i >= 0 {
			id.User = id.User[i+1:]
		}
	}
	id.Host, _ = os.Hostname()
	id.Home, _ = os.UserHomeDir()
	return id
}

// commonWords are names that are also words latlab prints ("needs root",
// "needs Administrator"): as a user or host name they identify no one,
// and replacing them would garble the text.
var commonWords = []string{"root", "administrator", "admin", "system", "user", "localhost", "linux", "windows"}

// identifying reports whether a user or host name is worth hiding.
func identifying(name string) bool {
	return len(name) >= 2 && !slices.Contains(commonWords, strings.ToLower(name))
}

var (
	// Home directories of any user, and MAC addresses.
	reUnixHome = lazy.Regexp(`/home/[^/\s"']+`)
	reWinHome  = lazy.Regexp(`(?i)\b([a-z]:[\\/]+)users[\\/]+[^\\/\s"']+`)
	reMAC      = lazy.Regexp(`(?i)\b[0-9a-f]{2}(?::[0-9a-f]{2}){5}\b|\b[0-9a-f]{2}(?:-[0-9a-f]{2}){5}\b`)
)

// homeREs match the home directory as a whole path element, written
// with either separator (and with JSON's escaped backslashes).
func (id Identity) homeREs() []*regexp.Regexp {
	h := strings.TrimRight(id.Home, `/\`)
	if len(h) <= 1 {
		return nil
	}
	var out []*regexp.Regexp
	for _, v := range []string{strings.ReplaceAll(h, `\`, `/`), strings.ReplaceAll(h, `/`, `\`), strings.ReplaceAll(strings.ReplaceAll(h, `/`, `\`), `\`, `\\`)} {
		out = append(out, regexp.MustCompile(`(?i)`+regexp.QuoteMeta(v)+`($|[\\/\s"':;,)<])`))
	}
	return out
}

// A host or user name is replaced only where it is a whole token: a
// maximal run of the characters a host name is made of (letters, digits,
// '-', '_' and '.'), less the dots that end a sentence. On a host named
// "vm", vm.swappiness and kvm-clock are one token each and stay. A host
// name of letters alone is matched in the case the OS reports it, since it
// may be a word latlab itself prints ("fold the VM counters" on a host
// named "vm"); a name with a digit or a sign is no word, and text may
// print it in either case (Windows upper-cases host names). User names are
// matched in any case: Windows accounts are case-insensitive.
func tokenMatcher(name string, anyCase bool) func(tok string) bool {
	letters := !anyCase
	for _, r := range name {
		if !unicode.IsLetter(r) {
			letters = false
			break
		}
	}
	if letters {
		return func(tok string) bool { return tok == name }
	}
	return func(tok string) bool { return strings.EqualFold(tok, name) }
}

func isTokenRune(r rune) bool {
	return unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_' || r == '-' || r == '.'
}

// replaceTokens replaces every whole token of s that match accepts with
// with, and reports whether one was found.
func replaceTokens(s string, match func(string) bool, with string) (string, bool) {
	var b strings.Builder
	found := false
	rs := []rune(s)
	for i := 0; i < len(rs); {
		if !isTokenRune(rs[i]) {
			b.WriteRune(rs[i])
			i++
			continue
		}
		j := i
		for j < len(rs) && isTokenRune(rs[j]) {
			j++
		}
		tok := string(rs[i:j])
		core := strings.TrimRight(tok, ".")
		if core != "" && match(core) {
			b.WriteString(with)
			b.WriteString(tok[len(core):])
			found = true
		} else {
			b.WriteString(tok)
		}
		i = j
	}
	return b.String(), found
}

// nameRule is one name to take out as a whole token.
type nameRule struct {
	match func(string) bool
	with  string
	what  string
}

func (id Identity) nameRules() []nameRule {
	var out []nameRule
	if identifying(id.User) {
		out = append(out, nameRule{tokenMatcher(id.User, true), "<user>", "user name " + id.User})
	}
	if identifying(id.Host) {
		out = append(out, nameRule{tokenMatcher(id.Host, false), "<host>", "host name " + id.Host})
		// The short name of a fully qualified host.
		if short, _, ok := strings.Cut(id.Host, "."); ok && identifying(short) {
			out = append(out, nameRule{tokenMatcher(short, false), "<host>", "host name " + id.Host})
		}
	}
	return out
}

// Redactor returns the function that takes the identity out of a string.
func (id Identity) Redactor() func(string) string {
	type rule struct {
		re   *regexp.Regexp
		with string
	}
	var rules []rule
	for _, re := range id.homeREs() {
		rules = append(rules, rule{re, "~$1"})
	}
	rules = append(rules, rule{reUnixHome(), "/home/<user>"}, rule{reWinHome(), `${1}Users\<user>`}, rule{reMAC(), "<mac>"})
	names := id.nameRules()
	return func(s string) string {
		for _, r := range rules {
			// Adjacent matches share the separator between them, so a
			// pass can leave every second one: repeat until none is left.
			for i := 0; i < 8; i++ {
				t := r.re.ReplaceAllString(s, r.with)
				if t == s {
					break
				}
				s = t
			}
		}
		for _, n := range names {
			s, _ = replaceTokens(s, n.match, n.with)
		}
		return s
	}
}

// Leaks lists the parts of the identity found in b: the check a bundle
// passes before it is written.
func (id Identity) Leaks(b []byte) []string {
	var out []string
	s := string(b)
	for _, re := range id.homeREs() {
		if re.MatchString(s) {
			out = append(out, "home directory "+id.Home)
			break
		}
	}
	for _, n := range id.nameRules() {
		if _, found := replaceTokens(s, n.match, n.with); found && !slices.Contains(out, n.what) {
			out = append(out, n.what)
		}
	}
	if reMAC().MatchString(s) {
		out = append(out, "a MAC address")
	}
	return out
}

// pathSettings are the flags whose values are file paths: a shared
// document keeps only their base names.
var pathSettings = []string{"output", "html", "bundle", "root"}

// Redact returns copies of a check-up and its document with the identity
// taken out of every string.
func Redact(r *Result, doc *result.Document, id Identity) (*Result, *result.Document, error) {
	f := id.Redactor()
	var rr Result
	if err := redactJSON(r, &rr, f); err != nil {
		return nil, nil, err
	}
	// The raw samples are numbers, and not in the JSON.
	for _, p := range []struct{ from, to *Probe }{{r.Sleep, rr.Sleep}, {r.Wake, rr.Wake}} {
		if p.from != nil && p.to != nil {
			p.to.Samples = p.from.Samples
		}
	}
	for i := range rr.Extra {
		if i < len(r.Extra) {
			rr.Extra[i].Samples = r.Extra[i].Samples
		}
	}
	var rd result.Document
	if err := redactJSON(doc, &rd, f); err != nil {
		return nil, nil, err
	}
	for _, k := range pathSettings {
		if v, ok := rd.Settings[k]; ok && v != "" && v != "/" {
			rd.Settings[k] = filepath.Base(strings.ReplaceAll(v, `\`, `/`))
		}
	}
	rd.Data = &rr
	return &rr, &rd, nil
}

// redactJSON copies from into to through JSON, passing every string
// (keys included) through f, so a field added later is covered too.
func redactJSON(from, to any, f func(string) string) error {
	b, err := json.Marshal(from)
	if err != nil {
		return fmt.Errorf("redact: %w", err)
	}
	var v any
	dec := json.NewDecoder(strings.NewReader(string(b)))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		return fmt.Errorf("redact: %w", err)
	}
	b, err = json.Marshal(walkStrings(v, f))
	if err != nil {
		return fmt.Errorf("redact: %w", err)
	}
	return json.Unmarshal(b, to)
}

func walkStrings(v any, f func(string) string) any {
	switch x := v.(type) {
	case string:
		return f(x)
	case []any:
		for i := range x {
			x[i] = walkStrings(x[i], f)
		}
		return x
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[f(k)] = walkStrings(e, f)
		}
		return out
	}
	return v
}
