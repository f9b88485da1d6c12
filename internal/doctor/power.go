package doctor

// The PROCESS_POWER_THROTTLING_STATE bits (processthreadsapi.h).
const (
	throttleExecutionSpeed = 0x1
	throttleIgnoreTimerRes = 0x4
)

// powerThrottlingBuild is the first Windows build with process power
// throttling: Windows 10 1709, the minimum supported client of
// POWER_THROTTLING_PROCESS_STATE (learn.microsoft.com, ntddk.h), which
// PROCESS_POWER_THROTTLING_STATE mirrors.
const powerThrottlingBuild = 16299

// PowerThrottlingMeaning words a process's power-throttling control and
// state masks as GetProcessInformation returns them. A bit clear in the
// control mask leaves the policy to Windows.
func PowerThrottlingMeaning(control, state uint32) string {
	timerPart := "timer requests: Windows decides (Windows 11 may ignore them while the process's windows are hidden or minimised)"
	if control&throttleIgnoreTimerRes != 0 {
		if state&throttleIgnoreTimerRes != 0 {
			timerPart = "timer requests: ignored while in the background (opted in)"
		} else {
			timerPart = "timer requests: always honoured (opted out of throttling)"
		}
	}
	speedPart := "execution speed: Windows decides (EcoQoS when in the background)"
	if control&throttleExecutionSpeed != 0 {
		if state&throttleExecutionSpeed != 0 {
			speedPart = "execution speed: throttled (EcoQoS, opted in)"
		} else {
			speedPart = "execution speed: never throttled (opted out)"
		}
	}
	return timerPart + "; " + speedPart
}
