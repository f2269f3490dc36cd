/* nvlsim coll: a collective size sweep as nccl-tests prints it, simulated.
 *
 * Per size: count, type, redop, root, time, algbw and busbw (nccl-tests'
 * factors), and what ran: algorithm, protocol, channels, and NCCL's own
 * model time for the same choice. --gpus below the system's count places
 * ranks on the first GPUs of a node; above it adds nodes on the fabric.
 * --gpu-list names a node's GPUs as CUDA_VISIBLE_DEVICES does (rank i of
 * each node on the i-th listed; --gpus, if given, a multiple of them) and
 * prints the rings NCCL builds on them where its search runs (a node of
 * direct NVLink pairs). --gpus-per-node K takes the first K GPUs of each
 * node instead (K dividing --gpus): --gpus 4 --gpus-per-node 1 is four
 * nodes of one GPU.
 * --fault KEY=VALUE takes [faults] keys (topo-fault.h): the same sweep
 * with links down, slow or noisy, on every node. The time is what the
 * benchmark would report per call (coll-harness.h: nccl-tests' loop, one
 * process per GPU, unless --harness, --launch-mode or --cuda-graph say
 * otherwise).
 */
#include <stdio.h>
#include <string.h>

#include "cli/cli-fabric.h"
#include "cli/cli-plot.h"
#include "cli/cli.h"
#include "coll/coll-run.h"
#include "core/core-units.h"
#include "hw/hw-gpu-list.h"
#include "hw/hw-models.h"

typedef struct CollOptions {
    char *system, *op, *gpus, *min_bytes, *max_bytes, *factor, *algo, *proto, *fidelity, *csv,
        *dtype, *root, *plot, *harness, *launch_mode, *gpu_list, *gpus_per_node;
} CollOptions;

typedef struct CollPlan {
    CollOp op;
    uint32_t n_gpus; /* 0: the system's GPUs per node */
    uint64_t min_bytes, max_bytes, factor;
    CollAlgo algo;
    CollProto proto;
    NetFidelity fidelity;
    const char *dtype;
    uint32_t elem_bytes;
    uint32_t root;
    CollHarness harness;
    bool collnet; /* --collnet */
} CollPlan;

/* CollOptions is freed as an array of strings: the other options beside it. */
typedef struct CollArgs {
    CollOptions o;
    char **faults;
    gboolean cuda_graph, collnet;
} CollArgs;

#define OPT(field) CLI_OPTION_AT(CollArgs, o.field)
#define ARG(field) CLI_OPTION_AT(CollArgs, field)

