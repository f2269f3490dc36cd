/* SPDX-License-Identifier: Apache-2.0 */
/* nvlsim bench-net: the network engines' speed on the issue's two yard
 * sticks. Packet engine: an 8-GPU NVSwitch all-to-all moving 1 GiB in all
 * (packets and events per wall second). Flow engine: an all-to-all of 1 MiB
 * per pair among the GPUs of N nodes (default 128 DGX H100 = 1024 GPUs),
 * timed whole. Wall-clock figures vary; simulated times do not.
 */
#include <stdio.h>

#include "topo/topo-world.h"
#include "cli/cli.h"
#include "core/core-units.h"
#include "net/net-probe.h"

typedef struct BenchNetOptions {
    char *system;
    char *nodes;
    char *only;
} BenchNetOptions;

#define OPT(field) CLI_OPTION_AT(BenchNetOptions, field)

static const GOptionEntry bench_net_entries[] = {
    {"system", 's', 0, G_OPTION_ARG_STRING, OPT(system), "System model (default dgx-h100)", "NAME"},
    {"nodes", 'N', 0, G_OPTION_ARG_STRING, OPT(nodes),
     "Nodes in the flow-engine all-to-all (default 128)", "N"},
    {"only", 0, 0, G_OPTION_ARG_STRING, OPT(only), "Run one engine only: packet or flow", "ENGINE"},
    G_OPTION_ENTRY_NULL,
};

const CliUsage cli_bench_net_usage = {
    .summary = "Measures the network engines: a 1 GiB all-to-all among one "
               "node's GPUs at packet\nfidelity, and a 1 MiB-per-pair "
               "all-to-all across N nodes at flow fidelity.",
    .entries = bench_net_entries,
};

static NetProbeXfer *
all_to_all(const TopoGraph *graph, uint32_t n_gpus, uint64_t n_bytes, size_t *n)
{
    NetProbeXfer *x = g_new(NetProbeXfer, (size_t)n_gpus * (n_gpus - 1));
    *n = 0;
    for (uint32_t i = 0; i < n_gpus; i++)
        for (uint32_t j = 0; j < n_gpus; j++)
            if (i != j)
                x[(*n)++] = (NetProbeXfer){topo_graph_gpu_vertex(graph, i),
                                           topo_graph_gpu_vertex(graph, j), n_bytes};
    return x;
}

static void
bench_one(const char *label, NetFidelity fidelity, const TopoWorld *fabric, uint64_t n_bytes)
{
    uint32_t n_gpus = topo_graph_n_gpus(fabric->graph);
    size_t n;
    g_autofree NetProbeXfer *x = all_to_all(fabric->graph, n_gpus, n_bytes, &n);
    NetProbeResult r;
    int64_t t0 = g_get_monotonic_time();
    net_probe_run(fidelity, fabric->graph, fabric->router, x, n, NET_ISSUER_CE, NULL, &r);
    double wall_s = (double)(g_get_monotonic_time() - t0) / 1e6;
    printf("%-7s %-26s %6u %9zu %12" G_GUINT64_FORMAT " %12.3f %8.3f %12" G_GUINT64_FORMAT
           " %10.2f %12" G_GUINT64_FORMAT " %9.2f %8.1f\n",
           net_fidelity_name(fidelity), label, n_gpus, n, n_bytes, (double)r.last_done_ps / 1e6,
           wall_s, r.stats.n_packets, (double)r.stats.n_packets / wall_s / 1e6, r.n_events,
           (double)r.n_events / wall_s / 1e6, wall_s * 1e9 / (double)MAX(r.n_events, 1));
    fflush(stdout);
}

static int
bench_net_run(const BenchNetOptions *o, uint32_t n_nodes)
{
    g_autoptr(GError) error = NULL;
    const char *system = o->system ? o->system : "dgx-h100";
    printf("#%-6s %-26s %6s %9s %12s %12s %8s %12s %10s %12s %9s %8s\n", "engine", "case", "gpus",
           "transfers", "bytes_each", "sim_time_us", "wall_s", "packets", "Mpkt/s", "events",
           "Mev/s", "ns/ev");
    if (o->only == NULL || g_strcmp0(o->only, "packet") == 0) {
        g_autoptr(TopoWorld) one = topo_world_load(system, 1, NULL, &error);
        if (one == NULL) {
            cli_print_error("bench-net", error);
            return CLI_EXIT_BAD_INPUT;
        }
        uint32_t g = topo_graph_n_gpus(one->graph);
        uint64_t per_pair = (UINT64_C(1) << 30) / ((uint64_t)g * (g - 1));
        bench_one("all-to-all 1GiB total", NET_FIDELITY_PACKET, one, per_pair);
    }
    if (o->only == NULL || g_strcmp0(o->only, "flow") == 0) {
        g_autoptr(TopoWorld) many = topo_world_load(system, n_nodes, NULL, &error);
        if (many == NULL) {
            cli_print_error("bench-net", error);
            return CLI_EXIT_BAD_INPUT;
        }
        bench_one("all-to-all 1MiB per pair", NET_FIDELITY_FLOW, many, UINT64_C(1) << 20);
    }
    return CLI_EXIT_OK;
}

int
cli_bench_net(int argc, char **argv)
{
    BenchNetOptions o = {0};
    g_autoptr(GOptionContext) context = cli_usage_context(&cli_bench_net_usage, &o);
    int status = CLI_EXIT_USAGE;
    uint64_t n_nodes = 128;
    if (!cli_parse_options(context, "bench-net", &argc, &argv))
        goto out;
    if (argc > 1) {
        fprintf(stderr, "nvlsim bench-net: unexpected argument '%s'\n", argv[1]);
        goto out;
    }
    if (o.nodes &&
        (!sim_units_parse_count(o.nodes, &n_nodes, NULL) || n_nodes < 1 || n_nodes > 4096)) {
        fprintf(stderr, "nvlsim bench-net: --nodes: '%s': expected a whole number from 1 to 4096\n",
                o.nodes);
        goto out;
    }
    if (o.only && g_strcmp0(o.only, "packet") != 0 && g_strcmp0(o.only, "flow") != 0) {
        fprintf(stderr, "nvlsim bench-net: --only: '%s': expected packet or flow\n", o.only);
        goto out;
    }
    status = bench_net_run(&o, (uint32_t)n_nodes);
out:
    g_free(o.system);
    g_free(o.nodes);
    g_free(o.only);
    return status;
}
