package knob

import (
	"encoding/binary"
	"fmt"
)

// DisplayPath is the part of a DISPLAYCONFIG_PATH_INFO that says how an
// active display path is really scaled.
type DisplayPath struct {
	AdapterLUID      uint64  `json:"adapter_luid"`
	SourceID         uint32  `json:"source_id"`
	TargetID         uint32  `json:"target_id"`
	OutputTechnology uint32  `json:"output_technology"`
	Rotation         uint32  `json:"rotation"`
	Scaling          uint32  `json:"scaling"`
	ScalingName      string  `json:"scaling_name"`
	ScalingConstant  string  `json:"scaling_constant"`
	RefreshHz        float64 `json:"refresh_hz"`
	TargetAvailable  bool    `json:"target_available"`
	Active           bool    `json:"active"`
}

// PathInfoSize is sizeof(DISPLAYCONFIG_PATH_INFO).
const PathInfoSize = 72

const (
	// DISPLAYCONFIG_PATH_INFO (wingdi.h; scripts/windows-abi compares
	// each): the source's id, the target info, the flags.
	pathSourceID = 8
	pathTarget   = 20
	pathFlags    = 68
	// DISPLAYCONFIG_PATH_TARGET_INFO, from the target info's start.
	targetID           = 8
	targetOutputTech   = 16
	targetRotation     = 20
	targetScaling      = 24
	targetRefreshRate  = 28
	targetAvailableOff = 40
)

// ParsePathInfos decodes n DISPLAYCONFIG_PATH_INFO structures as
// QueryDisplayConfig fills them:
//
//	 0 sourceInfo: adapterId LUID (8), id, modeInfoIdx, statusFlags
//	20 targetInfo: adapterId LUID (8), id, modeInfoIdx, outputTechnology,
//	   rotation, scaling, refreshRate (num, den), scanLineOrdering,
//	   targetAvailable, statusFlags
//	68 flags (DISPLAYCONFIG_PATH_ACTIVE = 1)
func ParsePathInfos(b []byte, n int) ([]DisplayPath, error) {
	if n < 0 || len(b) < n*PathInfoSize {
		return nil, fmt.Errorf("display paths: %d bytes for %d paths of %d bytes", len(b), n, PathInfoSize)
	}
	le := binary.LittleEndian
	paths := make([]DisplayPath, n)
	for i := range paths {
		p := b[i*PathInfoSize : (i+1)*PathInfoSize]
		t := p[pathTarget:]
		d := DisplayPath{
			AdapterLUID:      uint64(le.Uint32(t[4:]))<<32 | uint64(le.Uint32(t[0:])),
			SourceID:         le.Uint32(p[pathSourceID:]),
			TargetID:         le.Uint32(t[targetID:]),
			OutputTechnology: le.Uint32(t[targetOutputTech:]),
			Rotation:         le.Uint32(t[targetRotation:]),
			Scaling:          le.Uint32(t[targetScaling:]),
			TargetAvailable:  le.Uint32(t[targetAvailableOff:]) != 0,
			Active:           le.Uint32(p[pathFlags:])&1 != 0,
		}
		if num, den := le.Uint32(t[targetRefreshRate:]), le.Uint32(t[targetRefreshRate+4:]); den != 0 {
			d.RefreshHz = float64(num) / float64(den)
		}
		sc, _ := LookupScaling(d.Scaling)
		d.ScalingName, d.ScalingConstant = sc.Name, sc.Constant
		if d.ScalingName == "" {
			return nil, fmt.Errorf("display path %d (byte %d): scaling %d is not a DISPLAYCONFIG_SCALING value", i, i*PathInfoSize+44, d.Scaling)
		}
		paths[i] = d
	}
	return paths, nil
}

// Scaling is one DISPLAYCONFIG_SCALING value. Microsoft's documentation
// (wingdi.h, "DISPLAYCONFIG_SCALING enumeration"):
//
//	IDENTITY = 1: "the identity transformation; the source content is
//	  presented with no change. This transformation is available only if
//	  the path's source mode has the same spatial resolution as the path's
//	  target mode."
//	CENTERED = 2: "the centering transformation; the source content is
//	  presented unscaled, centered with respect to the spatial resolution
//	  of the target mode."
//	STRETCHED = 3: "the content is scaled to fit the path's target."
//	ASPECTRATIOCENTEREDMAX = 4: "the aspect-ratio centering transformation."
//	CUSTOM = 5: "a custom scaling that the caller cannot describe with any
//	  of the other DISPLAYCONFIG_SCALING_XXX values. Only a hardware
//	  vendor's value-add application should use DISPLAYCONFIG_SCALING_CUSTOM"
//	PREFERRED = 128: "the caller does not have any preference for the
//	  scaling. The SetDisplayConfig function will use the scaling value that
//	  was last saved in the database for the path. If such a scaling value
//	  does not exist, SetDisplayConfig will use the default scaling for the
//	  computer. For example, stretched (DISPLAYCONFIG_SCALING_STRETCHED) for
//	  tablet computers and aspect-ratio centered
//	  (DISPLAYCONFIG_SCALING_ASPECTRATIOCENTEREDMAX) for non-tablet computers."
//
// So identity is not what GPU control panels call "No scaling": that is
// centered, the image unscaled with black borders. Identity means no
// transformation at all and exists only when source and target modes are
// the same size; the identity-scaling study found that a request for it
// while the GPU scales falls back to aspect ratio.
type Scaling struct {
	N        uint32 `json:"scaling"`
	Name     string `json:"name"`
	Constant string `json:"constant"`
	Desc     string `json:"description"`
}

var scalings = []Scaling{
	{1, "identity", "DISPLAYCONFIG_SCALING_IDENTITY", "unchanged; needs equal source and target resolutions"},
	{2, "centered", "DISPLAYCONFIG_SCALING_CENTERED", `unscaled, centred: what GPU control panels call "No scaling"`},
	{3, "stretched", "DISPLAYCONFIG_SCALING_STRETCHED", "scaled to fill the target (full-screen)"},
	{4, "aspect-ratio", "DISPLAYCONFIG_SCALING_ASPECTRATIOCENTEREDMAX", "scaled to fit keeping the aspect ratio, centred"},
	{5, "custom", "DISPLAYCONFIG_SCALING_CUSTOM", "a vendor's own scaling (value-add applications only)"},
	{128, "preferred", "DISPLAYCONFIG_SCALING_PREFERRED", "no preference: the last saved scaling, else the default"},
}

// scalingAliases are other names people use for a value; "no scaling" is
// refused as ambiguous (see parseScaling).
var scalingAliases = map[string]uint32{
	"aspect-ratio-centered-max": 4, "aspectratiocenteredmax": 4, "aspect": 4,
	"full-screen": 3, "fullscreen": 3, "stretch": 3,
	"center": 2, "centre": 2, "centred": 2,
}

// identityFallback is what the identity-scaling study found.
var identityFallback = []string{"The identity-scaling study found that a request for identity while the",
	"  GPU scales falls back to aspect-ratio (4)."}

// identityNote is the same finding in one line, for JSON and notes.
const identityNote = "the identity-scaling study found that a request for identity while the GPU scales falls back to aspect-ratio (4)"

// LookupScaling finds a DISPLAYCONFIG_SCALING value.
func LookupScaling(n uint32) (Scaling, bool) {
	for _, s := range scalings {
		if s.N == n {
			return s, true
		}
	}
	return Scaling{}, false
}

// ScalingName names a DISPLAYCONFIG_SCALING value ("" when unknown).
func ScalingName(n uint32) string {
	s, _ := LookupScaling(n)
	return s.Name
}
