/* SPDX-License-Identifier: Apache-2.0 */
/* The memory a simulation may grow to, and how much it holds now, so that
 * a run too large for the machine ends with an error that says so instead
 * of being killed, swapping for hours or aborting in an allocation.
 *
 * Two limits: the resident set (VmRSS) may reach what the process held
 * when it was first asked plus the memory the kernel called available then
 * (MemAvailable of /proc/meminfo: free memory and the caches it can drop
 * without swapping), or NVLSIM_MEMORY_LIMIT (a size such as 8GiB) where
 * that is smaller; the virtual size may reach ulimit -v (RLIMIT_AS). They
 * are taken once, on the first call, so that the simulation's own growth
 * does not move them. The event engine compares every
 * SIM_MEMORY_CHECK_EVENTS events (core-engine.h); memory grows by doubling
 * arrays, so the check is a bound, not an exact budget.
 */
#pragma once

#include <glib.h>
#include <stdbool.h>
#include <stdint.h>

/* Events between two checks of the engine. */
#define SIM_MEMORY_CHECK_EVENTS 65536

typedef struct SimMemory {
    uint64_t in_use_bytes;    /* resident or virtual: of the limit nearer in proportion */
    uint64_t limit_bytes;     /* UINT64_MAX: no limit known */
    const char *limit_origin; /* where the limit comes from, in words */
} SimMemory;

/* Reads NVLSIM_MEMORY_LIMIT (unset or empty: none): false with an error
 * naming it when it is not a size; else takes the limits, once a process.
 * Call from main() before any simulation grows (sim_memory_now takes them
 * on its first call otherwise, an unreadable value as no limit). */
bool sim_memory_check_env(GError **error);

/* The memory held now and the limit; thread-safe. */
void sim_memory_now(SimMemory *m);

/* Whether the process holds more than its limit (m filled either way). */
bool sim_memory_exceeded(SimMemory *m);

/* The error of a simulation stopped for memory, with what it holds now:
 * "WHAT outgrew the memory available: X GiB held, the limit Y GiB
 * (ORIGIN); SHRINK". */
void sim_memory_error(GError **error, const char *what, const char *shrink);

/* Whether need_bytes more fit what is left of the limit now; if not, the
 * error of a refusal: "WHAT needs about X GiB (DETAIL), more than the Y
 * GiB left of the memory limit, Z GiB (ORIGIN): SHRINK". Sizes are MiB
 * below a GiB, GiB above. */
bool sim_memory_fits(uint64_t need_bytes);
void sim_memory_need_error(GError **error, uint64_t need_bytes, const char *what,
                           const char *detail, const char *shrink);