static const GOptionEntry coll_entries[] = {
    {"system", 's', 0, G_OPTION_ARG_STRING, OPT(system), "System model (default dgx-h100)", "NAME"},
    {"op", 'o', 0, G_OPTION_ARG_STRING, OPT(op),
     "all_reduce (default), all_gather, reduce_scatter, broadcast, reduce, alltoall, "
     "sendrecv",
     "OP"},
    {"gpus", 'g', 0, G_OPTION_ARG_STRING, OPT(gpus), "Ranks (default: one node's GPUs)", "N"},
    {"gpu-list", 0, 0, G_OPTION_ARG_STRING, OPT(gpu_list),
     "A node's GPUs, in rank order as CUDA_VISIBLE_DEVICES lists them (default: the first "
     "--gpus)",
     "0,3,4,7"},
    {"gpus-per-node", 0, 0, G_OPTION_ARG_STRING, OPT(gpus_per_node),
     "GPUs of each node the ranks take, its first K as NCCL places them (default: nodes "
     "filled in order)",
     "K"},
    {"minbytes", 'b', 0, G_OPTION_ARG_STRING, OPT(min_bytes), "Smallest size (default 8)", "SIZE"},
    {"maxbytes", 'e', 0, G_OPTION_ARG_STRING, OPT(max_bytes), "Largest size (default 128MiB)",
     "SIZE"},
    {"stepfactor", 'f', 0, G_OPTION_ARG_STRING, OPT(factor), "Multiplier between sizes (default 2)",
     "N"},
    {"algo", 0, 0, G_OPTION_ARG_STRING, OPT(algo),
     "auto (default, NCCL's choice), ring, tree, nvls, nvls_tree, direct, pat (one GPU "
     "per node), collnet_direct, collnet_chain",
     "A"},
    {"collnet", 0, 0, G_OPTION_ARG_NONE, ARG(collnet),
     "NCCL with its SHARP plugin (NCCL_COLLNET_ENABLE=1): in-network reduction on the "
     "fabric's switches (SHARPv2 or later, 2 nodes or more)",
     NULL},
    {"proto", 0, 0, G_OPTION_ARG_STRING, OPT(proto), "auto (default), LL, LL128, Simple", "P"},
    {"fidelity", 0, 0, G_OPTION_ARG_STRING, OPT(fidelity), "packet or flow (default flow)", "F"},
    {"datatype", 'd', 0, G_OPTION_ARG_STRING, OPT(dtype),
     "float (default), double, half, bfloat16, int8, int32, int64", "TYPE"},
    {"root", 'r', 0, G_OPTION_ARG_STRING, OPT(root), "Root rank of broadcast/reduce (0)", "N"},
    {"csv", 0, 0, G_OPTION_ARG_FILENAME, OPT(csv), "Also write the rows as CSV", "FILE"},
    {"plot", 0, 0, G_OPTION_ARG_FILENAME, OPT(plot),
     "Plot busbw against size with gnuplot (the CSV goes beside it without --csv)",
     "FILE.png|FILE.svg"},
    {"harness", 0, 0, G_OPTION_ARG_STRING, OPT(harness),
     "nccl-tests (default: calls back to back, the mean) or blocking (every call waited for)", "H"},
    {"launch-mode", 0, 0, G_OPTION_ARG_STRING, OPT(launch_mode),
     "mpi (default: one process per GPU) or threads (one thread drives a node's GPUs, "
     "nccl-tests -g)",
     "M"},
    {"cuda-graph", 0, 0, G_OPTION_ARG_NONE, ARG(cuda_graph),
     "The calls are launched as a CUDA graph (nccl-tests -G)", NULL},
    {"fault", 0, 0, G_OPTION_ARG_STRING_ARRAY, ARG(faults),
     "A fabric fault, as a scenario's [faults] key (planes_down=1, links_down=3:1x2); "
     "repeatable",
     "KEY=VALUE"},
    G_OPTION_ENTRY_NULL,
};

const CliUsage cli_coll_usage = {
    .summary = "Simulates an NCCL collective over a size sweep and prints "
               "nccl-tests' table.",
    .description = "busbw uses nccl-tests' factors: all_reduce 2(n-1)/n; all_gather,\n"
                   "reduce_scatter, alltoall (n-1)/n; others 1. GB/s = 1e9 bytes/s. Sizes: a\n"
                   "number of bytes, nccl-tests' 8K/128M/8G (powers of 1024), or with a unit.\n"
                   "Faults (--fault, on every node): planes_down, links_down, slow_links,\n"
                   "slow_rate, crc_links, crc_error_rate; see nvlsim run --help.",
    .entries = coll_entries,
};

