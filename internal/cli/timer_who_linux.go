package cli

// On Linux one look is the default: the holders are a state, read at once.
const timerWhoDefaultSeconds = 0
