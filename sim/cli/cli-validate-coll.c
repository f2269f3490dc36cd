/* SPDX-License-Identifier: Apache-2.0 */
/* validate's collective rows: each is simulated as its benchmark ran it
 * (the row's GPU count, size, data type, and algorithm/protocol when the
 * source states them, NCCL's choice otherwise; its harness, launch mode
 * and CUDA graph, nccl-tests' defaults when blank: coll-harness.h) and
 * compared in the row's own measure: time when the row has one, else bus
 * bandwidth. NCCL's own model for the same choice is reported beside it. */
#include <math.h>
#include <string.h>

#include "cli/cli-validate.h"
#include "cli/cli.h"
#include "coll/coll-run.h"
#include "hw/hw-gpu-list.h"
#include "hw/hw-models.h"

/* The algorithm a row names; NULL skip reason when it is runnable. A row
 * that names CollNet (collnet_direct, CollNetChain) or SHARP runs with
 * CollNet on (*collnet), as NCCL_COLLNET_ENABLE=1 with the SHARP plugin;
 * SHARP alone leaves the choice to NCCL's model. */
static const char *
row_algo(const char *text, CollAlgo *algo, bool *collnet)
{
    *algo = COLL_ALGO_AUTO;
    *collnet = false;
    if (*text == '\0' || coll_algo_parse(text, algo)) {
        *collnet = *algo == COLL_ALGO_COLLNET_DIRECT || *algo == COLL_ALGO_COLLNET_CHAIN;
        return NULL;
    }
    if (strstr(text, "SHARP") != NULL) {
        *collnet = true;
        return NULL;
    }
    if (strcmp(text, "PCIe") == 0)
        return "runs with NVLink disabled (NCCL 1.x over PCIe) are not modelled";
    return "an algorithm nvlsim does not model";
}

/* A default a row took: counted with its statement for the summary, and
 * its short form added to the row's own list (printed beside the row). */
static void
row_default(Validation *v, GString *row, const char *short_form, const char *stated)
{
    validate_default(v, stated);
    g_string_append_printf(row, "%s%s", row->len > 0 ? ", " : "", short_form);
}

/* The communicator of a row: n_gpus ranks placed on hosts and NVLink
 * domains as its columns say (topo-place.h): nodes (hosts, as the
 * scheduler counts them: an NVL72 tray, a DGX box), gpus_per_node (the
 * first that many of each host), domains, visible_devices
 * (CUDA_VISIBLE_DEVICES on every host, "0,3,4,7"), nccl_env (the NCCL_*
 * variables the run set, "NCCL_NVLS_ENABLE=0"); each built once. What
 * the row leaves to the placement's defaults is counted (printed with the
 * results) and added to defaults. A bad field sets *column to its column. */
static CollComm *
comm_for(Validation *v, const SimCsv *csv, const CliRowColumns *col, guint r, uint32_t n_gpus,
         bool collnet, GString *defaults, const char **column, GError **error)
{
    const char *system = sim_csv_field(csv, r, col->system);
    const char *nccl_env = sim_csv_field(csv, r, col->nccl_env);
    HwNcclEnv env = {0};
    if (!hw_nccl_env_parse(nccl_env, &env, error)) {
        *column = "nccl_env";
        return NULL;
    }
    CliPlaceInput where = {
        .n_gpus = n_gpus,
        .text = {"", sim_csv_field(csv, r, col->nodes), sim_csv_field(csv, r, col->gpus_per_node),
                 sim_csv_field(csv, r, col->domains), sim_csv_field(csv, r, col->visible_devices)},
        .name = {"num_gpus", "nodes", "gpus_per_node", "domains", "visible_devices"},
    };
    g_autofree char *key =
        g_strdup_printf("%s|%u|%s|%s|%s|%s|%d|%s", system, n_gpus, where.text[1], where.text[2],
                        where.text[3], where.text[4], collnet, nccl_env);
    CollComm *comm = g_hash_table_lookup(v->comms, key);
    *column = "nvlsim_system";
    TopoWorld *one = comm == NULL ? validate_fabric(v, system, 1, false, NULL, error) : NULL;
    if (comm == NULL && one == NULL)
        return NULL;
    const HwSystem *sys = comm != NULL ? comm->system : one->system;
    g_auto(TopoPlace) place = {0};
    if (!cli_place(sys, &where, &place, column, error))
        return NULL;
    if (place.hosts_filled && place.n_hosts > 1)
        row_default(v, defaults, "nodes in order",
                    "nodes blank: the GPUs fill whole hosts in order");
    if (place.domains_spread && sys->n_hosts > 1 && place.n_hosts > 1)
        row_default(v, defaults, "domains fewest",
                    "domains blank: the hosts spread evenly over the fewest NVLink domains "
                    "that hold them");
    if (comm != NULL)
        return comm;
    *column = collnet ? "algorithm" : "nvlsim_system";
    TopoWorld *fabric = validate_fabric(v, system, place.n_domains, collnet, nccl_env, error);
    if (fabric == NULL)
        return NULL;
    *column = "nodes";
    comm = cli_place_comm(fabric, &place, error);
    if (comm != NULL)
        g_hash_table_insert(v->comms, g_steal_pointer(&key), comm);
    return comm;
}

