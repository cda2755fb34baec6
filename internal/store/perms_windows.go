//go:build windows

package store

import (
	"fmt"
	"log/slog"
	"os"

	"github.com/agentty/agentty/internal/winacl"
)

// makePrivate gives dir a protected DACL for this user and SYSTEM, which
// the database and segment files made inside inherit; a file mode is only
// a read-only bit here. A directory another user owns is refused. The DACL
// is set at every open: one call, and it repairs a loosened one.
func makePrivate(dir string, _ os.FileInfo, _ *slog.Logger) error {
	if err := winacl.CheckOwned(dir); err != nil {
		return notOurs(dir, "is not this user's ("+err.Error()+")")
	}
	if err := winacl.MakePrivate(dir); err != nil {
		return fmt.Errorf("store: make data dir %s private: %w", dir, err)
	}
	return nil
}
