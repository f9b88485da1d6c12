package knob

import (
	"fmt"

	"github.com/latlab/latlab/internal/knob/backend"
)

// BootSecurity is what a change of the boot configuration risks.
// Microsoft, "BCD settings and BitLocker"
// (https://learn.microsoft.com/windows/security/operating-system-security/data-protection/bitlocker/bcd-settings-and-bitlocker):
// during boot BitLocker verifies that the security-sensitive BCD settings
// have not changed since it was last enabled, resumed or recovered, and a
// change it validates starts recovery (the recovery-key prompt; event ID
// 523 names the setting); with Secure Boot used for BCD integrity
// validation, Secure Boot can correct BCD settings during boot without a
// recovery event. So a BCD write is a risk with BitLocker on and Secure
// Boot off.
type BootSecurity struct {
	// BitLocker is on for the system drive (protection on, not
	// suspended).
	BitLocker bool
	// SecureBoot is on (UEFISecureBootEnabled).
	SecureBoot bool
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
	s, err := env.BootSecurity()
	switch {
	case err != nil:
		return fmt.Sprintf("could not check BitLocker and Secure Boot (%v): if BitLocker protects the system drive without Secure Boot, this boot-configuration change can make the next boot ask for the BitLocker recovery key; have the key at hand, or suspend BitLocker for one reboot first (manage-bde -protectors -disable C: -RebootCount 1) (%s)", err, bcdSource)
	case s.BitLocker && !s.SecureBoot:
		return fmt.Sprintf("BitLocker protects the system drive and Secure Boot is off: this boot-configuration change can make the next boot ask for the BitLocker recovery key; have the key at hand, or suspend BitLocker for one reboot first (manage-bde -protectors -disable C: -RebootCount 1) (%s)", bcdSource)
	}
	return ""
}
