/* SPDX-License-Identifier: Apache-2.0 */
/* nvlsim coll: a collective size sweep as nccl-tests prints it, simulated.
 *
 * The command line is nccl-tests' (the collective named as its binaries
 * are, all_reduce_perf, or with --collective; -b -e -f -i, -o the
 * reduction, -d, -r, -n -w -c -z -a -t -g, values attached or apart)
 * with nvlsim's options beside it; the table is nccl-tests' layout
 * (cli-coll-table.c) with what ran after its columns: algorithm,
 * protocol, channels, and NCCL's own model time for the same choice.
 * A node is a host as schedulers count them (a DGX box, an NVL72 compute
 * tray of 4 GPUs); NVLink domains (a box, a rack) are a level above
 * (topo-place.h). --gpus below one domain's count places ranks on its
 * first GPUs; above it adds domains on the fabric. --nodes N spreads
 * --gpus over N hosts, --gpus-per-node K takes the first K GPUs of each
 * (--gpus 4 --gpus-per-node 1 is four nodes of one GPU), --domains D
 * spreads the hosts over D domains, as many in each (--gpus 128 --nodes
 * 32 --domains 2 on an NVL72 is two racks of 16 trays), --domains 18,14
 * lists each domain's hosts (a full rack and one of 14 trays). --gpu-list names
 * a host's GPUs as CUDA_VISIBLE_DEVICES does (rank i of each host on the
 * i-th listed) and prints the rings NCCL builds on them where its search
 * runs (a node of direct NVLink pairs).
 * --fault KEY=VALUE takes [faults] keys (topo-fault.h): the same sweep
 * with links down, slow or noisy, on every node. The time is what the
 * benchmark would report per call (coll-harness.h: nccl-tests' loop of -n
 * calls, one process per GPU, unless -z, -g, --harness, --launch-mode or
 * --cuda-graph say otherwise).
 */
#include <stdio.h>
#include <string.h>

#include "cli/cli-coll.h"
#include "judge/judge-log.h"
#include "core/core-output.h"
#include "topo/topo-world.h"
#include "cli/cli-plot.h"
#include "cli/cli.h"
#include "coll/coll-run.h"
#include "core/core-units.h"
#include "hw/hw-gpu-list.h"
#include "hw/hw-models.h"

typedef struct CollOptions {
    char *system, *collective, *op, *gpus, *min_bytes, *max_bytes, *factor, *step_bytes, *algo,
        *proto, *fidelity, *csv, *dtype, *root, *plot, *harness, *launch_mode, *gpu_list,
        *gpus_per_node, *nodes, *domains, *iters, *warmup, *check, *blocking, *average, *n_threads,
        *n_gpus, *nccl_env;
} CollOptions;

#define COLLECTIVES                                                                                \
    "all_reduce, all_gather, reduce_scatter, broadcast, reduce, alltoall or sendrecv"

/* nccl-tests' reductions (-o); nvlsim's reduction costs the same for each. */
static const char *const redops[] = {"sum", "prod", "min", "max", "avg"};

/* CollOptions is freed as an array of strings: the other options beside it. */
typedef struct CollArgs {
    CollOptions o;
    char **faults;
    gboolean cuda_graph, collnet;
} CollArgs;

#define OPT(field) CLI_OPTION_AT(CollArgs, o.field)
#define ARG(field) CLI_OPTION_AT(CollArgs, field)