/* The simulated kernel (ps, without the runtime's setup), NCCL's model
 * (us) of a call, and what ran; each call simulated once. */
static bool
simulate(Validation *v, const CollComm *comm, const CollCall *call, double *kernel_ps,
         double *model_us, CollAlgo *algo, CollProto *proto, GError **error)
{
    g_autofree char *key = g_strdup_printf("coll|%p|%u|%d|%d|%d|%" G_GUINT64_FORMAT "|%u",
                                           (const void *)comm, comm->n_ranks, call->op, call->algo,
                                           call->proto, call->n_bytes, call->elem_bytes);
    double *memo = g_hash_table_lookup(v->memo, key);
    if (memo == NULL) {
        CollResult r;
        if (!coll_run(comm, call, v->fidelity, &r, error))
            return false;
        memo = g_new(double, 4);
        memo[0] = (double)(r.time_ps - (comm->system->runtime ? r.start_ps : 0));
        memo[1] = r.nccl_model_us;
        memo[2] = r.algo;
        memo[3] = r.proto;
        g_hash_table_insert(v->memo, g_steal_pointer(&key), memo);
    }
    *kernel_ps = memo[0];
    *model_us = memo[1];
    *algo = (CollAlgo)memo[2];
    *proto = (CollProto)memo[3];
    return true;
}

/* Reads the row's call; false with the row skipped or reported. */
static bool
read_call(Validation *v, const SimCsv *csv, const CliRowColumns *col, guint r, CollCall *call,
          uint32_t *n_gpus, bool *collnet)
{
    g_autoptr(GError) error = NULL;
    const char *op_text = sim_csv_field(csv, r, col->collective);
    if (!coll_op_parse(op_text, &call->op)) {
        validate_bad(v, csv, r, "collective", "'%s' is not a collective: expected %s", op_text,
                     "all_reduce, all_gather, reduce_scatter, broadcast, reduce, alltoall, "
                     "sendrecv or p2p_*");
        return false;
    }
    const char *why = row_algo(sim_csv_field(csv, r, col->algorithm), &call->algo, collnet);
    const char *proto = sim_csv_field(csv, r, col->protocol);
    if (why == NULL && *proto != '\0' && !coll_proto_parse(proto, &call->proto))
        why = "a protocol nvlsim does not model";
    if (why == NULL && *sim_csv_field(csv, r, col->num_gpus) == '\0')
        why = "no GPU count";
    if (why == NULL && *sim_csv_field(csv, r, col->bytes) == '\0')
        why = "no message size (a peak figure)";
    if (why != NULL) {
        validate_skip(v, why);
        return false;
    }
    uint64_t gpus, bytes;
    if (!cli_rows_whole(csv, r, col->num_gpus, "num_gpus", 1, CLI_MAX_GPUS, &gpus, &error) ||
        !cli_rows_whole(csv, r, col->bytes, "bytes", 0, UINT64_C(1000000000000000), &bytes,
                        &error)) {
        validate_bad_error(v, error);
        return false;
    }
    const char *dtype = sim_csv_field(csv, r, col->dtype);
    call->elem_bytes = *dtype == '\0' ? 4 : coll_dtype_bytes(dtype);
    if (call->elem_bytes == 0) {
        validate_bad(v, csv, r, "dtype",
                     "'%s' is not a data type: expected float, double, half, "
                     "bfloat16, int8, int32 or int64",
                     dtype);
        return false;
    }
    const char *in_place = sim_csv_field(csv, r, col->in_place);
    if (*in_place != '\0' && strcmp(in_place, "0") != 0 && strcmp(in_place, "1") != 0) {
        validate_bad(v, csv, r, "in_place",
                     "'%s': expected 1 (nccl-tests' in-place columns), 0 or blank", in_place);
        return false;
    }
    *n_gpus = (uint32_t)gpus;
    call->n_bytes = bytes;
    return true;
}

