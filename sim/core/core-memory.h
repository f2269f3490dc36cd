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
 * naming it when it is not a size. Call once from main() before any
 * simulation; sim_memory_now takes an unreadable value as no limit. */
bool sim_memory_check_env(GError **error);

/* The memory held now and the limit; thread-safe. */
void sim_memory_now(SimMemory *m);

/* Whether the process holds more than its limit (m filled either way). */
bool sim_memory_exceeded(SimMemory *m);

/* "12.3 MiB" below a GiB, "4.56 GiB" above (GLib's g_format_size puts a
 * no-break space between number and unit, which a message read by grep
 * should not); to be freed. */
char *sim_memory_size_text(uint64_t bytes);

/* The error of a simulation stopped for memory: "WHAT outgrew the memory
 * available: X GiB held, the limit Y GiB (ORIGIN); SHRINK". */
void sim_memory_error(GError **error, const SimMemory *m, const char *what, const char *shrink);