static bool
plan_from_options(const CollOptions *o, bool cuda_graph, bool collnet, CollPlan *plan,
                  GError **error)
{
    *plan = (CollPlan){.op = COLL_OP_ALL_REDUCE,
                       .min_bytes = 8,
                       .max_bytes = 128 << 20,
                       .factor = 2,
                       .fidelity = NET_FIDELITY_FLOW,
                       .dtype = "float",
                       .elem_bytes = 4,
                       .collnet = collnet};
    uint64_t v;
    if (!cli_parse_harness(o->harness, o->launch_mode, cuda_graph, &plan->harness, error))
        return false;
    if (o->op && !coll_op_parse(o->op, &plan->op))
        return cli_bad_option(
            error, "op", o->op,
            "all_reduce, all_gather, reduce_scatter, broadcast, reduce, alltoall or "
            "sendrecv");
    if (o->algo && !coll_algo_parse(o->algo, &plan->algo))
        return cli_bad_option(error, "algo", o->algo,
                              "auto, ring, tree, nvls, nvls_tree, direct, pat, collnet_direct "
                              "or collnet_chain");
    if (o->proto && !coll_proto_parse(o->proto, &plan->proto))
        return cli_bad_option(error, "proto", o->proto, "auto, LL, LL128 or Simple");
    if (o->fidelity && !net_fidelity_parse(o->fidelity, &plan->fidelity))
        return cli_bad_option(error, "fidelity", o->fidelity, "packet or flow");
    if (o->dtype && (plan->elem_bytes = coll_dtype_bytes(o->dtype)) == 0)
        return cli_bad_option(
            error, "datatype", o->dtype,
            "float, double, half, bfloat16, int8, uint8, int32, uint32, int64 or uint64");
    if (o->dtype)
        plan->dtype = o->dtype;
    if (o->gpus) {
        if (!sim_units_parse_count(o->gpus, &v, NULL) || v < 1 || v > 65536)
            return cli_bad_option(error, "gpus", o->gpus, "a whole number from 1 to 65536");
        plan->n_gpus = (uint32_t)v;
    }
    if (o->root) {
        if (!sim_units_parse_count(o->root, &v, NULL) || v > 65535)
            return cli_bad_option(error, "root", o->root, "a rank number");
        plan->root = (uint32_t)v;
    }
    if ((o->min_bytes && !cli_parse_size("minbytes", o->min_bytes, &plan->min_bytes, error)) ||
        (o->max_bytes && !cli_parse_size("maxbytes", o->max_bytes, &plan->max_bytes, error)))
        return false;
    if (o->factor && (!sim_units_parse_count(o->factor, &plan->factor, NULL) || plan->factor < 2))
        return cli_bad_option(error, "stepfactor", o->factor, "a whole number of at least 2");
    if (plan->min_bytes == 0 || plan->min_bytes > plan->max_bytes) {
        g_set_error(error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                    "--minbytes: %" G_GUINT64_FORMAT ": expected a positive size no larger than "
                    "--maxbytes (%" G_GUINT64_FORMAT ")",
                    plan->min_bytes, plan->max_bytes);
        return false;
    }
    return true;
}

/* The bytes nccl-tests rounds sizes down to a whole number of: an
 * element, or one for every rank (all_gather, reduce_scatter, alltoall). */
static uint64_t
unit_bytes(const CollPlan *plan, uint32_t n_ranks)
{
    uint64_t unit = plan->elem_bytes;
    if (plan->op == COLL_OP_ALL_GATHER || plan->op == COLL_OP_REDUCE_SCATTER ||
        plan->op == COLL_OP_ALLTOALL)
        unit *= n_ranks;
    return unit;
}

/* A size rounded down to whole units (0: none fits). */
static uint64_t
round_size(const CollPlan *plan, uint32_t n_ranks, uint64_t bytes)
{
    uint64_t unit = unit_bytes(plan, n_ranks);
    return bytes / unit * unit;
}

/* The GPUs of --gpu-list and, where NCCL's search ran, its ring graph:
 * channels, GB/s each, the farthest path, and each ring's GPUs. */
static void
print_rings(const CollComm *comm, const uint32_t *gpu_list, uint32_t n_listed)
{
    g_autofree char *list = hw_gpu_list_format(gpu_list, n_listed);
    printf("# gpus: %s on each node (rank i on the i-th)\n", list);
    const CollRings *rings = &comm->info.rings;
    if (!rings->searched)
        return;
    static const char *const path_names[] = {"LOC", "NVL", "NVB", "C2C", "PIX", "PXB",
                                             "P2C", "PXN", "PHB", "SYS", "NET"};
    const CollRingsGraph *g = &rings->ring;
    printf("# NCCL rings: %u channel%s x %.1f GB/s, path %s:", g->n_channels,
           g->n_channels == 1 ? "" : "s", g->bw_intra,
           path_names[MIN(g->path_intra, COLL_PATH_NET)]);
    for (uint32_t c = 0; c < g->n_channels; c++) {
        printf(c == 0 ? " " : " | ");
        for (uint32_t i = 0; i < rings->n; i++)
            printf(i == 0 ? "%u" : " %u", gpu_list[g->order[c][i]]);
    }
    printf("\n");
}

