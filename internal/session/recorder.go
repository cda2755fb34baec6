package session

import (
	"time"

	"github.com/agentty/agentty/internal/record"
)

// nopRecorder is the record.Recorder when none is configured.
type nopRecorder struct{}

func (nopRecorder) Started(record.Start)                        {}
func (nopRecorder) Input(string, []byte, bool, string)          {}
func (nopRecorder) Resized(string, int, int)                    {}
func (nopRecorder) Signaled(string, string)                     {}
func (nopRecorder) Exited(string, record.ExitStatus, time.Time) {}
