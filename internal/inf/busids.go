package inf

import (
	"fmt"
	"strings"
)

// What Microsoft documents of the IDs Windows builds for a device on each
// bus latlab meets in network and audio INFs, where latlab does not build
// them all. The PCI lists ("Identifiers for PCI Devices") are built in
// full; the others are said in a note of the device report, so that a
// line matched "as written" is not taken for Windows' whole ranking.
var busIDNotes = map[string]string{
	"USB":     `latlab builds its hardware IDs ("Standard USB identifiers", and for an interface "Plug and Play support": VID&PID&REV&MI, then VID&PID&MI) but not its compatible IDs USB\CLASS_c&SUBCLASS_s&PROT_p, whose class codes the ID does not carry`,
	"HDAUDIO": `latlab builds the two hardware IDs Microsoft documents ("Identifiers for High Definition Audio (HDAUDIO) devices": the ID, then the ID without REV) and none of the compatible IDs, which that page does not list one by one`,
	"SD":      `matched as written: an SDIO function's one hardware ID is its device ID ("Identifiers for Secure Digital (SD) Devices"); its compatible ID SD\CLASS_c comes from a register the ID does not carry`,
	"PCMCIA":  `matched as written: the card's other hardware ID (manufacturer codes in place of the CRC) and its *PNP compatible IDs come from the card's tuples, not from the ID ("Identifiers for PCMCIA Devices")`,
	"ACPI":    `matched as written: Microsoft lists "some of the string patterns" Acpi.sys builds ("Device management namespace objects"), not which are hardware or compatible IDs nor their order`,
	"SWC":     `matched as written: a software component's hardware ID is SWC\ and the ComponentIDs value of the INF that creates it ("INF AddComponent Directive")`,
}

// busIDNote says what latlab built from the ID given and why, for an ID
// of any bus but PCI; "" for PCI.
func busIDNote(ids DeviceIDs) string {
	bus, _, ok := strings.Cut(strings.ToUpper(ids.Given), `\`)
	switch {
	case !ok:
		return fmt.Sprintf("%q names no bus (BUS\\ID): matched as written", ids.Given)
	case bus == "PCI":
		return ""
	case bus == "USB" && ids.asWritten:
		return `USB ID: matched as written: a root hub's IDs come from the host controller's driver, and Microsoft documents no list of them ("Standard USB identifiers" gives the hub driver's forms for the devices on a hub)`
	}
	if n, ok := busIDNotes[bus]; ok {
		return bus + " ID: " + n
	}
	return fmt.Sprintf(`%s ID: matched as written: Microsoft documents no list of IDs Windows builds for a %s device (a root-enumerated or software device has the IDs its creator gave)`, bus, bus)
}

// fewerParts reports whether infID is an ID of the given ID's bus that
// names some of its parts, all equal, and not all: one Windows may match
// through a compatible ID latlab does not build (HDAUDIO).
func (ids DeviceIDs) fewerParts(infID string) bool {
	if ids.parts == nil {
		return false
	}
	bus, rest, ok := strings.Cut(strings.ToUpper(infID), `\`)
	if !ok || bus != ids.bus {
		return false
	}
	parts, err := splitParts(rest, busParts[bus])
	if err != nil || len(parts) >= len(ids.parts) {
		return false
	}
	for k, v := range parts {
		if ids.parts[k] != v {
			return false
		}
	}
	return true
}
