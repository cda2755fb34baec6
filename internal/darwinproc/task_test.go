package darwinproc

import (
	"encoding/binary"
	"errors"
	"testing"
)

// put writes v little-endian at off, sized by its type. Tests place fields
// at the offsets read off proc_info.h by hand, not through the package's
// constants, so a wrong constant fails here as well as in layout_check.go.
func put(b []byte, off int, v any) {
	switch v := v.(type) {
	case uint64:
		binary.LittleEndian.PutUint64(b[off:], v)
	case uint32:
		binary.LittleEndian.PutUint32(b[off:], v)
	case int32:
		binary.LittleEndian.PutUint32(b[off:], uint32(v))
	case uint16:
		binary.LittleEndian.PutUint16(b[off:], v)
	case string:
		copy(b[off:], v)
	default:
		panic("put: unsupported type")
	}
}

func TestDecodeTaskInfo_Fields(t *testing.T) {
	b := make([]byte, 96)
	put(b, 0, uint64(1<<33)) // pti_virtual_size
	put(b, 8, uint64(5<<20)) // pti_resident_size
	put(b, 16, uint64(24e6)) // pti_total_user: one second of 24 MHz ticks
	put(b, 24, uint64(12e6)) // pti_total_system
	put(b, 48, int32(1))     // pti_policy
	put(b, 52, int32(901))   // pti_faults
	put(b, 64, int32(31))    // pti_messages_sent
	put(b, 68, int32(32))    // pti_messages_received
	put(b, 72, int32(77))    // pti_syscalls_mach
	put(b, 76, int32(1234))  // pti_syscalls_unix
	put(b, 80, int32(-5))    // pti_csw, wrapped
	put(b, 84, int32(3))     // pti_threadnum
	put(b, 88, int32(1))     // pti_numrunning
	put(b, 92, int32(31))    // pti_priority
	want := Task{VirtualSize: 1 << 33, ResidentSize: 5 << 20, TotalUser: 1e9, TotalSystem: 5e8, Faults: 901,
		MessagesSent: 31, MessagesReceived: 32, SyscallsMach: 77, SyscallsUnix: 1234, CSw: -5, ThreadNum: 3, NumRunning: 1}
	t.Run("apple silicon timebase", func(t *testing.T) {
		got, err := decodeTaskInfo(b, 24e6)
		if err != nil || got != want {
			t.Fatalf("decodeTaskInfo = %+v, %v; want %+v", got, err, want)
		}
	})
	t.Run("nanosecond timebase keeps the value", func(t *testing.T) {
		got, err := decodeTaskInfo(b, 1e9)
		if err != nil || got.TotalUser != 24e6 || got.TotalSystem != 12e6 {
			t.Fatalf("decodeTaskInfo = %+v, %v; want times 24e6 and 12e6", got, err)
		}
	})
	t.Run("short", func(t *testing.T) {
		if _, err := decodeTaskInfo(b[:95], 1e9); !errors.Is(err, ErrShort) {
			t.Fatalf("decodeTaskInfo(95 bytes) error = %v, want ErrShort", err)
		}
	})
}

func TestTicksToNanos_Conversions(t *testing.T) {
	for _, c := range []struct {
		name              string
		ticks, freq, want uint64
	}{
		{"unknown frequency", 42, 0, 42},
		{"intel", 123456789, 1e9, 123456789},
		{"apple silicon 24 MHz", 24, 24e6, 1000},
		{"apple silicon, truncates", 1, 24e6, 41},
		{"large without overflow", 24e6 * 3600 * 24 * 365, 24e6, 1e9 * 3600 * 24 * 365},
		{"saturates", ^uint64(0), 1e6, ^uint64(0)},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := ticksToNanos(c.ticks, c.freq); got != c.want {
				t.Fatalf("ticksToNanos(%d, %d) = %d, want %d", c.ticks, c.freq, got, c.want)
			}
		})
	}
}
