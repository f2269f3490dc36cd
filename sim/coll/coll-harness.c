/* SPDX-License-Identifier: Apache-2.0 */
/* What a benchmark reports for a collective call (coll-harness.h; the
 * names are coll-names.c's). */
#include "coll/coll-harness.h"

#include <glib.h>

void
coll_harness_time(const HwRuntime *rt, const CollHarness *h, uint32_t ppn, uint64_t kernel_ps,
                  CollHarnessTime *out)
{
    if (rt == NULL) {
        *out = (CollHarnessTime){.device_ps = kernel_ps, .time_ps = kernel_ps};
        return;
    }
    uint64_t per_thread = h->gpus_per_thread ? h->gpus_per_thread : MAX(ppn, 1);
    uint64_t gpus = h->mode == COLL_LAUNCH_THREADS ? per_thread : 1;
    uint64_t iterations = h->n_iterations ? h->n_iterations : rt->n_iterations;
    out->issue_ps = gpus * (h->cuda_graph ? rt->graph_issue_ps : rt->host_issue_ps);
    out->device_ps = kernel_ps + (h->cuda_graph ? rt->graph_kernel_gap_ps : rt->kernel_gap_ps);
    if (h->kind == COLL_HARNESS_BLOCKING) {
        out->time_ps = out->issue_ps + rt->launch_latency_ps + kernel_ps;
        return;
    }
    uint64_t pace = MAX(out->issue_ps, out->device_ps);
    uint64_t once = MIN(out->issue_ps, out->device_ps) + rt->launch_latency_ps;
    out->time_ps = pace + (once + iterations / 2) / iterations;
}
