package knob

import "fmt"

// Reference is a value a published tuning profile sets for a knob: what
// the check-up cites beside its verdict, so a user sees whose advice a
// rule follows. The tuned references are checked against the profiles of
// the tuned package itself (TestTunedReferences), not copied by hand.
type Reference struct {
	// Source names the profile set: "tuned" for the tuned daemon's
	// profiles (/usr/lib/tuned/<profile>/tuned.conf).
	Source string `json:"source"`
	// Version is the version of the profiles read.
	Version string `json:"version"`
	// Profile is the profile's name ("latency-performance").
	Profile string `json:"profile"`
	// Section and Key name the setting as the profile writes it:
	// [sysctl] vm.swappiness, [cpu] governor, [vm] transparent_hugepages.
	Section string `json:"section"`
	Key     string `json:"key"`
	// Value is the value the profile sets, as written there.
	Value string `json:"value"`
}

// TunedVersion is the version of tuned whose profiles the references
// quote (Debian 12's tuned 2.20.0; the profiles are upstream's).
const TunedVersion = "2.20.0"

// tunedRef is a reference to a tuned profile of TunedVersion.
func tunedRef(profile, section, key, value string) Reference {
	return Reference{Source: "tuned", Version: TunedVersion, Profile: profile, Section: section, Key: key, Value: value}
}

// Cite is the reference in words: "tuned 2.20.0 latency-performance sets
// [sysctl] vm.swappiness=10".
func (r Reference) Cite() string {
	return fmt.Sprintf("%s %s %s sets [%s] %s=%s", r.Source, r.Version, r.Profile, r.Section, r.Key, r.Value)
}

// Short is the reference as a line of a check-up: "tuned 2.20.0
// latency-performance: vm.swappiness=10".
func (r Reference) Short() string {
	return fmt.Sprintf("%s %s %s: %s=%s", r.Source, r.Version, r.Profile, r.Key, r.Value)
}
