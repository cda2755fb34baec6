// Package storetest helps tests stage what a transcript store shared by
// several agentty servers holds.
package storetest

import (
	"database/sql"
	"path/filepath"
	"testing"

	"github.com/agentty/agentty/internal/store"
)

// SetOwner records the process pid, started at start (see ProcStart), as
// the server owning session id in the store in dir: a live process other
// than the test makes the session another server's running one; a pid no
// process has makes it a server that stopped without recording the end.
func SetOwner(t testing.TB, dir, id string, pid int, start int64) {
	t.Helper()
	db, err := sql.Open("sqlite", filepath.Join(dir, store.FileName))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(`UPDATE sessions SET owner_pid=?, owner_start=? WHERE id=?`, pid, start, id); err != nil {
		t.Fatal(err)
	}
}
