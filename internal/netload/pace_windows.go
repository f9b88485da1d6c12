package netload

const pacerMethod = "high-resolution waitable timer, relative due time"

// paceResolution is 0: no timer-resolution request. The high-resolution
// waitable timer is not bound to the system timer interval, and a request
// would raise the timer interrupt rate of the whole machine.
const paceResolution = 0
