//go:build !linux

package ports

// Scan is unsupported without /proc.
func Scan(owners []Owner) ([]Socket, error) { return nil, ErrUnsupported }
