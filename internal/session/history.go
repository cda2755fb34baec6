package session

import "github.com/agentty/agentty/internal/outlog"

// OutputLog is the session's output log, for non-consuming views of past
// output (get_history). Reading it moves no reader's cursor.
func (s *Session) OutputLog() outlog.Log { return s.log }
