/* SPDX-License-Identifier: Apache-2.0 */
/* The loopback model: K virtual ranks on one GPU, one CTA each, joined
 * through that GPU's own memory system, as nvlsim-bench loopback runs its
 * ring kernel. A system file with a [loopback] group (and no [nvlink],
 * [host] or [network]) describes it; its [system] gpus is the most ranks
 * (one per SM). Description only.
 *
 *   [loopback] cta_bandwidth  what one CTA stores into its successor's slot
 *                             while it streams a step, such as 40GB/s
 *              flag_latency   a store becoming visible to another CTA
 *                             (through L2), such as 700ns
 *              step_overhead  a step's fixed cost in the CTA beyond the
 *                             wire: polling, fences, block barriers
 *              launch         one iteration's fixed cost: the flag reset and
 *                             the kernel launch, back to back
 *              slot (512KiB), slots (8): the kernel's receive slots per rank
 */
#pragma once

#include <glib.h>
#include <stdbool.h>
#include <stdint.h>

#include "hw/hw-keys.h"
#include "hw/hw-link.h"


typedef struct HwLoopback {
    uint64_t cta_bytes_per_s;
    uint64_t flag_latency_ps;
    uint64_t step_overhead_ps;
    uint64_t launch_ps;
    uint64_t slot_bytes;
    uint64_t n_slots;
    /* One CTA's path into the memory system, per direction: kind memory,
     * cta_bytes_per_s, half the flag latency (a path crosses two), 128 B
     * stores, the rank's slots as its receive buffer. */
    HwLink port;
} HwLoopback;

/* Reads group [loopback] of kf (path names the file in messages) and
 * builds its port; NULL and error ("PATH: [loopback] key: ...") on bad
 * input. */
HwLoopback *hw_loopback_load(GKeyFile *kf, const char *path, GError **error);
/* Sets the three fitted costs (nvlsim calibrate loopback), keeping the
 * port's rate in step. cta_bytes_per_s must be positive. */
void hw_loopback_set_costs(HwLoopback *loopback, uint64_t cta_bytes_per_s,
                           uint64_t step_overhead_ps, uint64_t launch_ps);
void hw_loopback_free(HwLoopback *loopback);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(HwLoopback, hw_loopback_free)

/* The [loopback] group of a system file's key table (for listings and tests). */
extern const HwKeyTable hw_loopback_key_table;