static void
print_header(const CollPlan *plan, const CollComm *comm, const char *system_id,
             const TopoFaults *faults, const uint32_t *gpu_list, uint32_t n_listed)
{
    g_autofree char *nodes = cli_nodes_text(comm);
    printf("# nvlsim coll: %s on %u GPUs of %s (%s), %s fidelity\n", coll_op_name(plan->op),
           comm->n_ranks, system_id, nodes, net_fidelity_name(plan->fidelity));
    const CollHarness *h = &plan->harness;
    printf("# time: as %s reports a call, %s%s\n", coll_harness_kind_name(h->kind),
           h->mode == COLL_LAUNCH_THREADS ? "one thread driving each node's GPUs"
                                          : "one process per GPU",
           h->cuda_graph ? ", launched as a CUDA graph" : "");
    if (!topo_faults_empty(faults)) {
        g_autofree char *text = topo_faults_describe(faults, comm->system);
        printf("# faults: %s\n", text);
    }
    if (gpu_list != NULL)
        print_rings(comm, gpu_list, n_listed);
    printf("#\n#%12s %12s %8s %6s %6s %11s %8s %8s  %-9s %-6s %4s %11s\n", "size", "count", "type",
           "redop", "root", "time", "algbw", "busbw", "algo", "proto", "nch", "nccl_model");
    printf("#%12s %12s %8s %6s %6s %11s %8s %8s  %-9s %-6s %4s %11s\n", "(B)", "(elements)", "", "",
           "", "(us)", "(GB/s)", "(GB/s)", "", "", "", "(us)");
}

static bool
run_sweep(const CollPlan *plan, const CollComm *comm, FILE *csv, GError **error)
{
    bool rooted = plan->op == COLL_OP_BROADCAST || plan->op == COLL_OP_REDUCE;
    const char *redop = plan->op == COLL_OP_ALL_REDUCE || plan->op == COLL_OP_REDUCE ||
                                plan->op == COLL_OP_REDUCE_SCATTER
                            ? "sum"
                            : "none";
    for (uint64_t s = plan->min_bytes; s <= plan->max_bytes;) {
        uint64_t bytes = round_size(plan, comm->n_ranks, s);
        if (bytes > 0) {
            CollCall call = {.op = plan->op,
                             .n_bytes = bytes,
                             .elem_bytes = plan->elem_bytes,
                             .algo = plan->algo,
                             .proto = plan->proto,
                             .root = plan->root};
            CollResult r;
            if (!coll_run(comm, &call, plan->fidelity, &r, error)) {
                g_prefix_error(error, "%" G_GUINT64_FORMAT " bytes: ", bytes);
                return false;
            }
            double us = (double)coll_reported_ps(comm, &r, &plan->harness) / 1e6;
            double algbw = (double)bytes / (us * 1e3);
            double busbw = algbw * coll_busbw_factor(plan->op, comm->n_ranks);
            uint64_t count = bytes / plan->elem_bytes;
            /* No NCCL model where NCCL does not run (a loopback system). */
            char model[24] = "-", model_csv[24] = "";
            if (r.nccl_model_us >= 0) {
                g_snprintf(model, sizeof model, "%.2f", r.nccl_model_us);
                g_snprintf(model_csv, sizeof model_csv, "%.4f", r.nccl_model_us);
            }
            printf(" %12" G_GUINT64_FORMAT " %12" G_GUINT64_FORMAT " %8s %6s %6d %11.2f %8.2f "
                   "%8.2f  %-9s %-6s %4u %11s\n",
                   bytes, count, plan->dtype, redop, rooted ? (int)plan->root : -1, us, algbw,
                   busbw, coll_algo_name(r.algo), coll_proto_name(r.proto), r.n_channels, model);
            fflush(stdout);
            if (csv)
                fprintf(csv,
                        "%" G_GUINT64_FORMAT ",%" G_GUINT64_FORMAT ",%s,%s,%d,%.4f,%.4f,%.4f,%s,%s,"
                        "%u,%s\n",
                        bytes, count, plan->dtype, redop, rooted ? (int)plan->root : -1, us, algbw,
                        busbw, coll_algo_name(r.algo), coll_proto_name(r.proto), r.n_channels,
                        model_csv);
        }
        if (s > plan->max_bytes / plan->factor)
            break;
        s *= plan->factor;
    }
    return true;
}

