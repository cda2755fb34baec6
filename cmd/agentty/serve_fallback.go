package main

import "fmt"

// standaloneNotice is what a client served standalone because the daemon
// runs with other settings is told once, in the instructions of its
// initialize result: without it the agent would look for the daemon's
// sessions here, and its own would end with it unexplained.
func standaloneNotice(reason error) string {
	return fmt.Sprintf("Note: this agentty server runs in this client's own process, not in the user's agentty daemon, because %v. "+
		"Sessions started here end when this client disconnects, and the daemon's running sessions cannot be driven from here. "+
		"For sessions that outlive the client, the user gives this client the daemon's settings, or stops the daemon (agentty daemon -stop, once its sessions have ended) so the next serve starts one with these.", reason)
}
