/* SPDX-License-Identifier: Apache-2.0 */
/* The loopback model's [loopback] group: the fixed plan of nvlsim-bench's
 * ring kernel (slots) and the four costs that time it (one CTA's streaming
 * rate, a flag's visibility, a step's software cost, an iteration's launch).
 * The memory system is taken as never the bottleneck: K CTAs at a few tens
 * of GB/s each stay far below the GPU's L2 and HBM rates for the K the
 * kernel runs (a check of that is up to the measurement, not the loader).
 */
#include "hw/hw-loopback.h"

#include "hw/hw-keys.h"

#define FIELD(f) offsetof(HwLoopback, f)

static const HwKey loopback_keys[] = {
    {"cta_bandwidth", HW_KEY_BYTES_PER_S, FIELD(cta_bytes_per_s), true,
     "what one CTA stores into its successor's slot while streaming, such as 40GB/s"},
    {"flag_latency", HW_KEY_TIME_PS, FIELD(flag_latency_ps), true,
     "a store becoming visible to another CTA of the GPU, such as 700ns"},
    {"step_overhead", HW_KEY_TIME_PS, FIELD(step_overhead_ps), true,
     "a step's fixed cost in the CTA beyond the wire (polling, fences, barriers), such as 1us"},
    {"launch", HW_KEY_TIME_PS, FIELD(launch_ps), true,
     "one iteration's fixed cost (flag reset and kernel launch, back to back), such as 5us"},
    {"slot", HW_KEY_SIZE_BYTES, FIELD(slot_bytes), false,
     "bytes of one receive slot, the largest step (default 512KiB, the kernel's)"},
    {"slots", HW_KEY_COUNT, FIELD(n_slots), false,
     "receive slots per rank, the steps in flight (default 8, the kernel's)"},
};

const HwKeyTable hw_loopback_key_table = {"models/system/ID.ini", "loopback", loopback_keys, G_N_ELEMENTS(loopback_keys)};

void
hw_loopback_free(HwLoopback *loopback)
{
    if (loopback == NULL)
        return;
    g_free(loopback->port.name);
    g_free(loopback);
}

static bool
check_ranges(const HwLoopback *lb, const char *path, GError **error)
{
    const uint64_t ms = 1000000000ull, s = 1000 * ms;
    return hw_keys_check_range(path, "loopback", "flag_latency", lb->flag_latency_ps, 0, ms,
                               error) &&
           hw_keys_check_range(path, "loopback", "step_overhead", lb->step_overhead_ps, 0, ms,
                               error) &&
           hw_keys_check_range(path, "loopback", "launch", lb->launch_ps, 0, s, error) &&
           hw_keys_check_range(path, "loopback", "slot", lb->slot_bytes, 16, 1ull << 30, error) &&
           hw_keys_check_range(path, "loopback", "slots", lb->n_slots, 1, 64, error);
}

HwLoopback *
hw_loopback_load(GKeyFile *kf, const char *path, GError **error)
{
    g_autoptr(HwLoopback) lb = g_new0(HwLoopback, 1);
    lb->slot_bytes = 512 * 1024;
    lb->n_slots = 8;
    if (!hw_keys_load(kf, path, "loopback", loopback_keys, G_N_ELEMENTS(loopback_keys), lb,
                      error) ||
        !check_ranges(lb, path, error))
        return NULL;
    if (lb->slot_bytes % 16 != 0) {
        hw_keys_fail(error, path, "loopback", "slot",
                     "%" G_GUINT64_FORMAT " B is not a whole number of 16-byte vectors",
                     lb->slot_bytes);
        return NULL;
    }
    lb->port = (HwLink){
        .name = g_strdup("CTA to memory system"),
        .kind = HW_LINK_MEMORY,
        .n_lanes = 1,
        .sm_payload_bytes = 128,
        .ce_payload_bytes = 128,
        .latency_ps = lb->flag_latency_ps / 2,
        .rx_buffer_bytes = lb->slot_bytes * lb->n_slots,
        .credit_bytes = 16,
        .replay_buffer_bytes = lb->slot_bytes * lb->n_slots,
    };
    hw_loopback_set_costs(lb, lb->cta_bytes_per_s, lb->step_overhead_ps, lb->launch_ps);
    return g_steal_pointer(&lb);
}

void
hw_loopback_set_costs(HwLoopback *loopback, uint64_t cta_bytes_per_s, uint64_t step_overhead_ps,
                      uint64_t launch_ps)
{
    g_return_if_fail(cta_bytes_per_s > 0);
    loopback->cta_bytes_per_s = cta_bytes_per_s;
    loopback->step_overhead_ps = step_overhead_ps;
    loopback->launch_ps = launch_ps;
    loopback->port.lane_bytes_per_s = cta_bytes_per_s;
    loopback->port.bytes_per_s = cta_bytes_per_s;
}
