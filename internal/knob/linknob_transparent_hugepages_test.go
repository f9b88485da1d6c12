package knob_test

import (
	"testing"

	"github.com/latlab/latlab/internal/knob/backend"
	"github.com/latlab/latlab/internal/knob/knobtest/suite"
)

const (
	thpEnabledFile = "sys/kernel/mm/transparent_hugepage/enabled"
	thpDefragFile  = "sys/kernel/mm/transparent_hugepage/defrag"
)

// choice is a place of a choice file ("always [madvise] never"), as the
// knob writes it: the bare word goes to the file.
func choice(path, content, target string) suite.Place {
	return suite.Place{Loc: backend.Loc{Backend: backend.BackendFile, Path: path, Name: backend.ChoiceName},
		Value: backend.FileValue(content), Target: target}
}

func TestTransparentHugepagesConforms(t *testing.T) {
	suite.RunFiles(t, suite.Files{
		Knob: "transparent-hugepages",
		Tree: map[string]string{
			thpEnabledFile: "always [madvise] never\n",
			thpDefragFile:  "always defer defer+madvise [madvise] never\n",
			mmAnchorFile:   "0\n",
		},
		Explain: []string{"never", "madvise", "always", "enabled=always,defrag=defer+madvise"},
		Set: []suite.Set{
			{Value: "never", Files: map[string]string{thpEnabledFile: "always madvise [never]\n", thpDefragFile: "always defer defer+madvise [madvise] never\n"}},
			{Value: "enabled=always,defrag=defer+madvise", Files: map[string]string{thpEnabledFile: "[always] madvise never\n", thpDefragFile: "always defer [defer+madvise] madvise never\n"}},
			{Value: "defrag=never", Files: map[string]string{thpEnabledFile: "always [madvise] never\n", thpDefragFile: "always defer defer+madvise madvise [never]\n"}},
			{Value: "enabled=madvise,defrag=madvise", NoChange: true},
		},
		Bad: map[string]string{
			"sometimes":                   `enabled "sometimes" is not one of always|madvise|never`,
			"defrag=defer+never":          "is not one of always|defer|defer+madvise|madvise|never",
			"enabled=never,enabled=never": "enabled given twice",
			"size=2M":                     "is not enabled=WORD or defrag=WORD",
			"":                            "accepted never|madvise|always",
			"defrag=madvise,":             "accepted",
		},
		Foreign: []suite.Place{
			suite.File(thpEnabledFile, "never\n"), // not written as a choice file
			suite.File("etc/passwd", "never\n"),
			choice(thpEnabledFile, "defer\n", ""),
			choice(thpEnabledFile, "always madvise never\n", ""),
			choice(thpEnabledFile, "[always] [madvise] never\n", ""),
			choice(thpDefragFile, "always;reboot\n", ""),
			choice(thpDefragFile, "never\n", "x"),
			choice(thpDefragFile, "", ""),
		},
		Rules: []suite.Rule{
			{Files: map[string]string{thpEnabledFile: "always madvise [never]\n"},
				ByTarget: map[string]string{"enabled": "thp-never", "defrag": "thp-defrag-default"}},
			{Files: map[string]string{thpEnabledFile: "[always] madvise never\n", thpDefragFile: "[always] defer defer+madvise madvise never\n"},
				ByTarget: map[string]string{"enabled": "thp-always", "defrag": "thp-defrag-always"}},
			{Files: map[string]string{thpDefragFile: "always [defer] defer+madvise madvise never\n"},
				ByTarget: map[string]string{"enabled": "thp-madvise", "defrag": "thp-set"}},
			{Files: map[string]string{thpEnabledFile: "", thpDefragFile: ""}, Rule: "thp-absent", Reason: "this kernel has no transparent huge pages"},
			{Files: map[string]string{thpEnabledFile: "", thpDefragFile: "", mmAnchorFile: ""}, Rule: "not shown", Reason: "not in this tree: /sys/kernel/mm is missing"},
		},
	})
}
