package mcpserver

import (
	"fmt"

	"github.com/agentty/agentty/internal/record"
	"github.com/agentty/agentty/internal/session"
)

// pastSessionErr says what a recorded session this server does not run is
// and which tools work on it; nil if the store does not hold id either.
func (t *tools) pastSessionErr(id string) error {
	r, err := t.store.Session(id)
	if err != nil {
		return nil
	}
	var what, also string
	switch r.State {
	case record.StateRunning:
		what = fmt.Sprintf("is running under agentty pid %d, another server sharing this transcript store; only that server can send it input, read it live or stop it", r.Owner)
		also = "delete it once it ends"
	case record.StateLost:
		what = "is lost"
		if r.LostReason != "" {
			what += ": " + r.LostReason
		}
		also = "delete_session removes it"
	default:
		how := "exited"
		if r.Signal != "" {
			how = "was killed by " + r.Signal
		} else if r.ExitCode != nil {
			how = fmt.Sprintf("exited with code %d", *r.ExitCode)
		}
		what = fmt.Sprintf("%s (recorded by agentty pid %d; a server drops ended sessions from memory after a while)", how, r.Owner)
		also = "delete_session removes it"
	}
	return fmt.Errorf("%w: session %s is a recorded session, not one this server runs: it %s. "+
		"Its transcript is readable here with get_history, search_output and list_messages, and get_session_info describes it (%s); "+
		"send_input, read_output, read_screen and terminate_process work only on this server's live sessions: start the program again with start_process to continue",
		session.ErrSessionNotFound, r.ID, what, also)
}
