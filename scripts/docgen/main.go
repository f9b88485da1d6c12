// Command docgen writes latlab's reference from its command tree
// (internal/refdoc).
//
// With no flags it rewrites docs/reference/<GOOS>/, the Markdown page of
// every command as this OS's build prints its help, which is checked in
// (a test of internal/refdoc fails when it is stale; the Windows pages
// are written by GOOS=windows go run -exec scripts/wine/exec ./scripts/docgen). At release time GoReleaser runs it with -man and
// -completions to make the man pages and the shell completions that the
// Linux archives and the .deb carry:
//
//	go run ./scripts/docgen
//	go run ./scripts/docgen -man dist-extra/man -date 2026-01-02 -version 1.2.3
//	go run ./scripts/docgen -completions dist-extra/completions
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/latlab/latlab/internal/refdoc"
)

func main() {
	md := flag.String("md", refdoc.MarkdownDir, "directory of the Markdown reference, rewritten (empty: none)")
	man := flag.String("man", "", "directory to write the man pages into, gzip-compressed (empty: none)")
	date := flag.String("date", "", "the man pages' date, YYYY-MM-DD or RFC 3339 (the commit's, for a reproducible build); required with -man")
	version := flag.String("version", "", "the version the man pages name")
	completions := flag.String("completions", "", "directory to write the bash, zsh, fish and PowerShell completions into (empty: none)")
	flag.Parse()
	if flag.NArg() > 0 {
		fail(fmt.Errorf("unexpected argument %q: docgen takes only flags", flag.Arg(0)))
	}
	if *man != "" || *completions != "" {
		// a release step: the checked-in reference is left alone unless asked
		if !isSet("md") {
			*md = ""
		}
	}
	if *md != "" {
		// pages of commands that no longer exist must go too
		old, _ := filepath.Glob(filepath.Join(*md, "*.md"))
		for _, p := range old {
			if err := os.Remove(p); err != nil {
				fail(err)
			}
		}
		if err := os.MkdirAll(*md, 0o755); err != nil {
			fail(err)
		}
		if err := refdoc.Markdown(*md); err != nil {
			fail(err)
		}
	}
	if *man != "" {
		if *date == "" {
			fail(fmt.Errorf("-man needs -date (the commit's date, so that the pages are the same on every build)"))
		}
		d, err := parseDate(*date)
		if err != nil {
			fail(err)
		}
		if err := fresh(*man); err != nil {
			fail(err)
		}
		if err := refdoc.Man(*man, d, *version, true); err != nil {
			fail(err)
		}
	}
	if *completions != "" {
		if err := fresh(*completions); err != nil {
			fail(err)
		}
		if err := refdoc.Completions(*completions); err != nil {
			fail(err)
		}
	}
}

// fresh empties dir, making it if needed, so that nothing of an older
// run is shipped.
func fresh(dir string) error {
	if err := os.RemoveAll(dir); err != nil {
		return err
	}
	return os.MkdirAll(dir, 0o755)
}

func parseDate(s string) (time.Time, error) {
	for _, layout := range []string{time.RFC3339, "2006-01-02"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t.UTC(), nil
		}
	}
	return time.Time{}, fmt.Errorf("invalid -date %q: want YYYY-MM-DD or RFC 3339", s)
}

func isSet(name string) bool {
	set := false
	flag.Visit(func(f *flag.Flag) {
		if f.Name == name {
			set = true
		}
	})
	return set
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "docgen:", err)
	os.Exit(1)
}