/* The row's harness, launch mode and CUDA graph (blank: nccl-tests'
 * defaults, added to defaults); false with the row reported. */
static bool
read_harness(Validation *v, const SimCsv *csv, const CliRowColumns *col, guint r, CollHarness *h,
             GString *defaults)
{
    *h = COLL_HARNESS_DEFAULT;
    const char *kind = sim_csv_field(csv, r, col->harness);
    const char *mode = sim_csv_field(csv, r, col->launch_mode);
    const char *graph = sim_csv_field(csv, r, col->cuda_graph);
    if (*kind != '\0' && !coll_harness_kind_parse(kind, &h->kind)) {
        validate_bad(v, csv, r, "harness", "'%s' is not a harness: expected nccl-tests or blocking",
                     kind);
        return false;
    }
    if (*mode != '\0' && !coll_launch_mode_parse(mode, &h->mode)) {
        validate_bad(v, csv, r, "launch_mode",
                     "'%s' is not a launch mode: expected mpi (one process per GPU) or threads "
                     "(one thread drives a node's GPUs, nccl-tests -g)",
                     mode);
        return false;
    }
    if (*graph != '\0' && strcmp(graph, "0") != 0 && strcmp(graph, "1") != 0) {
        validate_bad(v, csv, r, "cuda_graph", "'%s' is not 0 or 1", graph);
        return false;
    }
    h->cuda_graph = strcmp(graph, "1") == 0;
    if (*kind == '\0')
        row_default(v, defaults, "harness nccl-tests",
                    "harness blank: nccl-tests (calls back to back, their mean)");
    if (*mode == '\0')
        row_default(v, defaults, "launch_mode mpi", "launch_mode blank: mpi (a process a GPU)");
    if (*graph == '\0')
        row_default(v, defaults, "cuda_graph 0", "cuda_graph blank: 0 (no CUDA graph)");
    return true;
}

double
validate_sample_predict(const ValidateSample *s, const HwRuntime *rt)
{
    if (rt == NULL)
        rt = s->runtime;
    uint64_t kernel = s->kernel_ps + (rt != NULL ? rt->kernel_setup_ps : 0);
    CollHarnessTime t;
    coll_harness_time(rt, &s->harness, s->ppn, kernel, &t);
    double us = (double)t.time_ps / 1e6;
    return s->by_time ? us : (double)s->n_bytes / (us * 1e3) * s->factor;
}

void
validate_sample_free(gpointer sample)
{
    ValidateSample *s = sample;
    g_free(s->system);
    g_free(s->generation);
    g_free(s->source);
    g_free(s);
}

