package knob

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/latlab/latlab/internal/knob/backend"
)

// BootSecurity is what a change of the boot configuration risks.
// Microsoft, "BCD settings and BitLocker"
// (https://learn.microsoft.com/windows/security/operating-system-security/data-protection/bitlocker/bcd-settings-and-bitlocker):
// during boot BitLocker verifies that the security-sensitive BCD settings
// have not changed since it was last enabled, resumed or recovered, and a
// change it validates starts recovery (the recovery-key prompt; event ID
// 523 names the setting). Only when BitLocker uses Secure Boot for
// integrity validation, that is when its TPM protector's platform
// validation profile binds PCR 7, does Secure Boot answer for the BCD
// settings and a change pass without a recovery event; Secure Boot being
// on is not enough (a protector made with the legacy profile, PCRs 0, 2,
// 4 and 11, still validates the BCD). So a BCD write is a risk with
// BitLocker on unless every TPM protector binds PCR 7.
type BootSecurity struct {
	// BitLocker is on for the system drive (protection on, not
	// suspended).
	BitLocker bool
	// SecureBoot is on (UEFISecureBootEnabled).
	SecureBoot bool
	// Profiles are the PCRs of the platform validation profile of each
	// TPM key protector of the system drive
	// (Win32_EncryptableVolume.GetKeyProtectorPlatformValidationProfile).
	Profiles [][]int
}

// PCR7Bound reports whether BitLocker validates the boot with Secure Boot:
// there is a TPM protector and every one binds PCR 7.
func (s BootSecurity) PCR7Bound() bool {
	if len(s.Profiles) == 0 {
		return false
	}
	for _, p := range s.Profiles {
		if !slices.Contains(p, 7) {
			return false
		}
	}
	return true
}

// bcdSource names the page the boot warnings rest on.
const bcdSource = `Microsoft, "BCD settings and BitLocker"`

// BootWarning is the warning a plan that changes the boot configuration
// carries, "" when the plan changes no BCD element or the machine is not
// at risk. The facts come from env.BootSecurity; when they cannot be read
// the warning says so and names the risk.
func BootWarning(env *Env, changes []Change) string {
	bcd := false
	for _, c := range changes {
		bcd = bcd || c.Loc.Backend == backend.BackendBCD
	}
	if !bcd || env == nil || env.BootSecurity == nil {
		return ""
	}
	const risk = "this boot-configuration change can make the next boot ask for the BitLocker recovery key; have the key at hand, or suspend BitLocker for one reboot first (manage-bde -protectors -disable C: -RebootCount 1)"
	s, err := env.BootSecurity()
	switch {
	case err != nil:
		return fmt.Sprintf("could not check BitLocker's key protectors (%v): unless BitLocker is off or validates the boot with Secure Boot (PCR 7), %s (%s)", err, risk, bcdSource)
	case !s.BitLocker || s.PCR7Bound():
		return ""
	}
	why := "Secure Boot is off"
	switch {
	case len(s.Profiles) == 0:
		why = "no TPM key protector binds PCR 7 (Secure Boot validation)"
	case s.SecureBoot:
		why = "Secure Boot is on but BitLocker does not use it: its TPM protector's validation profile is PCRs " + pcrList(s.Profiles) + ", without PCR 7"
	}
	return fmt.Sprintf("BitLocker protects the system drive and %s: %s (%s)", why, risk, bcdSource)
}

// pcrList names the profiles' PCRs: "0, 2, 4, 11" (several protectors
// joined by "; ").
func pcrList(profiles [][]int) string {
	var out []string
	for _, p := range profiles {
		var n []string
		for _, r := range p {
			n = append(n, strconv.Itoa(r))
		}
		out = append(out, strings.Join(n, ", "))
	}
	return strings.Join(out, "; ")
}

// BitLockerScript prints, as JSON, the system drive's BitLocker protection
// status and the platform validation profile of each TPM key protector,
// from WMI's Win32_EncryptableVolume (root/cimv2/Security/
// MicrosoftVolumeEncryption): numbers only, the same in every display
// language, and there on editions without the BitLocker module. Key
// protector types 1, 4, 5 and 6 are the TPM ones (TPM, TPM and PIN, TPM
// and startup key, all three: GetKeyProtectorType).
const BitLockerScript = `$v = Get-CimInstance -Namespace root/cimv2/Security/MicrosoftVolumeEncryption -ClassName Win32_EncryptableVolume -ErrorAction Stop | Where-Object { $_.DriveLetter -eq $env:SystemDrive }
$p = @()
if ($v) {
  foreach ($id in @((Invoke-CimMethod -InputObject $v -MethodName GetKeyProtectors -Arguments @{KeyProtectorType=[uint32]0} -ErrorAction Stop).VolumeKeyProtectorID)) {
    $t = (Invoke-CimMethod -InputObject $v -MethodName GetKeyProtectorType -Arguments @{VolumeKeyProtectorID=$id} -ErrorAction Stop).KeyProtectorType
    if (@(1,4,5,6) -contains $t) {
      $pcr = (Invoke-CimMethod -InputObject $v -MethodName GetKeyProtectorPlatformValidationProfile -Arguments @{VolumeKeyProtectorID=$id} -ErrorAction Stop).PlatformValidationProfile
      $p += ,([pscustomobject]@{Type=[int]$t; PCRs=@($pcr | ForEach-Object { [int]$_ })})
    }
  }
}
[pscustomobject]@{ProtectionStatus=$(if ($v) { [int]$v.ProtectionStatus } else { 0 }); Protectors=@($p)} | ConvertTo-Json -Compress -Depth 4`

// ParseBitLocker reads BitLockerScript's output into s: ProtectionStatus
// 1 is on, 0 off (2 unknown: the volume is locked, taken as on), and the
// TPM protectors' PCRs (0 to 23).
func ParseBitLocker(r io.Reader, s *BootSecurity) error {
	b, err := io.ReadAll(io.LimitReader(r, 64<<10))
	if err != nil {
		return fmt.Errorf("Win32_EncryptableVolume: %w", err)
	}
	b = bytes.TrimSpace(bytes.TrimPrefix(b, []byte("\ufeff")))
	var raw struct {
		ProtectionStatus *int
		Protectors       []struct {
			Type int
			PCRs []int
		}
	}
	if err := json.Unmarshal(b, &raw); err != nil || raw.ProtectionStatus == nil {
		return fmt.Errorf("Win32_EncryptableVolume: want {\"ProtectionStatus\":N,\"Protectors\":[...]}, got %q", clip(string(b)))
	}
	switch *raw.ProtectionStatus {
	case 0:
		s.BitLocker = false
	case 1, 2:
		s.BitLocker = true
	default:
		return fmt.Errorf("Win32_EncryptableVolume: ProtectionStatus %d of the system drive, want 0, 1 or 2", *raw.ProtectionStatus)
	}
	s.Profiles = nil
	for _, p := range raw.Protectors {
		if len(s.Profiles) >= 16 || len(p.PCRs) > 24 {
			return fmt.Errorf("Win32_EncryptableVolume: %d protectors, %d PCRs: more than a TPM has", len(raw.Protectors), len(p.PCRs))
		}
		for _, r := range p.PCRs {
			if r < 0 || r > 23 {
				return fmt.Errorf("Win32_EncryptableVolume: PCR %d, want 0 to 23", r)
			}
		}
		s.Profiles = append(s.Profiles, slices.Clone(p.PCRs))
	}
	return nil
}
