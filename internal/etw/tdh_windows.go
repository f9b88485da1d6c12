package etw

import (
	"errors"
	"fmt"
	"syscall"

	"github.com/latlab/latlab/internal/winapi"
)

// errorInsufficientBuffer is ERROR_INSUFFICIENT_BUFFER (winerror.h): the
// TRACE_EVENT_INFO needs more room; bufferSize says how much.
const errorInsufficientBuffer = syscall.Errno(122)

func init() { eventTemplate = tdhEventTemplate }

// tdhEventTemplate is the event's template from its provider's manifest,
// read with TdhGetEventInformation during the trace callback.
func tdhEventTemplate(ev *Event) (*EventInfo, error) {
	if ev.record == nil {
		return nil, errors.New("no EVENT_RECORD: only a live session's events have a template")
	}
	size := uint32(4096)
	for range 3 {
		buf := make([]byte, size)
		err := winapi.TdhGetEventInformation(ev.record, 0, 0, &buf[0], &size)
		switch {
		case errors.Is(err, errorInsufficientBuffer) && size > uint32(len(buf)) && size <= maxEventInfo:
			continue
		case err != nil:
			return nil, fmt.Errorf("TdhGetEventInformation (event %d, version %d): %w", ev.ID, ev.Version, err)
		}
		if size > uint32(len(buf)) {
			size = uint32(len(buf))
		}
		return ParseEventInfo(buf[:size])
	}
	return nil, fmt.Errorf("TdhGetEventInformation (event %d, version %d): the template needs %d bytes", ev.ID, ev.Version, size)
}