void
validate_coll_row(Validation *v, const SimCsv *csv, const CliRowColumns *col, guint r)
{
    g_autoptr(GError) error = NULL;
    const char *system = sim_csv_field(csv, r, col->system);
    CollCall call = {.algo = COLL_ALGO_AUTO, .proto = COLL_PROTO_AUTO};
    uint32_t n_gpus;
    bool collnet;
    CollHarness harness;
    g_autoptr(GString) defaults = g_string_new(NULL);
    if (!read_call(v, csv, col, r, &call, &n_gpus, &collnet) ||
        !read_harness(v, csv, col, r, &harness, defaults))
        return;
    if (call.n_bytes < v->min_bytes) {
        validate_skip(v, "below --min-bytes");
        return;
    }
    bool by_time = *sim_csv_field(csv, r, col->time_us) != '\0';
    int mcol = by_time ? col->time_us : col->busbw;
    double measured;
    if (!cli_rows_number(csv, r, mcol, by_time ? "time_us" : "busbw_gbps", &measured, &error)) {
        validate_bad_error(v, error);
        return;
    }
    /* nccl-tests prints a 0-byte call's time and a bus bandwidth of 0: a
     * bandwidth without a size is no measurement. */
    if (!by_time && call.n_bytes == 0 && measured > 0) {
        validate_bad(v, csv, r, "bytes",
                     "0 with busbw_gbps %g: a bandwidth needs a size; expected at least one "
                     "element",
                     measured);
        return;
    }
    /* No call outlasts the simulated clock (2^64 ps, 213 days). */
    if (by_time && measured > (double)UINT64_MAX / SIM_PS_PER_US) {
        validate_bad(v, csv, r, "time_us",
                     "%g us is more than the simulated clock holds (2^64 ps, 213 days); "
                     "expected a call's time in microseconds",
                     measured);
        return;
    }
    if (validate_rounding_share(sim_csv_field(csv, r, mcol), measured) >
        VALIDATE_MAX_ROUNDING_SHARE) {
        validate_skip(v, "measured value printed to too few digits (its rounding alone exceeds "
                         "5%)");
        return;
    }
    if (v->read_only)
        return;
    const char *column;
    CollComm *comm = comm_for(v, csv, col, r, n_gpus, collnet, defaults, &column, &error);
    if (comm == NULL) {
        validate_bad(v, csv, r, column, "%s", error->message);
        return;
    }
    double kernel_ps, model_us;
    CollAlgo algo;
    CollProto proto;
    if (!simulate(v, comm, &call, &kernel_ps, &model_us, &algo, &proto, &error)) {
        validate_bad(v, csv, r, NULL, "%s", error->message);
        return;
    }
    double factor = coll_busbw_factor(call.op, n_gpus);
    ValidateSample *sample = g_new(ValidateSample, 1);
    const HwRuntime *runtime = comm->system->runtime;
    *sample = (ValidateSample){
        .system = g_strdup(system),
        .generation = g_strdup(sim_csv_field(csv, r, col->generation)),
        .source = g_strdup(sim_csv_field(csv, r, col->source)),
        .ppn = coll_comm_ranks_per_host(comm),
        .n_bytes = call.n_bytes,
        .harness = harness,
        .kernel_ps = (uint64_t)kernel_ps,
        .by_time = by_time,
        .factor = factor,
        .measured = measured,
        .model = model_us <= 0 ? NAN
                 : by_time     ? model_us
                               : (double)call.n_bytes / (model_us * 1e3) * factor,
    };
    /* A copy: the system's fabric may be freed before the samples are. */
    if (runtime != NULL) {
        sample->runtime_copy = *runtime;
        sample->runtime_copy.name = NULL;
        sample->runtime = &sample->runtime_copy;
    }
    char detail[48];
    g_snprintf(detail, sizeof detail, "%s/%s", coll_algo_name(algo), coll_proto_name(proto));
    ValidateRow row = {
        .line = g_array_index(csv->lines, uint32_t, r),
        .system = system,
        .measure = coll_op_name(call.op),
        .n_gpus = n_gpus,
        .n_bytes = call.n_bytes,
        .detail = detail,
        .unit = by_time ? "us" : "GB/s",
        .measured = measured,
        .simulated = validate_sample_predict(sample, NULL),
        .model = sample->model,
        .where = defaults->len > 0 ? defaults->str : NULL,
    };
    validate_record(v, &row);
    if (v->decompose != NULL) {
        /* A row's time: its own, or its size over its bus bandwidth. */
        double simulated_us =
            by_time ? row.simulated : (double)call.n_bytes * factor / (row.simulated * 1e3);
        double measured_us = by_time ? measured : (double)call.n_bytes * factor / (measured * 1e3);
        judge_decompose_add(v->decompose, system, row.measure, n_gpus, comm->n_hosts, comm->n_nodes,
                            sample->source, coll_harness_kind_name(harness.kind), detail,
                            (double)call.n_bytes, measured_us, simulated_us);
    }
    if (v->samples != NULL)
        g_ptr_array_add(v->samples, sample);
    else
        validate_sample_free(sample);
}