static const GOptionEntry coll_entries[] = {
    {"collective", 0, 0, G_OPTION_ARG_STRING, OPT(collective),
     "all_reduce (default), all_gather, reduce_scatter, broadcast, reduce, alltoall, "
     "sendrecv; also the first argument, as nccl-tests' binaries name it (all_reduce_perf)",
     "C"},
    {"system", 's', 0, G_OPTION_ARG_STRING, OPT(system), "System model (default dgx-h100)", "NAME"},
    {"gpus", 0, 0, G_OPTION_ARG_STRING, OPT(gpus),
     "Ranks in all (default: -t x -g, else one node's GPUs)", "N"},
    {"gpu-list", 0, 0, G_OPTION_ARG_STRING, OPT(gpu_list),
     "A node's GPUs, in rank order as CUDA_VISIBLE_DEVICES lists them (default: the first "
     "--gpus)",
     "0,3,4,7"},
    {"gpus-per-node", 0, 0, G_OPTION_ARG_STRING, OPT(gpus_per_node),
     "GPUs of each node (host: an NVL72 tray) the ranks take, its first K (default: --gpus "
     "over --nodes, else nodes filled in order)",
     "K"},
    {"nodes", 0, 0, G_OPTION_ARG_STRING, OPT(nodes),
     "Hosts the ranks span, as the scheduler counts them (an NVL72 tray of 4 GPUs, a DGX "
     "box; default: filled in order)",
     "N"},
    {"domains", 0, 0, G_OPTION_ARG_STRING, OPT(domains),
     "NVLink domains the nodes spread over, as many in each, or the nodes of each, such as "
     "18,14 (default: the fewest that hold them)",
     "D|N,N.."},
    {"nthreads", 't', 0, G_OPTION_ARG_STRING, OPT(n_threads),
     "nccl-tests' threads a process (default 1); with -g, ranks of a process", "N"},
    {"ngpus", 'g', 0, G_OPTION_ARG_STRING, OPT(n_gpus),
     "nccl-tests' GPUs a thread (default 1): 2 or more, one thread launches for that many "
     "(--launch-mode threads); -t x -g ranks unless --gpus says more",
     "N"},
    {"minbytes", 'b', 0, G_OPTION_ARG_STRING, OPT(min_bytes), "Smallest size (default 8)", "SIZE"},
    {"maxbytes", 'e', 0, G_OPTION_ARG_STRING, OPT(max_bytes), "Largest size (default 128M)",
     "SIZE"},
    {"stepfactor", 'f', 0, G_OPTION_ARG_STRING, OPT(factor),
     "Multiplier between sizes (default 2; 1: steps of -i)", "N"},
    {"stepbytes", 'i', 0, G_OPTION_ARG_STRING, OPT(step_bytes),
     "Bytes between sizes where -f is 1 (default 1M; given alone, -f is 1)", "SIZE"},
    {"op", 'o', 0, G_OPTION_ARG_STRING, OPT(op),
     "Reduction: sum (default), prod, min, max, avg; printed, costs the same", "OP"},
    {"datatype", 'd', 0, G_OPTION_ARG_STRING, OPT(dtype),
     "float (default), double, half, bfloat16, int8, uint8, int32, uint32, int64, uint64", "TYPE"},
    {"root", 'r', 0, G_OPTION_ARG_STRING, OPT(root), "Root rank of broadcast/reduce (0)", "N"},
    {"iters", 'n', 0, G_OPTION_ARG_STRING, OPT(iters),
     "Timed calls, over which the first launch's cost is spread (default: the runtime "
     "model's, 20)",
     "N"},
    {"warmup_iters", 'w', 0, G_OPTION_ARG_STRING, OPT(warmup),
     "Untimed calls first (default 5); printed only: the simulated call is warm", "N"},
    {"check", 'c', 0, G_OPTION_ARG_STRING, OPT(check),
     "Check iterations (default 1); printed only: no data is moved, #wrong is N/A", "N"},
    {"blocking", 'z', 0, G_OPTION_ARG_STRING, OPT(blocking),
     "1: wait for every call (--harness blocking); 0 (default): back to back", "0|1"},
    {"average", 'a', 0, G_OPTION_ARG_STRING, OPT(average),
     "Ranks' times as rank 0, mean, min, max (0-3, default 1); printed only: the simulated "
     "call has one time, its last rank's end",
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
    {"csv", 0, 0, G_OPTION_ARG_FILENAME, OPT(csv), "Also write the rows as CSV", "FILE"},
    {"plot", 0, 0, G_OPTION_ARG_FILENAME, OPT(plot),
     "Plot busbw against size with gnuplot (the CSV goes beside it without --csv)",
     "FILE.png|FILE.svg|FILE.pdf"},
    {"harness", 0, 0, G_OPTION_ARG_STRING, OPT(harness),
     "nccl-tests (default: calls back to back, the mean) or blocking (every call waited for)", "H"},
    {"launch-mode", 0, 0, G_OPTION_ARG_STRING, OPT(launch_mode),
     "mpi (default: one process per GPU) or threads (one thread drives a host's GPUs, "
     "nccl-tests -g)",
     "M"},
    {"cuda-graph", 0, 0, G_OPTION_ARG_NONE, ARG(cuda_graph),
     "The calls are launched as a CUDA graph (nccl-tests -G)", NULL},
    {"nccl-env", 0, 0, G_OPTION_ARG_STRING, OPT(nccl_env),
     "NCCL variables the run sets, over the system file's [nccl]: NCCL_NVLS_ENABLE, "
     "NCCL_BUFFSIZE, NCCL_NVLS_CHUNKSIZE, NCCL_NVLSTREE_MAX_CHUNKSIZE, NCCL_P2P_NET_CHUNKSIZE "
     "(such as \"NCCL_NVLS_ENABLE=0 NCCL_BUFFSIZE=16777216\")",
     "VARS"},
    {"fault", 0, 0, G_OPTION_ARG_STRING_ARRAY, ARG(faults),
     "A fabric fault, as a scenario's [faults] key (planes_down=1, links_down=3:1x2); "
     "repeatable",
     "KEY=VALUE"},
    G_OPTION_ENTRY_NULL,
};

const CliUsage cli_coll_usage = {
    .args = "[COLLECTIVE]",
    .summary = "Simulates an NCCL collective over a size sweep and prints nccl-tests' table.\n"
               "COLLECTIVE: all_reduce (default), all_gather, reduce_scatter, broadcast,\n"
               "reduce, alltoall or sendrecv, or nccl-tests' name for it:\n"
               "nvlsim coll all_reduce_perf -b 8 -e 8G",
    .description =
        "The table is nccl-tests': out-of-place and in-place groups (the same simulated\n"
        "call: nvlsim models no buffers), #wrong N/A, then what ran. Values attach as\n"
        "nccl-tests' take them (-b1M). busbw uses nccl-tests' factors: all_reduce\n"
        "2(n-1)/n; all_gather, reduce_scatter, alltoall (n-1)/n; others 1. GB/s = 1e9\n"
        "bytes/s. Sizes: a number of bytes, nccl-tests' 8K/128M/8G (powers of 1024), or\n"
        "with a unit; rounded down to whole elements (of each rank for all_gather,\n"
        "reduce_scatter and alltoall). -w, -c and -a change no simulated time.\n"
        "Faults (--fault, on every node): planes_down, links_down, slow_links,\n"
        "slow_rate, crc_links, crc_error_rate; see nvlsim run --help.",
    .entries = coll_entries,
};

bool
cli_coll_parse_collective(const char *option, const char *argument, CollOp *op, GError **error)
{
    CollOp named;
    if (option && !judge_log_collective(option, op))
        return cli_bad_option(error, "collective", option,
                              COLLECTIVES " (or nccl-tests' all_reduce_perf ...)");
    if (argument == NULL)
        return true;
    if (!judge_log_collective(argument, &named)) {
        g_set_error(error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                    "'%s': expected a collective: " COLLECTIVES
                    " (or nccl-tests' all_reduce_perf ...)",
                    argument);
        return false;
    }
    if (option && named != *op) {
        g_set_error(error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                    "--collective %s: the argument '%s' names another; expected one of the two",
                    option, argument);
        return false;
    }
    *op = named;
    return true;
}

bool
cli_coll_parse_redop(const char *text, const char **redop, GError **error)
{
    for (size_t i = 0; i < G_N_ELEMENTS(redops); i++)
        if (g_ascii_strcasecmp(text, redops[i]) == 0) {
            *redop = redops[i];
            return true;
        }
    CollOp op;
    if (judge_log_collective(text, &op)) {
        g_autofree char *expect = g_strdup_printf(
            "sum, prod, min, max or avg (-o is nccl-tests' reduction; name the collective "
            "as the first argument or with --collective %s)",
            coll_op_name(op));
        return cli_bad_option(error, "op", text, expect);
    }
    return cli_bad_option(error, "op", text, "sum, prod, min, max or avg");
}

/* A whole-number option from lo to hi into *out (unchanged for NULL). */
static bool
plan_count(const char *option, const char *text, uint64_t lo, uint64_t hi, uint32_t *out,
           GError **error)
{
    uint64_t v;
    if (text == NULL)
        return true;
    if (!sim_units_parse_count(text, &v, NULL) || v < lo || v > hi) {
        g_autofree char *expect = g_strdup_printf(
            "a whole number from %" G_GUINT64_FORMAT " to %" G_GUINT64_FORMAT, lo, hi);
        return cli_bad_option(error, option, text, expect);
    }
    *out = (uint32_t)v;
    return true;
}

/* The most sizes one sweep of coll simulates. */
#define MAX_SIZES 65536

/* -b, -e, -f and -i: nccl-tests' sweep (-f 1 or -i alone: steps of -i). */
static bool
plan_sizes(const CollOptions *o, CollPlan *plan, GError **error)
{
    if ((o->min_bytes && !cli_parse_size("minbytes", o->min_bytes, &plan->min_bytes, error)) ||
        (o->max_bytes && !cli_parse_size("maxbytes", o->max_bytes, &plan->max_bytes, error)) ||
        (o->step_bytes && !cli_parse_size("stepbytes", o->step_bytes, &plan->step_bytes, error)))
        return false;
    if (o->factor && (!sim_units_parse_count(o->factor, &plan->factor, NULL) || plan->factor < 1))
        return cli_bad_option(error, "stepfactor", o->factor,
                              "a whole number of at least 1 (1: steps of --stepbytes)");
    if (o->step_bytes && plan->step_bytes == 0)
        return cli_bad_option(error, "stepbytes", o->step_bytes, "a positive size");
    if (o->step_bytes && !o->factor)
        plan->factor = 1;
    if (plan->min_bytes == 0 || plan->min_bytes > plan->max_bytes) {
        g_set_error(error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                    "--minbytes: %" G_GUINT64_FORMAT ": expected a positive size no larger than "
                    "--maxbytes (%" G_GUINT64_FORMAT ")",
                    plan->min_bytes, plan->max_bytes);
        return false;
    }
    /* Steps of --stepbytes can ask for more sizes than any sweep needs
     * (1 B steps to 1 GiB: a billion calls). */
    if (plan->factor == 1 && (plan->max_bytes - plan->min_bytes) / plan->step_bytes >= MAX_SIZES) {
        g_autofree char *expect =
            g_strdup_printf("steps giving at most %d sizes from %" G_GUINT64_FORMAT
                            " to %" G_GUINT64_FORMAT " B (at least %" G_GUINT64_FORMAT " B)",
                            MAX_SIZES, plan->min_bytes, plan->max_bytes,
                            (plan->max_bytes - plan->min_bytes) / (MAX_SIZES - 1) + 1);
        return cli_bad_option(error, "stepbytes", o->step_bytes ? o->step_bytes : "1M", expect);
    }
    return true;
}

/* -z against --harness: the same harness or one of the two. */
static bool
plan_blocking(const CollOptions *o, CollHarness *h, GError **error)
{
    uint32_t blocking = 0;
    if (o->blocking == NULL)
        return true;
    if (!plan_count("blocking", o->blocking, 0, 1, &blocking, error))
        return false;
    CollHarnessKind kind = blocking ? COLL_HARNESS_BLOCKING : COLL_HARNESS_NCCL_TESTS;
    if (o->harness && h->kind != kind) {
        g_set_error(error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                    "--blocking %s: --harness %s says otherwise; expected one of the two",
                    o->blocking, o->harness);
        return false;
    }
    h->kind = kind;
    return true;
}

/* -t and -g: the ranks a process drives (all of them without --gpus) and,
 * with -g 2 or more, a thread launching for several GPUs. */
static bool
plan_threads(const CollOptions *o, CollPlan *plan, GError **error)
{
    if (o->n_threads == NULL && o->n_gpus == NULL)
        return true;
    if (o->launch_mode) {
        g_set_error(error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                    "--launch-mode %s: nccl-tests' -t and -g set the launch mode (-g 2 or more: "
                    "a thread launches for that many GPUs); expected one or the other",
                    o->launch_mode);
        return false;
    }
    plan->n_threads = plan->n_gpus_per_thread = 1;
    if (!plan_count("nthreads", o->n_threads, 1, 65536, &plan->n_threads, error) ||
        !plan_count("ngpus", o->n_gpus, 1, 65536, &plan->n_gpus_per_thread, error))
        return false;
    uint64_t per_process = (uint64_t)plan->n_threads * plan->n_gpus_per_thread;
    if (per_process > 65536) {
        g_autofree char *text = g_strdup_printf("%u", plan->n_gpus_per_thread);
        return cli_bad_option(error, "ngpus", text, "at most 65536 GPUs a process (-t x -g)");
    }
    if (plan->n_gpus_per_thread > 1) {
        plan->harness.mode = COLL_LAUNCH_THREADS;
        plan->harness.gpus_per_thread = plan->n_gpus_per_thread;
    }
    if (plan->n_gpus == 0)
        plan->n_gpus = (uint32_t)per_process;
    return true;
}

/* nccl-tests' loop settings: -n counts in the time, -w, -c and -a are
 * printed only. */
static bool
plan_loop(const CollOptions *o, CollPlan *plan, GError **error)
{
    return plan_count("iters", o->iters, 1, 1000000, &plan->harness.n_iterations, error) &&
           plan_count("warmup_iters", o->warmup, 0, 1000000, &plan->n_warmup, error) &&
           plan_count("check", o->check, 0, 1000000, &plan->n_check, error) &&
           plan_count("average", o->average, 0, 3, &plan->average, error) &&
           plan_blocking(o, &plan->harness, error) && plan_threads(o, plan, error);
}

/* --algo, --proto, --fidelity, -d, -o and -r. */
static bool
plan_choices(const CollOptions *o, CollPlan *plan, GError **error)
{
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
    if (o->op && !cli_coll_parse_redop(o->op, &plan->redop, error))
        return false;
    return plan_count("root", o->root, 0, 65535, &plan->root, error);
}

static bool
plan_from_options(const CollOptions *o, const char *argument, bool cuda_graph, bool collnet,
                  CollPlan *plan, GError **error)
{
    *plan = (CollPlan){.op = COLL_OP_ALL_REDUCE,
                       .min_bytes = 8,
                       .max_bytes = 128 << 20,
                       .factor = 2,
                       .step_bytes = 1 << 20,
                       .fidelity = NET_FIDELITY_FLOW,
                       .dtype = "float",
                       .elem_bytes = 4,
                       .redop = redops[0],
                       .collnet = collnet,
                       .n_warmup = 5,
                       .n_check = 1,
                       .average = 1};
    if (!cli_coll_parse_collective(o->collective, argument, &plan->op, error) ||
        !cli_parse_harness(o->harness, o->launch_mode, cuda_graph, &plan->harness, error))
        return false;
    if (o->gpus && !plan_count("gpus", o->gpus, 1, CLI_MAX_GPUS, &plan->n_gpus, error))
        return false;
    return plan_choices(o, plan, error) && plan_sizes(o, plan, error) && plan_loop(o, plan, error);
}

bool
cli_coll_check_unit(const char *option, const char *text, uint64_t bytes, uint64_t unit,
                    uint32_t elem_bytes, const char *dtype, const char *tail, GError **error)
{
    if (bytes >= unit)
        return true;
    g_autofree char *expect =
        g_strdup_printf("at least %" G_GUINT64_FORMAT " B (a %s%s)%s", unit, dtype,
                        unit > elem_bytes ? " for each rank" : "", tail);
    return cli_bad_option(error, option, text, expect);
}

/* A size rounded down to whole units (0: none fits). */
static uint64_t
round_size(const CollPlan *plan, uint32_t n_ranks, uint64_t bytes)
{
    uint64_t unit = coll_op_unit_bytes(plan->op, plan->elem_bytes, n_ranks);
    return bytes / unit * unit;
}

/* The size after s in plan's sweep; false past the largest. */
static bool
next_size(const CollPlan *plan, uint64_t *s)
{
    if (plan->factor > 1) {
        if (*s > plan->max_bytes / plan->factor)
            return false;
        *s *= plan->factor;
        return true;
    }
    if (*s > plan->max_bytes - plan->step_bytes)
        return false;
    *s += plan->step_bytes;
    return true;
}

/* The row of call's result on comm: nccl-tests' count, redop and root,
 * and both groups' times. */
static CollRow
make_row(const CollPlan *plan, const CollComm *comm, const CollCall *call, const CollResult *r)
{
    bool rooted = plan->op == COLL_OP_BROADCAST || plan->op == COLL_OP_REDUCE;
    /* nccl-tests names the reduction where one runs, and for sendrecv
     * (whose test loops over -o too); "none" for the others. */
    bool reduces = coll_op_reduces(plan->op) || plan->op == COLL_OP_SENDRECV;
    CollRow row = {.n_bytes = call->n_bytes,
                   .n_elements = call->n_bytes / plan->elem_bytes /
                                 (coll_op_sized_per_rank(plan->op) ? comm->n_ranks : 1),
                   .dtype = plan->dtype,
                   .redop = reduces ? plan->redop : "none",
                   .root = rooted ? (int)plan->root : -1,
                   .result = r};
    double us = (double)coll_reported_ps(comm, r, &plan->harness) / 1e6;
    double algbw = (double)call->n_bytes / (us * 1e3);
    row.out_of_place = (CollRowTime){us, algbw, algbw * coll_busbw_factor(plan->op, comm->n_ranks)};
    /* The same physics in place: coll_run models links, reductions and
     * the runtime, not buffers, and an in-place call (NCCL's sendbuff
     * inside its recvbuff) runs the same steps over the same links; NCCL's
     * kernels differ at most in a copy of the rank's own chunk within its
     * GPU, which nvlsim does not model either way. */
    row.in_place = row.out_of_place;
    return row;
}

static bool
run_sweep(const CollPlan *plan, const CollComm *comm, FILE *csv, GError **error)
{
    double busbw_sum = 0;
    uint32_t n_groups = 0;
    uint64_t s = plan->min_bytes;
    do {
        uint64_t bytes = round_size(plan, comm->n_ranks, s);
        if (bytes == 0)
            continue;
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
        CollRow row = make_row(plan, comm, &call, &r);
        cli_coll_print_row(&row);
        if (csv)
            cli_coll_csv_row(csv, &row);
        busbw_sum += row.out_of_place.busbw_gb_per_s + row.in_place.busbw_gb_per_s;
        n_groups += 2;
    } while (next_size(plan, &s));
    cli_coll_print_footer(busbw_sum, n_groups);
    return true;
}

/* -t x -g GPUs a process: a whole number of processes, each on one host
 * (nccl-tests' process drives GPUs of its own host). */
static bool
check_threads(const CollPlan *plan, const CollComm *comm, GError **error)
{
    uint32_t per_process = plan->n_threads * plan->n_gpus_per_thread;
    uint32_t per_host = coll_comm_ranks_per_host(comm);
    if (per_process == 0 || (comm->n_ranks % per_process == 0 && per_host % per_process == 0))
        return true;
    g_set_error(error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                "--nthreads %u x --ngpus %u: a process drives %u GPUs of one host; expected a "
                "divisor of the %u ranks on a host of %s here",
                plan->n_threads, plan->n_gpus_per_thread, per_process, per_host, comm->system->id);
    return false;
}

/* A root among comm's ranks, a sweep with at least one size that is a
 * whole number of the op's unit, and processes that fit comm's hosts:
 * else an error naming the option. */
static bool
check_sizes_and_root(const CollPlan *plan, const CollComm *comm, GError **error)
{
    if (!check_threads(plan, comm, error))
        return false;
    if (plan->root >= comm->n_ranks) {
        g_autofree char *text = g_strdup_printf("%u", plan->root);
        g_autofree char *expect = g_strdup_printf("a rank from 0 to %u", comm->n_ranks - 1);
        return cli_bad_option(error, "root", text, expect);
    }
    g_autofree char *text = g_strdup_printf("%" G_GUINT64_FORMAT, plan->max_bytes);
    return cli_coll_check_unit("maxbytes", text, plan->max_bytes,
                               coll_op_unit_bytes(plan->op, plan->elem_bytes, comm->n_ranks),
                               plan->elem_bytes, plan->dtype, ", or no size is simulated", error);
}

/* The plan's communicator on the fabric it loads into *fabric (which the
 * communicator borrows): --gpus ranks placed on hosts and NVLink domains
 * as --nodes, --gpus-per-node, --domains and --gpu-list say (topo-place.h),
 * NCCL run with nccl_env's variables (NULL: the system file's). NULL and
 * error when the fabric does not load (*fabric NULL), the variables are
 * not NCCL's as nvlsim models them, or the ranks do not fit it. */
static CollComm *
open_comm(const char *system_id, const CollPlan *plan, const TopoFaults *faults,
          const char *nccl_env, const TopoPlace *place, TopoWorld **fabric, GError **error)
{
    *fabric = topo_world_load(system_id, place->n_domains, faults, error);
    if (*fabric == NULL)
        return NULL;
    if (nccl_env != NULL && !hw_nccl_env_parse(nccl_env, &(*fabric)->system->nccl, error)) {
        g_prefix_error(error, "--nccl-env: ");
        return NULL;
    }
    const TopoWorld *f = *fabric;
    if (!cli_collnet(f->system, plan->collnet, plan->algo, place->n_domains, error))
        return NULL;
    return cli_place_comm(f, place, error);
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
    g_autoptr(TopoFaults) faults = topo_world_faults(fault_items, "--fault", probe, &error);
    if (faults == NULL) {
        cli_print_error("coll", error);
        return CLI_EXIT_USAGE;
    }
    CliPlaceInput where = {
        .n_gpus = plan->n_gpus,
        .text = {o->gpus, o->nodes, o->gpus_per_node, o->domains, o->gpu_list},
        .name = {"gpus", "nodes", "gpus-per-node", "domains", "gpu-list"},
        .options = true,
    };
    const char *bad_name;
    g_auto(TopoPlace) place = {0};
    if (!cli_place(probe, &where, &place, &bad_name, &error)) {
        cli_print_error("coll", error);
        return CLI_EXIT_USAGE;
    }
    g_autoptr(TopoWorld) fabric = NULL;
    g_autoptr(CollComm) comm =
        open_comm(system_id, plan, faults, o->nccl_env, &place, &fabric, &error);
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
        cli_coll_csv_header(csv);
    }
    cli_coll_print_preamble(plan, comm);
    cli_coll_print_header(plan, comm, system_id, faults,
                          o->gpu_list || o->gpus_per_node ? place.local : NULL, place.per_domain);
    if (!run_sweep(plan, comm, csv, &error)) {
        if (csv)
            sim_output_abandon(csv, tmp);
        cli_print_error("coll", error);
        return cli_simulation_status(error);
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
    g_autoptr(GPtrArray) owned = g_ptr_array_new_with_free_func(g_free);
    g_autoptr(GOptionContext) context = cli_usage_context(&cli_coll_usage, &a);
    argv = cli_split_attached(coll_entries, &argc, argv, owned);
    g_autoptr(GError) error = NULL;
    CollPlan plan;
    int status = CLI_EXIT_USAGE;
    if (!cli_parse_options(context, "coll", &argc, &argv))
        goto out;
    if (argc > 2) {
        fprintf(stderr, "nvlsim coll: unexpected argument '%s' after the collective '%s'\n",
                argv[2], argv[1]);
        goto out;
    }
    if (!plan_from_options(o, argc > 1 ? argv[1] : NULL, a.cuda_graph, a.collnet, &plan, &error)) {
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
