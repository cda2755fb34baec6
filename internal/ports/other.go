//go:build !linux && !darwin && !windows

package ports

// Scan is unsupported without /proc or libproc.
func Scan(owners []Owner) ([]Socket, error) { return nil, ErrUnsupported }

// Scanner is unsupported without /proc or libproc.
type Scanner struct{}

// Scan is unsupported without /proc or libproc.
func (*Scanner) Scan(owners []Owner) ([]Socket, error) { return nil, ErrUnsupported }
