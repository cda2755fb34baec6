/*
 * ProcessPrng for Wine 8, which lacks bcryptprimitives.dll: Go 1.24 and
 * later get all their randomness from it on Windows and will not start
 * without it. scripts/test-wine builds this with mingw-w64 into the Wine
 * prefix's system32; it is never shipped. RtlGenRandom (SystemFunction036)
 * is what Wine's own CNG random calls come down to.
 */
#include <windows.h>
#include <ntsecapi.h>

BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T len)
{
	while (len > 0) {
		ULONG n = len > 0x40000000 ? 0x40000000 : (ULONG)len;
		if (!RtlGenRandom(data, n))
			return FALSE;
		data += n;
		len -= n;
	}
	return TRUE;
}
