package darwinproc

import (
	"errors"
	"reflect"
	"testing"
)

func TestDecodeThreadInfo_Fields(t *testing.T) {
	b := make([]byte, 112)
	put(b, 0, uint64(1500000))   // pth_user_time, ns
	put(b, 8, uint64(250000))    // pth_system_time
	put(b, 16, int32(980))       // pth_cpu_usage
	put(b, 20, int32(1))         // pth_policy
	put(b, 24, int32(3))         // pth_run_state: TH_STATE_WAITING
	put(b, 28, uint32(0x2))      // pth_flags: TH_FLAGS_IDLE
	put(b, 32, int32(9))         // pth_sleep_time
	put(b, 36, int32(31))        // pth_curpri
	put(b, 48, "com.apple.main") // pth_name
	got, err := decodeThreadInfo(0x1234, b)
	want := ThreadInfo{ID: 0x1234, UserTime: 1500000, SystemTime: 250000, RunState: RunWaiting, Idle: true, SleepTime: 9, Name: "com.apple.main"}
	if err != nil || got != want {
		t.Fatalf("decodeThreadInfo = %+v, %v; want %+v", got, err, want)
	}
	t.Run("name fills the field", func(t *testing.T) {
		c := append([]byte(nil), b...)
		for i := 48; i < 112; i++ {
			c[i] = 'x'
		}
		got, _ := decodeThreadInfo(1, c)
		if len(got.Name) != 64 {
			t.Fatalf("name of a full field: %d bytes, want 64", len(got.Name))
		}
	})
	t.Run("short", func(t *testing.T) {
		if _, err := decodeThreadInfo(1, b[:111]); !errors.Is(err, ErrShort) {
			t.Fatalf("decodeThreadInfo(111 bytes) error = %v, want ErrShort", err)
		}
	})
}

func TestDecodeThreadIDs_List(t *testing.T) {
	for _, c := range []struct {
		name string
		b    []byte
		want []uint64
	}{
		{"empty", nil, []uint64{}},
		{"two", le.AppendUint64(le.AppendUint64(nil, 0x10b), 0xffff_0000_0000_0001), []uint64{0x10b, 0xffff_0000_0000_0001}},
		{"unfilled slot skipped", le.AppendUint64(le.AppendUint64(nil, 0), 7), []uint64{7}},
		{"partial entry ignored", append(le.AppendUint64(nil, 9), 1, 2, 3), []uint64{9}},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := decodeThreadIDs(c.b); !reflect.DeepEqual(got, c.want) {
				t.Fatalf("decodeThreadIDs = %v, want %v", got, c.want)
			}
		})
	}
}