/* --gpu-list against the system: its GPUs, and --gpus (if given) a
 * whole number of nodes of them. */
static bool
gpu_list(const char *text, const HwSystem *system, const CollPlan *plan, uint32_t **listed,
         uint32_t *n_listed, GError **error)
{
    if (!hw_gpu_list_parse(system, text, listed, n_listed, error)) {
        g_prefix_error(error, "--gpu-list: ");
        return false;
    }
    if (plan->n_gpus != 0 && plan->n_gpus % *n_listed != 0) {
        g_set_error(error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                    "--gpus %u is not a whole number of nodes of the %u GPUs --gpu-list names",
                    plan->n_gpus, *n_listed);
        g_clear_pointer(listed, g_free);
        return false;
    }
    return true;
}

/* --gpus-per-node K: the first K GPUs of each node (*listed), K dividing
 * --gpus (the system's GPUs per node without it); with --gpu-list, the
 * same count as it names. */
static bool
first_gpus(const char *text, const HwSystem *system, const CollPlan *plan, uint32_t **listed,
           uint32_t *n_listed, GError **error)
{
    uint32_t k;
    if (!cli_parse_gpus_per_node("gpus-per-node", text, system,
                                 plan->n_gpus ? plan->n_gpus : system->n_gpus, &k, error))
        return false;
    if (*listed != NULL && *n_listed != k) {
        g_set_error(error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                    "--gpus-per-node %u: --gpu-list names %u GPUs of each node: expected %u or "
                    "one of the two options",
                    k, *n_listed, *n_listed);
        return false;
    }
    if (*listed == NULL) {
        *listed = g_new(uint32_t, k);
        for (uint32_t i = 0; i < k; i++)
            (*listed)[i] = i;
        *n_listed = k;
    }
    return true;
}

/* A root among comm's ranks, and a sweep with at least one size that is
 * a whole number of the op's unit: else an error naming the option. */
static bool
check_sizes_and_root(const CollPlan *plan, const CollComm *comm, GError **error)
{
    if (plan->root >= comm->n_ranks) {
        g_autofree char *text = g_strdup_printf("%u", plan->root);
        g_autofree char *expect = g_strdup_printf("a rank from 0 to %u", comm->n_ranks - 1);
        return cli_bad_option(error, "root", text, expect);
    }
    uint64_t unit = unit_bytes(plan, comm->n_ranks);
    if (plan->max_bytes < unit) {
        g_autofree char *text = g_strdup_printf("%" G_GUINT64_FORMAT, plan->max_bytes);
        g_autofree char *expect =
            g_strdup_printf("at least %" G_GUINT64_FORMAT " B (a %s%s), or no size is simulated",
                            unit, plan->dtype, unit > plan->elem_bytes ? " for each rank" : "");
        return cli_bad_option(error, "maxbytes", text, expect);
    }
    return true;
}

/* The plan's communicator on the fabric it loads into *fabric (which the
 * communicator borrows): --gpus ranks on the first GPUs, nodes added past
 * one, or the listed GPUs of each node. NULL and error when the fabric
 * does not load (*fabric NULL) or the ranks do not fit it. */
static CollComm *
open_comm(const char *system_id, const HwSystem *probe, const CollPlan *plan,
          const TopoFaults *faults, const uint32_t *listed, uint32_t n_listed, CliFabric **fabric,
          GError **error)
{
    uint32_t per_node = probe->n_gpus;
    uint32_t n_gpus = plan->n_gpus ? plan->n_gpus : listed ? n_listed : per_node;
    uint32_t n_nodes = listed ? n_gpus / n_listed : (n_gpus + per_node - 1) / per_node;
    *fabric = cli_fabric_load_faults(system_id, n_nodes, faults, error);
    if (*fabric == NULL)
        return NULL;
    const CliFabric *f = *fabric;
    if (!cli_collnet(f->system, plan->collnet, plan->algo, n_nodes, error))
        return NULL;
    return listed ? coll_comm_new_local(f->system, f->graph, f->router, listed, n_listed, n_nodes,
                                        error)
                  : coll_comm_new(f->system, f->graph, f->router, n_gpus, error);
}

