package inf

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Product types of a TargetOSVersion decoration (VER_NT_* in winnt.h).
const (
	Workstation      = 1
	DomainController = 2
	Server           = 3
)

// Decoration is a models-section TargetOSVersion decoration:
// NT[Architecture][.[OSMajorVersion][.[OSMinorVersion][.[ProductType][.[SuiteMask][.[BuildNumber]]]]]].
// Zero fields were not given. The empty decoration is the undecorated
// models section.
type Decoration struct {
	Raw         string `json:"raw"`
	Arch        string `json:"arch,omitempty"` // lower case: amd64, x86, arm64, ia64, arm; "" = any
	Major       int    `json:"major,omitempty"`
	Minor       int    `json:"minor,omitempty"`
	ProductType int    `json:"product_type,omitempty"`
	SuiteMask   uint32 `json:"suite_mask,omitempty"`
	Build       int    `json:"build,omitempty"`
	// ArchPlaceholder is set for NT$ARCH$: driver sources (the Windows
	// driver samples, virtio-win) write it and the build's stampinf step
	// replaces it with the architecture it builds for, so it stands for
	// the target's architecture.
	ArchPlaceholder bool `json:"arch_placeholder,omitempty"`
	hasVersion      bool
}

// archPlaceholder is what stampinf replaces with the target architecture.
const archPlaceholder = "$arch$"

func (d Decoration) hasArch() bool { return d.Arch != "" || d.ArchPlaceholder }

var arches = []string{"amd64", "x86", "arm64", "ia64", "arm"}

// ParseDecoration reads a decoration such as NTamd64.10.0.1..18362, as
// written: the parser trimmed it, and white space a %strkey% brings makes
// it no NT decoration (Manufacturers).
func ParseDecoration(s string) (Decoration, error) {
	d := Decoration{Raw: s}
	if d.Raw == "" {
		return d, nil
	}
	parts := strings.Split(d.Raw, ".")
	head := strings.ToLower(parts[0])
	if !strings.HasPrefix(head, "nt") {
		return d, fmt.Errorf("decoration %q does not start with NT: expected NT[arch][.major[.minor[.producttype[.suitemask[.build]]]]]", d.Raw)
	}
	d.Arch = head[2:]
	if d.Arch == archPlaceholder {
		d.Arch, d.ArchPlaceholder = "", true
	}
	if d.Arch != "" && !slices.Contains(arches, d.Arch) {
		return d, fmt.Errorf("decoration %q: unknown architecture %q (known: %s)", d.Raw, d.Arch, strings.Join(arches, ", "))
	}
	if len(parts) > 6 {
		return d, fmt.Errorf("decoration %q has %d fields: at most NT[arch].major.minor.producttype.suitemask.build", d.Raw, len(parts))
	}
	num := func(i int, hex bool) (uint64, error) {
		if i >= len(parts) || parts[i] == "" {
			return 0, nil
		}
		p := strings.ToLower(parts[i])
		base := 10
		if strings.HasPrefix(p, "0x") {
			p, base = p[2:], 16
		} else if hex {
			base = 16
		}
		v, err := strconv.ParseUint(p, base, 32)
		if err != nil {
			return 0, fmt.Errorf("decoration %q: field %d (%q) is not a number", d.Raw, i, parts[i])
		}
		return v, nil
	}
	var vals [6]uint64
	for i := 1; i < 6; i++ {
		v, err := num(i, i == 4)
		if err != nil {
			return d, err
		}
		vals[i] = v
	}
	d.Major, d.Minor, d.ProductType, d.SuiteMask, d.Build = int(vals[1]), int(vals[2]), int(vals[3]), uint32(vals[4]), int(vals[5])
	d.hasVersion = len(parts) > 1 && parts[1] != ""
	if d.ProductType > 3 {
		return d, fmt.Errorf("decoration %q: product type %d (known: 1 workstation, 2 domain controller, 3 server)", d.Raw, d.ProductType)
	}
	return d, nil
}

// Target is the Windows a decoration is matched against.
type Target struct {
	Arch        string `json:"arch"`
	Major       int    `json:"major"`
	Minor       int    `json:"minor"`
	Build       int    `json:"build"`
	ProductType int    `json:"product_type"`
}

