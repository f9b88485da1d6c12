package cli

// On Windows the default is the length of the powercfg /energy trace.
const timerWhoDefaultSeconds = 10
