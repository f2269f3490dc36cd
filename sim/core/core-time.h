/* SPDX-License-Identifier: Apache-2.0 */
/* Simulated time and the one serialization-delay function.
 *
 * Simulated time is an unsigned 64-bit count of picoseconds (2^64 ps is
 * about 213 days), so event order never depends on floating-point rounding.
 */
#pragma once

#include <stdint.h>

#define SIM_PS_PER_NS UINT64_C(1000)
#define SIM_PS_PER_US UINT64_C(1000000)
#define SIM_PS_PER_MS UINT64_C(1000000000)
#define SIM_PS_PER_S UINT64_C(1000000000000)

/* The time that never comes: "no limit" for sim_engine_run(), and the value
 * sim_serialization_ps() saturates to. */
#define SIM_TIME_NEVER UINT64_MAX

/* Time to put n_bytes on a wire of bytes_per_s bytes per second, in ps,
 * rounded up to the next whole picosecond. The product is formed in 128 bits,
 * so multi-GiB transfers cannot overflow; a result past SIM_TIME_NEVER
 * saturates to it. bytes_per_s must be non-zero. */
uint64_t sim_serialization_ps(uint64_t n_bytes, uint64_t bytes_per_s);