// ParseTarget reads "10.0.22631" and a product name (workstation, server,
// dc) for an architecture.
func ParseTarget(version, product, arch string) (Target, error) {
	t := Target{Arch: strings.ToLower(arch)}
	if !slices.Contains(arches, t.Arch) {
		return t, fmt.Errorf("unknown architecture %q: accepted %s", arch, strings.Join(arches, ", "))
	}
	p := strings.Split(strings.TrimSpace(version), ".")
	if len(p) < 2 || len(p) > 3 {
		return t, fmt.Errorf("OS version %q: want major.minor[.build], e.g. 10.0.22631", version)
	}
	var v [3]int
	for i, s := range p {
		n, err := strconv.Atoi(s)
		if err != nil || n < 0 {
			return t, fmt.Errorf("OS version %q: want major.minor[.build], e.g. 10.0.22631", version)
		}
		v[i] = n
	}
	t.Major, t.Minor, t.Build = v[0], v[1], v[2]
	switch strings.ToLower(product) {
	case "workstation", "client", "1":
		t.ProductType = Workstation
	case "server", "3":
		t.ProductType = Server
	case "dc", "domaincontroller", "domain-controller", "2":
		t.ProductType = DomainController
	default:
		return t, fmt.Errorf("product %q: accepted workstation, server, dc", product)
	}
	return t, nil
}

// ProductName names a product type.
func ProductName(p int) string {
	switch p {
	case Workstation:
		return "workstation"
	case DomainController:
		return "domain controller"
	case Server:
		return "server"
	}
	return "any product type"
}

// Applies says whether Windows t would consider this models section, and
// if not, why.
func (d Decoration) Applies(t Target) (bool, string) {
	switch {
	case d.Raw == "":
		if t.Arch != "x86" {
			return false, "an undecorated models section is used only on x86; other architectures need an NT<arch> decoration"
		}
		return true, ""
	case !d.hasArch() && t.Arch != "x86":
		return false, fmt.Sprintf("NT without an architecture is x86-only; %s needs NT%s", t.Arch, t.Arch)
	case d.Arch != "" && d.Arch != t.Arch:
		return false, fmt.Sprintf("architecture %s, not %s", d.Arch, t.Arch)
	case d.hasVersion && (d.Major > t.Major || d.Major == t.Major && d.Minor > t.Minor):
		return false, fmt.Sprintf("needs Windows %d.%d or later", d.Major, d.Minor)
	case d.ProductType != 0 && d.ProductType != t.ProductType:
		return false, fmt.Sprintf("only for %s (product type %d)", ProductName(d.ProductType), d.ProductType)
	case d.SuiteMask != 0:
		return false, fmt.Sprintf("needs suite mask 0x%x, which latlab cannot check; not chosen", d.SuiteMask)
	case d.Build > t.Build:
		return false, fmt.Sprintf("needs build %d or later", d.Build)
	}
	return true, ""
}

// Better says whether d matches more closely than e (both applicable):
// an architecture beats none, then the higher major.minor, then a given
// product type, then a suite mask, then the higher build.
func (d Decoration) Better(e Decoration) bool {
	if d.hasArch() != e.hasArch() {
		return d.hasArch()
	}
	if (d.Raw != "") != (e.Raw != "") {
		return d.Raw != ""
	}
	if d.Major != e.Major {
		return d.Major > e.Major
	}
	if d.Minor != e.Minor {
		return d.Minor > e.Minor
	}
	if (d.ProductType != 0) != (e.ProductType != 0) {
		return d.ProductType != 0
	}
	if (d.SuiteMask != 0) != (e.SuiteMask != 0) {
		return d.SuiteMask != 0
	}
	return d.Build > e.Build
}

// Describe renders the decoration for people.
func (d Decoration) Describe() string {
	if d.Raw == "" {
		return "undecorated"
	}
	var parts []string
	switch {
	case d.ArchPlaceholder:
		parts = append(parts, "$ARCH$ (the architecture it is built for)")
	case d.Arch != "":
		parts = append(parts, d.Arch)
	}
	if d.hasVersion {
		parts = append(parts, fmt.Sprintf("Windows %d.%d+", d.Major, d.Minor))
	}
	if d.ProductType != 0 {
		parts = append(parts, ProductName(d.ProductType))
	}
	if d.Build != 0 {
		parts = append(parts, fmt.Sprintf("build %d+", d.Build))
	}
	return strings.Join(parts, ", ")
}
