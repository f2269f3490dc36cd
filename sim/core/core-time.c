/* SPDX-License-Identifier: Apache-2.0 */
/* Serialization delay: bytes at a bandwidth, as integer picoseconds.
 *
 * Exact integer arithmetic: delay_ps = ceil(n_bytes * 1e12 / bytes_per_s),
 * with a 128-bit intermediate (n_bytes * 1e12 overflows 64 bits from
 * about 18 MB on). Rounding up keeps a transfer from finishing before its
 * last byte could have left.
 */
#include "core/core-time.h"

#include <glib.h>

uint64_t
sim_serialization_ps(uint64_t n_bytes, uint64_t bytes_per_s)
{
    g_return_val_if_fail(bytes_per_s > 0, SIM_TIME_NEVER);

    unsigned __int128 num = (unsigned __int128)n_bytes * SIM_PS_PER_S;
    unsigned __int128 q = num / bytes_per_s;
    if (num % bytes_per_s != 0)
        q++;
    return q > SIM_TIME_NEVER ? SIM_TIME_NEVER : (uint64_t)q;
}
