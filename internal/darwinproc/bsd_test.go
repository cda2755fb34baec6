package darwinproc

import (
	"errors"
	"testing"
	"time"
)

func TestDecodeBSDInfo_Fields(t *testing.T) {
	b := make([]byte, 136)
	put(b, 0, uint32(0x4061))       // pbi_flags
	put(b, 4, uint32(StatusSleep))  // pbi_status
	put(b, 12, uint32(4242))        // pbi_pid
	put(b, 16, uint32(4200))        // pbi_ppid
	put(b, 20, uint32(501))         // pbi_uid
	put(b, 24, uint32(20))          // pbi_gid
	put(b, 28, uint32(502))         // pbi_ruid
	put(b, 48, "python3.12")        // pbi_comm
	put(b, 64, "a longer name set") // pbi_name
	put(b, 96, uint32(256))         // pbi_nfiles
	put(b, 100, uint32(4242))       // pbi_pgid
	put(b, 108, uint32(0x10000003)) // e_tdev
	put(b, 112, uint32(4300))       // e_tpgid
	put(b, 116, int32(-5))          // pbi_nice
	put(b, 120, uint64(1764340000)) // pbi_start_tvsec
	put(b, 128, uint64(123456))     // pbi_start_tvusec
	got, err := decodeBSDInfo(b)
	want := BSD{PID: 4242, PPID: 4200, PGID: 4242, UID: 501, RUID: 502, Status: StatusSleep, Flags: 0x4061,
		Comm: "python3.12", Name: "a longer name set", NFiles: 256, TDev: 0x10000003, TPGID: 4300, Nice: -5,
		Start: time.Unix(1764340000, 123456000)}
	if err != nil || got != want {
		t.Fatalf("decodeBSDInfo = %+v, %v\nwant %+v", got, err, want)
	}
	if us := got.StartMicros(); us != 1764340000123456 {
		t.Errorf("StartMicros = %d, want 1764340000123456", us)
	}
	if _, err := decodeBSDInfo(b[:135]); !errors.Is(err, ErrShort) {
		t.Errorf("decodeBSDInfo(135 bytes) error = %v, want ErrShort", err)
	}
}

func TestDecodeUniqIDs_Fields(t *testing.T) {
	b := make([]byte, 56)
	put(b, 0, "0123456789abcdef")     // p_uuid
	put(b, 16, uint64(0x1_0000_0abc)) // p_uniqueid
	put(b, 24, uint64(0x1_0000_0001)) // p_puniqueid
	put(b, 32, int32(7))              // p_idversion
	put(b, 36, int32(3))              // p_orig_ppidversion
	got, err := decodeUniqIDs(b)
	want := IDs{Unique: 0x1_0000_0abc, ParentUnique: 0x1_0000_0001, IDVersion: 7}
	if err != nil || got != want {
		t.Fatalf("decodeUniqIDs = %+v, %v; want %+v", got, err, want)
	}
	if _, err := decodeUniqIDs(b[:55]); !errors.Is(err, ErrShort) {
		t.Errorf("decodeUniqIDs(55 bytes) error = %v, want ErrShort", err)
	}
}

func TestDecodeFDs_List(t *testing.T) {
	b := make([]byte, 3*8+5)
	put(b, 0, int32(0))
	put(b, 4, uint32(FDVnode))
	put(b, 8, int32(3))
	put(b, 12, uint32(FDSocket))
	put(b, 16, int32(12))
	put(b, 20, uint32(FDPipe))
	got := decodeFDs(b)
	want := []FD{{0, FDVnode}, {3, FDSocket}, {12, FDPipe}}
	if len(got) != len(want) {
		t.Fatalf("decodeFDs = %+v, want %+v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("decodeFDs = %+v, want %+v", got, want)
		}
	}
}

func TestDecodeCwd_Path(t *testing.T) {
	b := make([]byte, 2352)
	put(b, 152, "/Users/me/src/app") // pvi_cdir.vip_path
	put(b, 152+1176, "/")            // pvi_rdir.vip_path
	if got, err := decodeCwd(b); err != nil || got != "/Users/me/src/app" {
		t.Fatalf("decodeCwd = %q, %v; want /Users/me/src/app", got, err)
	}
	if _, err := decodeCwd(b[:1000]); !errors.Is(err, ErrShort) {
		t.Errorf("decodeCwd(1000 bytes) error = %v, want ErrShort", err)
	}
}
