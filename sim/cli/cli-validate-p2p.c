/* SPDX-License-Identifier: Apache-2.0 */
/* validate's p2p_* rows (p2pBandwidthLatencyTest and its variants): copy
 * bandwidth one way, both ways, staged through the host, relayed through an
 * intermediate GPU where the algorithm column says so, and the time of one
 * copy ("latency"). The GPU pair comes from the source note ("GPU0->GPU3");
 * a blank size means the CUDA sample's 40 MB copy (4 B for latency). */
#include <math.h>
#include <string.h>

#include "cli/cli-validate.h"
#include "net/net-p2p.h"

#define DEFAULT_COPY_BYTES 40000000
#define DEFAULT_LATENCY_BYTES 4

static bool
p2p_kind(const char *measure, NetP2pKind *kind, bool *latency)
{
    *latency = false;
    if (strcmp(measure, "p2p_write_unidirectional") == 0 ||
        strcmp(measure, "p2p_copy_unidirectional") == 0)
        *kind = NET_P2P_UNIDIRECTIONAL;
    else if (strcmp(measure, "p2p_copy_bidirectional_total") == 0)
        *kind = NET_P2P_BIDIRECTIONAL;
    else if (strcmp(measure, "p2p_copy_unidirectional_via_host") == 0)
        *kind = NET_P2P_VIA_HOST;
    else if (strcmp(measure, "p2p_latency") == 0) {
        *kind = NET_P2P_UNIDIRECTIONAL;
        *latency = true;
    } else
        return false;
    return true;
}

/* The simulated value: GB/s for bandwidths, us for latency. */
static double
simulate(Validation *v, TopoWorld *fabric, NetP2pKind kind, bool latency, uint32_t a, uint32_t b,
         uint64_t n_bytes)
{
    g_autofree char *key = g_strdup_printf("p2p|%s|%d|%d|%u|%u|%" G_GUINT64_FORMAT,
                                           fabric->system->id, (int)kind, latency, a, b, n_bytes);
    double *memo = g_hash_table_lookup(v->memo, key);
    if (memo != NULL)
        return memo[0];
    NetP2p p2p = {
        .fidelity = v->fidelity,
        .issuer = NET_ISSUER_CE,
        .copy_overhead_ps = fabric->system->copy_overhead_ps,
        .graph = fabric->graph,
        .router = fabric->router,
    };
    memo = g_new(double, 2);
    memo[0] = latency ? (double)net_p2p_time_ps(&p2p, kind, a, b, n_bytes) / 1e6
                      : net_p2p_bandwidth(&p2p, kind, a, b, n_bytes) / 1e9;
    memo[1] = NAN;
    g_hash_table_insert(v->memo, g_steal_pointer(&key), memo);
    return memo[0];
}

void
validate_p2p_row(Validation *v, const SimCsv *csv, const CliRowColumns *col, guint r)
{
    const char *system = sim_csv_field(csv, r, col->system);
    const char *measure = sim_csv_field(csv, r, col->collective);
    uint32_t line = g_array_index(csv->lines, uint32_t, r);
    NetP2pKind kind;
    bool latency;
    if (!p2p_kind(measure, &kind, &latency)) {
        validate_skip(v, "unknown p2p measure");
        return;
    }
    const char *text = sim_csv_field(csv, r, latency ? col->time_us : col->busbw);
    g_autoptr(GError) error = NULL;
    double measured, bytes = latency ? DEFAULT_LATENCY_BYTES : DEFAULT_COPY_BYTES;
    if (!cli_rows_number(csv, r, latency ? col->time_us : col->busbw,
                         latency ? "time_us" : "busbw_gbps", &measured, &error) ||
        (*sim_csv_field(csv, r, col->bytes) != '\0' &&
         !cli_rows_number(csv, r, col->bytes, "bytes", &bytes, &error))) {
        validate_bad_error(v, error);
        return;
    }
    if (validate_rounding_share(text, measured) > VALIDATE_MAX_ROUNDING_SHARE) {
        validate_skip(v, "measured value printed to too few digits (its rounding alone exceeds "
                         "5%)");
        return;
    }
    if (bytes < (double)v->min_bytes) {
        validate_skip(v, "below --min-bytes");
        return;
    }
    uint32_t a, b;
    cli_rows_pair(sim_csv_field(csv, r, col->note), &a, &b);
    if (v->read_only)
        return;
    TopoWorld *fabric = validate_fabric(v, system, 1, false, NULL, &error);
    if (fabric == NULL) {
        validate_bad(v, csv, r, "nvlsim_system", "%s", error->message);
        return;
    }
    uint32_t n_gpus = topo_graph_n_gpus(fabric->graph);
    if (a >= n_gpus || b >= n_gpus || a == b || bytes < 1 || bytes > 1e15) {
        validate_bad(v, csv, r, "source_note", "GPU%u->GPU%u of %.0f bytes does not fit %s", a, b,
                     bytes, system);
        return;
    }
    /* Tartan's variant relays copies between GPUs without a direct NVLink
     * through an intermediate GPU; its rows say so in the algorithm column. */
    NetP2p probe = {.graph = fabric->graph, .router = fabric->router};
    if (kind == NET_P2P_VIA_HOST && !net_p2p_via_host_routed(&probe, a, b)) {
        validate_bad(v, csv, r, "source_note",
                     "GPU%u->GPU%u cannot be staged through GPU%u's host memory on %s: its "
                     "nearest CPU has no route to GPU%u; expected a pair whose host reaches both",
                     a, b, a, system, b);
        return;
    }
    if (strstr(sim_csv_field(csv, r, col->algorithm), "intermediate GPU") != NULL &&
        !net_p2p_nvlink(&probe, a, b) && kind != NET_P2P_VIA_HOST)
        kind = kind == NET_P2P_BIDIRECTIONAL ? NET_P2P_RELAY_BIDIRECTIONAL : NET_P2P_RELAY;
    g_autofree char *pair = g_strdup_printf("GPU%u->GPU%u", a, b);
    ValidateRow row = {
        .line = line,
        .system = system,
        .measure = measure,
        .n_gpus = 2,
        .n_bytes = (uint64_t)bytes,
        .detail = pair,
        .unit = latency ? "us" : "GB/s",
        .measured = measured,
        .simulated = simulate(v, fabric, kind, latency, a, b, (uint64_t)bytes),
        .model = NAN,
    };
    validate_record(v, &row);
}
