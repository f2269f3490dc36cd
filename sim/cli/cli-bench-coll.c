/* SPDX-License-Identifier: Apache-2.0 */
/* nvlsim bench-coll: the collective layer's speed on the yard
 * sticks: an all_reduce sweep 8 B .. 8 GiB (factor 2) on 8 x H100 at flow
 * fidelity, timed whole, and its 1 GiB point at packet fidelity (wall time
 * and packets per wall second). Wall-clock figures vary; simulated ones do
 * not. */
#include <stdio.h>

#include "topo/topo-world.h"
#include "cli/cli.h"
#include "coll/coll-run.h"

static bool
sweep(const CollComm *comm, NetFidelity fidelity, uint64_t min_bytes, uint64_t max_bytes,
      uint64_t *packets, uint64_t *events, double *last_us, GError **error)
{
    for (uint64_t s = min_bytes; s <= max_bytes; s *= 2) {
        CollCall call = {.op = COLL_OP_ALL_REDUCE, .n_bytes = s, .elem_bytes = 4};
        CollResult r;
        if (!coll_run(comm, &call, fidelity, &r, error))
            return false;
        *packets += r.exec.net.n_packets;
        *events += r.exec.n_events;
        *last_us = (double)r.time_ps / 1e6;
    }
    return true;
}

const CliUsage cli_bench_coll_usage = {
    .summary = "Measures the collective layer: an all-reduce sweep from 8 B to 8 GiB, each size\n"
               "twice the last, on one DGX H100 (8 GPUs) at flow fidelity, and one 1 GiB\n"
               "all-reduce at packet fidelity; prints wall time, events, packets and the last\n"
               "call's time.",
    .description = "make bench runs this command.",
};

int
cli_bench_coll(int argc, char **argv)
{
    g_autoptr(GOptionContext) context = cli_usage_context(&cli_bench_coll_usage, NULL);
    if (!cli_parse_options(context, "bench-coll", &argc, &argv))
        return CLI_EXIT_USAGE;
    if (argc > 1) {
        fprintf(stderr, "nvlsim bench-coll: unexpected argument '%s'\n", argv[1]);
        return CLI_EXIT_USAGE;
    }
    g_autoptr(GError) error = NULL;
    g_autoptr(TopoWorld) fabric = topo_world_load("dgx-h100", 1, NULL, &error);
    g_autoptr(CollComm) comm =
        fabric ? coll_comm_new(fabric->system, fabric->graph, fabric->router, 8, &error) : NULL;
    if (comm == NULL) {
        cli_print_error("bench-coll", error);
        return CLI_EXIT_BAD_INPUT;
    }
    printf("#%-7s %-34s %8s %12s %12s %10s %12s\n", "engine", "case", "wall_s", "events", "packets",
           "Mpkt/s", "last_us");
    struct {
        NetFidelity fidelity;
        const char *label;
        uint64_t min, max;
    } cases[] = {
        {NET_FIDELITY_FLOW, "all_reduce 8 B..8 GiB x2, 8xH100", 8, UINT64_C(8) << 30},
        {NET_FIDELITY_PACKET, "all_reduce 1 GiB, 8xH100", UINT64_C(1) << 30, UINT64_C(1) << 30},
    };
    for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
        uint64_t packets = 0, events = 0;
        double last_us = 0;
        int64_t t0 = g_get_monotonic_time();
        if (!sweep(comm, cases[i].fidelity, cases[i].min, cases[i].max, &packets, &events, &last_us,
                   &error)) {
            cli_print_error("bench-coll", error);
            return CLI_EXIT_BAD_INPUT;
        }
        double wall = (double)(g_get_monotonic_time() - t0) / 1e6;
        printf("%-8s %-34s %8.3f %12" G_GUINT64_FORMAT " %12" G_GUINT64_FORMAT " %10.2f %12.2f\n",
               net_fidelity_name(cases[i].fidelity), cases[i].label, wall, events, packets,
               (double)packets / wall / 1e6, last_us);
        fflush(stdout);
    }
    return CLI_EXIT_OK;
}
