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
	RefreshHz        float64 `json:"refresh_hz"`
	TargetAvailable  bool    `json:"target_available"`
	Active           bool    `json:"active"`
}

// PathInfoSize is sizeof(DISPLAYCONFIG_PATH_INFO).
const PathInfoSize = 72

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
		t := p[20:]
		d := DisplayPath{
			AdapterLUID:      uint64(le.Uint32(t[4:]))<<32 | uint64(le.Uint32(t[0:])),
			SourceID:         le.Uint32(p[8:]),
			TargetID:         le.Uint32(t[8:]),
			OutputTechnology: le.Uint32(t[16:]),
			Rotation:         le.Uint32(t[20:]),
			Scaling:          le.Uint32(t[24:]),
			TargetAvailable:  le.Uint32(t[40:]) != 0,
			Active:           le.Uint32(p[68:])&1 != 0,
		}
		if num, den := le.Uint32(t[28:]), le.Uint32(t[32:]); den != 0 {
			d.RefreshHz = float64(num) / float64(den)
		}
		d.ScalingName = ScalingName(d.Scaling)
		if d.ScalingName == "" {
			return nil, fmt.Errorf("display path %d (byte %d): scaling %d is not a DISPLAYCONFIG_SCALING value", i, i*PathInfoSize+44, d.Scaling)
		}
		paths[i] = d
	}
	return paths, nil
}

// scalings are the DISPLAYCONFIG_SCALING values.
var scalings = []struct {
	n          uint32
	name, desc string
}{
	{1, "identity", "no scaling: the source mode is shown pixel for pixel"},
	{2, "centered", "the image is centred, unscaled, with black borders"},
	{3, "stretched", "the image is stretched to fill the display, aspect ratio lost"},
	{4, "aspect-ratio-centered-max", "scaled as large as the aspect ratio allows, centred"},
	{5, "custom", "a custom scaling the driver defines"},
	{128, "preferred", "the driver's preferred scaling for the display"},
}

// ScalingName names a DISPLAYCONFIG_SCALING value ("" when unknown).
func ScalingName(n uint32) string {
	for _, s := range scalings {
		if s.n == n {
			return s.name
		}
	}
	return ""
}
