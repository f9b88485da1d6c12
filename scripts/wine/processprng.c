/* bcryptprimitives.dll shim for Wine 8, which lacks ProcessPrng.
 * Go 1.22+ Windows binaries import ProcessPrng for crypto/rand and the
 * runtime's random seed; RtlGenRandom (SystemFunction036) is equivalent. */
#include <windows.h>
BOOLEAN WINAPI SystemFunction036(PVOID buf, ULONG len);
BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T len) {
    while (len > 0) {
        ULONG chunk = len > 0x10000000 ? 0x10000000 : (ULONG)len;
        if (!SystemFunction036(data, chunk)) return FALSE;
        data += chunk;
        len -= chunk;
    }
    return TRUE;
}