/* The figure to so many decimals, "inf", or "-" for one a piece could
 * not fit. */
static void
put_figure(char *buf, size_t size, double value, int decimals)
{
    if (isnan(value))
        g_strlcpy(buf, "-", size);
    else if (isinf(value))
        g_strlcpy(buf, "inf", size);
    else
        g_snprintf(buf, size, "%.*f", decimals, value);
}

/* What a piece's miss reads as: the larger of its two parts. */
static void
put_verdict(char *buf, size_t size, const JudgePiece *p)
{
    if (isnan(p->latency_pct)) {
        g_strlcpy(buf, "one size: not split", size);
    } else if (p->latency_pct >= p->bandwidth_pct) {
        g_snprintf(buf, size, "latency %+.1f us", p->simulated.alpha_us - p->measured.alpha_us);
    } else if (!isfinite(p->measured.beta_gbps) || !isfinite(p->simulated.beta_gbps)) {
        g_strlcpy(buf, "bandwidth: flat", size);
    } else {
        g_snprintf(buf, size, "bandwidth %+.1f%%",
                   100.0 * (p->simulated.beta_gbps / p->measured.beta_gbps - 1.0));
    }
}

void
validate_print_decompose(Validation *v)
{
    GPtrArray *sweeps = judge_decompose_sweeps(v->decompose);
    if (sweeps->len == 0)
        return;
    printf("\n# Latency and bandwidth by sweep: t = alpha + bytes / beta fitted to the measured\n"
           "# and to the simulated times (least squares on relative error), one piece per\n"
           "# algorithm/protocol the simulation ran; lat_%% and bw_%% are the mean miss each\n"
           "# difference alone explains; sweeps by their share of the summed |error|\n");
    for (guint k = 0; k < sweeps->len; k++) {
        const JudgeSweep *s = g_ptr_array_index(sweeps, k);
        printf("# sweep %u: %s %s, %u ranks on %u host%s in %u NVLink domain%s, %s; %u rows, "
               "%.1f%% of the error; %s\n",
               k + 1, s->system, s->collective, s->n_ranks, s->n_hosts, s->n_hosts == 1 ? "" : "s",
               s->n_domains, s->n_domains == 1 ? "" : "s", s->harness, s->n_rows, 100.0 * s->share,
               *s->source != '\0' ? s->source : "(no source)");
        printf("#  %-18s %4s %12s %12s %10s %10s %9s %9s %6s %6s  %s\n", "ran", "rows", "from_B",
               "to_B", "alpha_us", "sim_us", "beta_GB/s", "sim_GB/s", "lat_%", "bw_%", "miss");
        for (guint i = 0; i < s->pieces->len; i++) {
            const JudgePiece *p = g_ptr_array_index(s->pieces, i);
            char am[24], as[24], bm[24], bs[24], lat[16], bw[16], verdict[48];
            put_figure(am, sizeof am, p->measured.fitted ? p->measured.alpha_us : NAN, 2);
            put_figure(as, sizeof as, p->simulated.fitted ? p->simulated.alpha_us : NAN, 2);
            put_figure(bm, sizeof bm, p->measured.beta_gbps, 2);
            put_figure(bs, sizeof bs, p->simulated.beta_gbps, 2);
            put_figure(lat, sizeof lat, p->latency_pct, 1);
            put_figure(bw, sizeof bw, p->bandwidth_pct, 1);
            put_verdict(verdict, sizeof verdict, p);
            printf("   %-18s %4u %12.0f %12.0f %10s %10s %9s %9s %6s %6s  %s\n", p->ran, p->n_rows,
                   p->min_bytes, p->max_bytes, am, as, bm, bs, lat, bw, verdict);
        }
    }
}
