//go:build !linux && !windows

package ports

// Scan is unsupported without /proc.
func Scan(owners []Owner) ([]Socket, error) { return nil, ErrUnsupported }

// Scanner is unsupported without /proc.
type Scanner struct{}

// Scan is unsupported without /proc.
func (*Scanner) Scan(owners []Owner) ([]Socket, error) { return nil, ErrUnsupported }