static int
coll_run_plan(const CollOptions *o, char **fault_items, const CollPlan *plan)
{
    g_autoptr(GError) error = NULL;
    const char *system_id = o->system ? o->system : "dgx-h100";
    g_autoptr(HwSystem) probe = hw_system_load_by_id(system_id, hw_models_dir(), &error);
    if (probe == NULL) {
        cli_print_error("coll", error);
        return CLI_EXIT_BAD_INPUT;
    }
    g_autoptr(TopoFaults) faults = cli_fabric_faults(fault_items, probe, &error);
    if (faults == NULL) {
        cli_print_error("coll", error);
        return CLI_EXIT_USAGE;
    }
    g_autofree uint32_t *listed = NULL;
    uint32_t n_listed = 0;
    if ((o->gpu_list != NULL && !gpu_list(o->gpu_list, probe, plan, &listed, &n_listed, &error)) ||
        (o->gpus_per_node != NULL &&
         !first_gpus(o->gpus_per_node, probe, plan, &listed, &n_listed, &error))) {
        cli_print_error("coll", error);
        return CLI_EXIT_USAGE;
    }
    g_autoptr(CliFabric) fabric = NULL;
    g_autoptr(CollComm) comm =
        open_comm(system_id, probe, plan, faults, listed, n_listed, &fabric, &error);
    if (comm == NULL) {
        cli_print_error("coll", error);
        return fabric ? CLI_EXIT_USAGE : CLI_EXIT_BAD_INPUT;
    }
    if (!cli_check_algo(plan->algo, comm, &error) || !check_sizes_and_root(plan, comm, &error)) {
        cli_print_error("coll", error);
        return CLI_EXIT_USAGE;
    }
    FILE *csv = NULL;
    char *tmp = NULL;
    if (o->csv) {
        if ((csv = sim_output_open(o->csv, &tmp, &error)) == NULL) {
            cli_print_error("coll", error);
            return CLI_EXIT_BAD_INPUT;
        }
        fprintf(csv, "size_bytes,count_elements,type,redop,root,time_us,algbw_GB_per_s,"
                     "busbw_GB_per_s,algo,proto,n_channels,nccl_model_time_us\n");
    }
    print_header(plan, comm, system_id, faults, listed, n_listed);
    if (!run_sweep(plan, comm, csv, &error)) {
        if (csv)
            sim_output_abandon(csv, tmp);
        cli_print_error("coll", error);
        return CLI_EXIT_USAGE;
    }
    if (csv && !sim_output_commit(csv, tmp, o->csv, &error)) {
        cli_print_error("coll", error);
        return CLI_EXIT_BAD_INPUT;
    }
    if (o->plot != NULL) {
        g_autofree char *title =
            g_strdup_printf("nvlsim coll: %s on %u GPUs of %s, %s fidelity", coll_op_name(plan->op),
                            comm->n_ranks, system_id, net_fidelity_name(plan->fidelity));
        const char *const vars[] = {"plottitle", title, "linetitle", system_id, NULL};
        if (!cli_plot("coll", "busbw", o->csv, o->plot, vars))
            return CLI_EXIT_BAD_INPUT;
    }
    return CLI_EXIT_OK;
}

int
cli_coll(int argc, char **argv)
{
    CollArgs a = {0};
    CollOptions *o = &a.o;
    g_autoptr(GOptionContext) context = cli_usage_context(&cli_coll_usage, &a);
    g_autoptr(GError) error = NULL;
    CollPlan plan;
    int status = CLI_EXIT_USAGE;
    if (!cli_parse_options(context, "coll", &argc, &argv))
        goto out;
    if (argc > 1) {
        fprintf(stderr, "nvlsim coll: unexpected argument '%s'\n", argv[1]);
        goto out;
    }
    if (!plan_from_options(o, a.cuda_graph, a.collnet, &plan, &error)) {
        cli_print_error("coll", error);
        goto out;
    }
    if (o->plot != NULL && !cli_plot_csv("coll", o->plot, &o->csv))
        goto out;
    status = coll_run_plan(o, a.faults, &plan);
out:
    for (char **p = (char **)o; p < (char **)(o + 1); p++)
        g_free(*p);
    g_strfreev(a.faults);
    return status;
}
