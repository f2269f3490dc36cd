/* SPDX-License-Identifier: Apache-2.0 */
/* The replayer on hand-built streams over a DGX H100, against closed forms
 * exact to the picosecond: compute in a rank's stream order sums; a GPipe
 * pipeline of equal stages takes (m + p - 1)(F + B) plus 2 (p - 1)
 * transfers (the bubble (p - 1) / (m + p - 1) when they are free); a
 * data-parallel all-reduce is hidden behind a long enough backward and
 * fully exposed without one, the backward running on the SMs the
 * all-reduce's CTAs leave while they overlap; one call alone takes
 * coll_run's time wherever its GPUs are; twin NVLS calls on the same GPUs
 * end later by exactly what their flows take longer; calls that share
 * links slow each other down, calls on disjoint links do not; replicas and replica members stand
 * for ranks with the same tasks. Times of one call or transfer alone are measured by replaying it
 * alone, so the identities hold whatever the collectives layer's costs are. */
#include <math.h>

#include "coll/coll-run.h"
#include "coll/coll-session.h"
#include "core/core-time.h"
#include "work/work-replay.h"
#include "work/work-stream.h"
#include "work-suites.h"

#define US (SIM_PS_PER_US)

/* ---- Building streams. ---- */

static uint32_t
compute(WorkStream *s, uint32_t rank, uint64_t duration_ps, const uint32_t *deps, uint32_t n_deps)
{
    WorkTask t = {.kind = WORK_TASK_COMPUTE,
                  .category = WORK_CAT_COMPUTE,
                  .rank = rank,
                  .group = WORK_NONE,
                  .peer = WORK_NONE,
                  .duration_ps = duration_ps};
    return work_stream_add(s, &t, deps, n_deps, NULL);
}

static uint32_t
coll(WorkStream *s, uint32_t rank, uint32_t group, CollOp op, uint64_t bytes, const uint32_t *deps,
     uint32_t n_deps)
{
    const WorkGroup *g = s->groups->pdata[group];
    WorkTask t = {.kind = WORK_TASK_COLL,
                  .category = g->category,
                  .rank = rank,
                  .group = group,
                  .peer = WORK_NONE,
                  .op = op,
                  .bytes = bytes};
    return work_stream_add(s, &t, deps, n_deps, NULL);
}

static uint32_t
transfer(WorkStream *s, WorkTaskKind kind, uint32_t rank, uint32_t peer, uint64_t bytes,
         const uint32_t *deps, uint32_t n_deps)
{
    WorkTask t = {.kind = kind,
                  .category = WORK_CAT_PP,
                  .rank = rank,
                  .group = WORK_NONE,
                  .peer = peer,
                  .bytes = bytes};
    return work_stream_add(s, &t, deps, n_deps, NULL);
}

/* Every rank of ranks[0 .. n) makes one op of bytes on their group. */
static void
coll_on_all(WorkStream *s, WorkCategory category, const uint32_t *ranks, uint32_t n, CollOp op,
            uint64_t bytes)
{
    uint32_t group = work_stream_group(s, category, ranks, n);
    for (uint32_t i = 0; i < n; i++)
        coll(s, ranks[i], group, op, bytes, NULL, 0);
}

/* The step of stream on f. */
static uint64_t
step_of(const WorkTestFabric *f, const WorkStream *s, const char *what)
{
    WorkReplayResult res;
    work_test_replay(f, s, what, &res);
    uint64_t step = res.step_ps;
    work_replay_result_clear(&res);
    return step;
}

/* How long one transfer of bytes from a to b takes alone. */
static uint64_t
transfer_alone_ps(const WorkTestFabric *f, uint32_t a, uint32_t b, uint64_t bytes)
{
    g_autoptr(WorkStream) s = work_stream_new(8);
    transfer(s, WORK_TASK_SEND, a, b, bytes, NULL, 0);
    transfer(s, WORK_TASK_RECV, b, a, bytes, NULL, 0);
    return step_of(f, s, "transfer alone");
}

/* How long one op of bytes on ranks takes alone. */
static uint64_t
coll_alone_ps(const WorkTestFabric *f, const uint32_t *ranks, uint32_t n, CollOp op, uint64_t bytes)
{
    g_autoptr(WorkStream) s = work_stream_new(topo_graph_n_gpus(f->graph));
    coll_on_all(s, WORK_CAT_DP, ranks, n, op, bytes);
    return step_of(f, s, "collective alone");
}

/* coll_run of one op of bytes on ranks: the call's time alone as the
 * collective layer gives it, and its channels. */
static CollResult
coll_alone(const WorkTestFabric *f, const uint32_t *ranks, uint32_t n, CollOp op, uint64_t bytes)
{
    g_autoptr(GError) error = NULL;
    g_autoptr(CollComm) comm = coll_comm_new_gpus(f->system, f->graph, f->router, ranks, n, &error);
    ck_assert_msg(comm != NULL, "%s", error ? error->message : "");
    CollCall call = {.op = op, .n_bytes = bytes, .elem_bytes = 2};
    CollResult res;
    ck_assert_msg(coll_run(comm, &call, NET_FIDELITY_FLOW, &res, &error), "%s",
                  error ? error->message : "");
    return res;
}

/* The channels NCCL runs one op of bytes on ranks with: its kernel's CTAs
 * on each GPU. */
static uint32_t
coll_channels(const WorkTestFabric *f, const uint32_t *ranks, uint32_t n, CollOp op, uint64_t bytes)
{
    return coll_alone(f, ranks, n, op, bytes).n_channels;
}

/* The rate (picoseconds per full-rate one, in parts of
 * WORK_REPLAY_RATE_ONE) of SM-bound compute beside n CTAs on s SMs: the
 * waves over the SMs left, and on Hopper (persistent GEMMs) the measured
 * WORK_REPLAY_GEMM_BESIDE_CTAS more. */
static uint64_t
sm_rate(uint32_t n, uint32_t sms, bool persistent)
{
    double g = persistent ? WORK_REPLAY_GEMM_BESIDE_CTAS : 1.0;
    return (uint64_t)llround(g * sms / (double)(sms - n) * (double)WORK_REPLAY_RATE_ONE);
}

/* Compute of full-rate length d overlapped for a_ps by a collective, at
 * rate meanwhile, then the rest at full rate (the replayer's rounding:
 * progress floored, time left rounded up). */
static uint64_t
overlapped_ps(uint64_t d, uint64_t a_ps, uint64_t rate)
{
    uint64_t done_in_call = a_ps * WORK_REPLAY_RATE_ONE / rate;
    if (done_in_call >= d)
        return (d * rate + WORK_REPLAY_RATE_ONE - 1) / WORK_REPLAY_RATE_ONE;
    return a_ps + d - done_in_call;
}

static void
assert_sums_to_step(const WorkReplayResult *res, const char *what)
{
    uint64_t mean = 0, first = 0;
    for (int k = 0; k < WORK_N_TIMES; k++) {
        mean += res->time_ps[k];
        first += res->rank_time_ps[k];
    }
    ck_assert_msg(mean == res->step_ps,
                  "%s: mean breakdown %" G_GUINT64_FORMAT " != step %" G_GUINT64_FORMAT, what, mean,
                  res->step_ps);
    ck_assert_msg(first == res->step_ps,
                  "%s: first rank's breakdown %" G_GUINT64_FORMAT " != step %" G_GUINT64_FORMAT,
                  what, first, res->step_ps);
}

/* ---- Compute. ---- */

/* One rank, a chain and a diamond of compute: they run one at a time in
 * stream order, so the step is the sum of the durations, all compute. */
START_TEST(compute_sums_on_one_rank)
{
    WorkTestFabric f;
    work_test_fabric_load(&f, "dgx-h100", 1);
    g_autoptr(WorkStream) s = work_stream_new(8);
    uint64_t d[3] = {3 * US + 7, 11 * US + 1, 5 * US + 13};
    uint32_t a = compute(s, 2, d[0], NULL, 0);
    uint32_t b = compute(s, 2, d[1], &a, 1);
    uint32_t ab[2] = {a, b};
    compute(s, 2, d[2], ab, 2);
    WorkReplayResult res;
    work_test_replay(&f, s, "three compute tasks", &res);
    ck_assert_uint_eq(res.step_ps, d[0] + d[1] + d[2]);
    ck_assert_uint_eq(res.time_ps[WORK_TIME_COMPUTE], res.step_ps);
    ck_assert_uint_eq(res.slowed_ps, 0);
    ck_assert_uint_eq(res.time_ps[WORK_TIME_IDLE], 0);
    ck_assert_uint_eq(res.rank_time_ps[WORK_TIME_COMPUTE], res.step_ps);
    ck_assert_uint_eq(res.n_detailed, 1);
    ck_assert_uint_eq(res.n_calls, 0);
    ck_assert_uint_eq(g_array_index(res.start_ps, uint64_t, 2), d[0] + d[1]);
    assert_sums_to_step(&res, "three compute tasks");
    work_replay_result_clear(&res);
    work_test_fabric_clear(&f);
}
END_TEST

/* Independent compute tasks of one rank still run one at a time (one
 * compute stream); those of two ranks run at once. */
START_TEST(compute_streams_are_per_rank)
{
    WorkTestFabric f;
    work_test_fabric_load(&f, "dgx-h100", 1);
    g_autoptr(WorkStream) s = work_stream_new(8);
    compute(s, 0, 4 * US, NULL, 0);
    compute(s, 0, 6 * US, NULL, 0);
    compute(s, 5, 9 * US, NULL, 0);
    WorkReplayResult res;
    work_test_replay(&f, s, "two ranks", &res);
    ck_assert_uint_eq(res.step_ps, 10 * US);
    ck_assert_uint_eq(res.n_detailed, 2);
    /* Rank 0 computes all 10 us; rank 5 9 us then idles 1 us. */
    ck_assert_uint_eq(res.rank_time_ps[WORK_TIME_COMPUTE], 10 * US);
    ck_assert_uint_eq(res.time_ps[WORK_TIME_COMPUTE], (10 * US + 9 * US) / 2);
    ck_assert_uint_eq(res.time_ps[WORK_TIME_IDLE], 10 * US - (10 * US + 9 * US) / 2);
    assert_sums_to_step(&res, "two ranks");
    work_replay_result_clear(&res);
    work_test_fabric_clear(&f);
}
END_TEST

/* ---- Pipeline. ---- */

/* A GPipe step of p stages on GPUs 0 .. p - 1 with m microbatches: every
 * forward (receive, F, send on), then every backward last microbatch
 * first (receive, B, send back). Receives are posted up front, as NCCL's
 * are, so a transfer starts when its send is issued. */
static WorkStream *
gpipe(uint32_t p, uint32_t m, uint64_t f_ps, uint64_t b_ps, uint64_t bytes)
{
    WorkStream *s = work_stream_new(8);
    for (uint32_t st = 0; st < p; st++) {
        uint32_t last = WORK_NONE;
        for (uint32_t i = 0; i < m; i++) {
            uint32_t deps[2], n = 0;
            if (last != WORK_NONE)
                deps[n++] = last;
            if (st > 0)
                deps[n++] = transfer(s, WORK_TASK_RECV, st, st - 1, bytes, NULL, 0);
            last = compute(s, st, f_ps, deps, n);
            if (st + 1 < p)
                transfer(s, WORK_TASK_SEND, st, st + 1, bytes, &last, 1);
        }
        for (uint32_t i = m; i-- > 0;) {
            uint32_t deps[2], n = 0;
            deps[n++] = last;
            if (st + 1 < p)
                deps[n++] = transfer(s, WORK_TASK_RECV, st, st + 1, bytes, NULL, 0);
            last = compute(s, st, b_ps, deps, n);
            if (st > 0)
                transfer(s, WORK_TASK_SEND, st, st - 1, bytes, &last, 1);
        }
    }
    return s;
}

static const struct {
    uint32_t p, m;
    uint64_t f_ps, b_ps;
} gpipe_cases[] = {
    {2, 1, 10 * US, 20 * US}, {2, 4, 10 * US, 20 * US}, {4, 4, 50 * US, 100 * US},
    {4, 8, 7 * US, 13 * US},  {8, 3, 40 * US, 80 * US}, {3, 6, 25 * US + 3, 50 * US + 5},
};

/* Stage s starts forward i at s (F + T) + i F and its first backward at
 * (p - 1)(F + T) + m F + (p - 1 - s)(B + T): the last task (stage 0's
 * last backward) ends at (m + p - 1)(F + B) + 2 (p - 1) T, T a transfer
 * alone. Every rank computes m (F + B); the rest, (p - 1)(F + B) +
 * 2 (p - 1) T, is the bubble and its exposed transfers: the bubble
 * fraction (p - 1) / (m + p - 1) as T / F goes to 0. */
START_TEST(gpipe_step_is_the_closed_form)
{
    uint32_t p = gpipe_cases[_i].p, m = gpipe_cases[_i].m;
    uint64_t f_ps = gpipe_cases[_i].f_ps, b_ps = gpipe_cases[_i].b_ps, bytes = 1 << 20;
    WorkTestFabric f;
    work_test_fabric_load(&f, "dgx-h100", 1);
    uint64_t t_ps = transfer_alone_ps(&f, 0, 1, bytes);
    ck_assert_uint_gt(t_ps, 0);
    /* Every neighbour pair, either way, is one NVSwitch hop: the same T. */
    for (uint32_t st = 0; st + 1 < p; st++) {
        ck_assert_uint_eq(transfer_alone_ps(&f, st, st + 1, bytes), t_ps);
        ck_assert_uint_eq(transfer_alone_ps(&f, st + 1, st, bytes), t_ps);
    }
    g_autoptr(WorkStream) s = gpipe(p, m, f_ps, b_ps, bytes);
    WorkReplayResult res;
    g_autofree char *what = g_strdup_printf("gpipe case %d (p %u, m %u)", _i, p, m);
    work_test_replay(&f, s, what, &res);
    uint64_t expect = (m + p - 1) * (f_ps + b_ps) + 2 * (p - 1) * t_ps;
    ck_assert_msg(res.step_ps == expect,
                  "%s: step %" G_GUINT64_FORMAT " ps, closed form %" G_GUINT64_FORMAT " ps", what,
                  res.step_ps, expect);
    ck_assert_uint_eq(res.n_detailed, p);
    ck_assert_uint_eq(res.n_calls, 2 * (p - 1) * m);
    ck_assert_uint_eq(res.time_ps[WORK_TIME_COMPUTE], m * (f_ps + b_ps));
    ck_assert_uint_eq(res.time_ps[WORK_TIME_PP] + res.time_ps[WORK_TIME_IDLE],
                      (p - 1) * (f_ps + b_ps) + 2 * (p - 1) * t_ps);
    /* Stage 0 waits out its last send and its first gradient, both
     * exposed; the rest is bubble. */
    ck_assert_uint_eq(res.rank_time_ps[WORK_TIME_PP], 2 * t_ps);
    ck_assert_uint_eq(res.rank_time_ps[WORK_TIME_IDLE],
                      (p - 1) * (f_ps + b_ps) + 2 * (p - 2) * t_ps);
    /* With T small against F + B, the bubble is (p - 1) / (m + p - 1). */
    double bubble =
        (double)(res.time_ps[WORK_TIME_PP] + res.time_ps[WORK_TIME_IDLE]) / (double)res.step_ps;
    double ideal = (double)(p - 1) / (double)(m + p - 1);
    ck_assert_msg(bubble >= ideal && bubble - ideal < 4.0 * (double)t_ps / (double)(f_ps + b_ps),
                  "%s: bubble %.6f, ideal %.6f", what, bubble, ideal);
    assert_sums_to_step(&res, what);
    work_replay_result_clear(&res);
    work_test_fabric_clear(&f);
}
END_TEST

/* ---- Data-parallel overlap. ---- */

/* Two ranks (GPUs 0 and 1): a last layer's backward (c ps), then an
 * all-reduce of its gradients and the rest of the backward (d ps, none
 * when 0) at once, then the optimizer (o ps) after both. */
static WorkStream *
dp_step(uint64_t c_ps, uint64_t d_ps, uint64_t o_ps, uint64_t bytes)
{
    WorkStream *s = work_stream_new(8);
    uint32_t ranks[2] = {0, 1};
    uint32_t group = work_stream_group(s, WORK_CAT_DP, ranks, 2);
    for (uint32_t r = 0; r < 2; r++) {
        uint32_t last = compute(s, r, c_ps, NULL, 0);
        uint32_t ar = coll(s, r, group, COLL_OP_ALL_REDUCE, bytes, &last, 1);
        uint32_t deps[2] = {ar, last};
        if (d_ps > 0)
            deps[1] = compute(s, r, d_ps, &last, 1);
        compute(s, r, o_ps, deps, 2);
    }
    return s;
}

/* The step of dp_step on GPUs 0 and 1 of a system, with what the closed
 * forms need: the all-reduce's time alone (a_ps) and channels (n), and the
 * GPU's SMs. */
typedef struct DpCase {
    WorkTestFabric f;
    uint64_t bytes, c_ps, o_ps, a_ps;
    uint32_t n, sms;
} DpCase;

static void
dp_case_init(DpCase *d, const char *system)
{
    work_test_fabric_load(&d->f, system, 1);
    uint32_t ranks[2] = {0, 1};
    d->bytes = 64 << 20, d->c_ps = 20 * US, d->o_ps = 30 * US;
    d->a_ps = coll_alone_ps(&d->f, ranks, 2, COLL_OP_ALL_REDUCE, d->bytes);
    d->n = coll_channels(&d->f, ranks, 2, COLL_OP_ALL_REDUCE, d->bytes);
    d->sms = (uint32_t)d->f.system->gpu->n_sms;
    ck_assert_uint_gt(d->a_ps, 0);
    ck_assert_uint_gt(d->n, 0);
}

/* The step when a backward of d_ps runs beside the all-reduce at rate. */
static uint64_t
dp_hidden_ps(const DpCase *d, uint64_t d_ps, uint64_t rate)
{
    return d->c_ps + overlapped_ps(d_ps, d->a_ps, rate) + d->o_ps;
}

/* Replays dp_step with a backward of d_ps, every compute task of memory
 * share `share` and every call holding `held` SMs (0: NCCL's channels). */
static void
dp_replay(DpCase *d, uint64_t d_ps, uint16_t share, uint16_t held, const char *what,
          WorkReplayResult *res)
{
    g_autoptr(WorkStream) s = dp_step(d->c_ps, d_ps, d->o_ps, d->bytes);
    for (guint i = 0; i < s->tasks->len; i++) {
        WorkTask *t = &g_array_index(s->tasks, WorkTask, i);
        if (t->kind == WORK_TASK_COMPUTE)
            t->memory_share = share;
        else if (t->kind == WORK_TASK_COLL)
            t->sms = held;
    }
    work_test_replay(&d->f, s, what, res);
}

START_TEST(dp_all_reduce_hidden_behind_backward)
{
    DpCase d;
    dp_case_init(&d, "dgx-h100");
    /* A backward ten times the all-reduce hides it: compute only, the
     * backward slower while the all-reduce's CTAs hold n of the SMs. */
    uint64_t d_ps = 10 * d.a_ps, rate = sm_rate(d.n, d.sms, true);
    WorkReplayResult res;
    dp_replay(&d, d_ps, 0, 0, "dp hidden", &res);
    ck_assert_uint_eq(res.step_ps, dp_hidden_ps(&d, d_ps, rate));
    ck_assert_uint_gt(overlapped_ps(d_ps, d.a_ps, rate), d_ps);
    /* The backward's slowing is all the compute's, on both ranks. */
    ck_assert_uint_eq(res.slowed_ps, overlapped_ps(d_ps, d.a_ps, rate) - d_ps);
    ck_assert_uint_eq(res.time_ps[WORK_TIME_COMPUTE], res.step_ps);
    ck_assert_uint_eq(res.time_ps[WORK_TIME_DP], 0);
    ck_assert_uint_eq(res.time_ps[WORK_TIME_IDLE], 0);
    /* The all-reduce ran during the backward, as long as alone. */
    ck_assert_uint_eq(g_array_index(res.start_ps, uint64_t, 1), d.c_ps);
    ck_assert_uint_eq(g_array_index(res.end_ps, uint64_t, 1), d.c_ps + d.a_ps);
    assert_sums_to_step(&res, "dp hidden");
    work_replay_result_clear(&res);
    /* Exactly as long as the all-reduce: still hidden, and slowed. */
    dp_replay(&d, d.a_ps, 0, 0, "dp just hidden", &res);
    ck_assert_uint_eq(res.step_ps, dp_hidden_ps(&d, d.a_ps, rate));
    ck_assert_uint_eq(res.time_ps[WORK_TIME_DP], 0);
    work_replay_result_clear(&res);
    work_test_fabric_clear(&d.f);
}
END_TEST

/* A collective that names its SMs (Transformer Engine's userbuffers:
 * 1 for a ring exchange, 16 for a pipelined or bulk one) holds those
 * instead of NCCL's channels: the backward beside it runs on the rest. */
START_TEST(named_sms_replace_nccl_channels)
{
    DpCase d;
    dp_case_init(&d, "dgx-h100");
    uint64_t d_ps = 10 * d.a_ps;
    static const uint16_t held[] = {1, 16};
    for (unsigned k = 0; k < G_N_ELEMENTS(held); k++) {
        WorkReplayResult res;
        dp_replay(&d, d_ps, 0, held[k], "dp beside, named SMs", &res);
        ck_assert_uint_eq(res.step_ps, dp_hidden_ps(&d, d_ps, sm_rate(held[k], d.sms, true)));
        ck_assert_uint_eq(g_array_index(res.end_ps, uint64_t, 1), d.c_ps + d.a_ps);
        work_replay_result_clear(&res);
    }
    work_test_fabric_clear(&d.f);
}
END_TEST

/* An A100's cuBLAS kernels are not persistent: beside NCCL's n CTAs its
 * compute runs at (S - n) / S, nothing more. */
START_TEST(ampere_compute_loses_only_the_sms)
{
    DpCase d;
    dp_case_init(&d, "dgx-a100");
    ck_assert_uint_eq(d.sms, 108);
    uint64_t d_ps = 10 * d.a_ps;
    WorkReplayResult res;
    dp_replay(&d, d_ps, 0, 0, "dp hidden on A100", &res);
    ck_assert_uint_eq(res.step_ps, dp_hidden_ps(&d, d_ps, sm_rate(d.n, d.sms, false)));
    work_replay_result_clear(&res);
    work_test_fabric_clear(&d.f);
}
END_TEST

/* Memory-bound kernels keep their SMs beside a collective and share HBM
 * with it: a backward all in such kernels takes 1 + D / B of its time while
 * the all-reduce runs, D being 3 HBM bytes for each of its bus bytes over
 * its time alone (coll_run's) and B the GPU's streaming rate; a quarter of
 * them, a quarter of that and three quarters of the SM-bound rate. */
START_TEST(memory_bound_compute_shares_hbm)
{
    DpCase d;
    dp_case_init(&d, "dgx-h100");
    uint32_t ranks[2] = {0, 1};
    double bus = (double)d.bytes * coll_busbw_factor(COLL_OP_ALL_REDUCE, 2);
    uint64_t alone = coll_alone(&d.f, ranks, 2, COLL_OP_ALL_REDUCE, d.bytes).time_ps;
    uint64_t hbm_rate = (uint64_t)llround(3.0 * bus * (double)SIM_PS_PER_S / (double)alone);
    double hbm = 1.0 + (double)hbm_rate / (double)hw_gpu_stream_bytes_per_s(d.f.system->gpu);
    ck_assert(hbm > 1.0 && hbm < 2.0);
    double sm = WORK_REPLAY_GEMM_BESIDE_CTAS * d.sms / (double)(d.sms - d.n);
    uint64_t d_ps = 10 * d.a_ps;
    static const uint16_t shares[] = {WORK_SHARE_ONE, WORK_SHARE_ONE / 4};
    for (unsigned k = 0; k < G_N_ELEMENTS(shares); k++) {
        double share = (double)shares[k] / WORK_SHARE_ONE;
        uint64_t rate = (uint64_t)llround(((1 - share) * sm + share * hbm) * WORK_REPLAY_RATE_ONE);
        WorkReplayResult res;
        dp_replay(&d, d_ps, shares[k], 0, "dp beside memory-bound compute", &res);
        ck_assert_uint_eq(res.step_ps, dp_hidden_ps(&d, d_ps, rate));
        ck_assert_uint_eq(g_array_index(res.end_ps, uint64_t, 1), d.c_ps + d.a_ps);
        work_replay_result_clear(&res);
    }
    work_test_fabric_clear(&d.f);
}
END_TEST

START_TEST(dp_all_reduce_exposed_without_backward)
{
    DpCase d;
    dp_case_init(&d, "dgx-h100");
    WorkReplayResult res;
    dp_replay(&d, 0, 0, 0, "dp exposed", &res);
    ck_assert_uint_eq(res.step_ps, d.c_ps + d.a_ps + d.o_ps);
    ck_assert_uint_eq(res.time_ps[WORK_TIME_DP], d.a_ps);
    ck_assert_uint_eq(res.rank_time_ps[WORK_TIME_DP], d.a_ps);
    ck_assert_uint_eq(res.time_ps[WORK_TIME_COMPUTE], d.c_ps + d.o_ps);
    ck_assert_uint_eq(res.time_ps[WORK_TIME_IDLE], 0);
    assert_sums_to_step(&res, "dp exposed");
    work_replay_result_clear(&res);
    /* A backward of half the all-reduce hides as much of it as the
     * backward lasts on the SMs its CTAs leave. */
    dp_replay(&d, d.a_ps / 2, 0, 0, "dp half hidden", &res);
    ck_assert_uint_eq(res.step_ps, d.c_ps + d.a_ps + d.o_ps);
    ck_assert_uint_eq(res.time_ps[WORK_TIME_DP],
                      d.a_ps - overlapped_ps(d.a_ps / 2, d.a_ps, sm_rate(d.n, d.sms, true)));
    work_replay_result_clear(&res);
    work_test_fabric_clear(&d.f);
}
END_TEST

/* ---- Contention. ---- */

/* Two all-reduces at once on groups of the same system. */
static uint64_t
two_at_once_ps(const WorkTestFabric *f, const uint32_t a[2], const uint32_t b[2], uint64_t bytes)
{
    g_autoptr(WorkStream) s = work_stream_new(topo_graph_n_gpus(f->graph));
    coll_on_all(s, WORK_CAT_DP, a, 2, COLL_OP_ALL_REDUCE, bytes);
    coll_on_all(s, WORK_CAT_TP, b, 2, COLL_OP_ALL_REDUCE, bytes);
    return step_of(f, s, "two at once");
}

/* coll_run's time for op of bytes on ranks, and the algorithm it ran. */
static uint64_t
coll_run_ps(const WorkTestFabric *f, const uint32_t *ranks, uint32_t n, CollOp op, uint64_t bytes,
            CollAlgo *algo)
{
    g_autoptr(GError) error = NULL;
    g_autoptr(CollComm) comm = coll_comm_new_gpus(f->system, f->graph, f->router, ranks, n, &error);
    ck_assert_msg(comm != NULL, "%s", error ? error->message : "");
    CollCall call = {.op = op, .n_bytes = bytes, .elem_bytes = 2};
    CollResult res;
    ck_assert_msg(coll_run(comm, &call, NET_FIDELITY_FLOW, &res, &error), "%s",
                  error ? error->message : "");
    if (algo != NULL)
        *algo = res.algo;
    return res.time_ps;
}

/* One call alone in the replayer takes exactly coll_run's time, wherever
 * its GPUs are (the session lays a shape out on the first nodes and
 * starts it on the call's): all_reduces on node 1's eight GPUs, on two of
 * them, on all sixteen, and an all_gather on GPU 3 of each node. */
START_TEST(one_call_alone_is_coll_run)
{
    WorkTestFabric f;
    work_test_fabric_load(&f, "dgx-h100", 2);
    uint32_t node1[8] = {8, 9, 10, 11, 12, 13, 14, 15}, pair[2] = {10, 11}, rail[2] = {3, 11};
    uint32_t all[16];
    for (uint32_t i = 0; i < 16; i++)
        all[i] = i;
    const struct {
        const uint32_t *ranks;
        uint32_t n;
        CollOp op;
    } cases[] = {{node1, 8, COLL_OP_ALL_REDUCE},
                 {pair, 2, COLL_OP_ALL_REDUCE},
                 {all, 16, COLL_OP_ALL_REDUCE},
                 {rail, 2, COLL_OP_ALL_GATHER}};
    for (size_t k = 0; k < G_N_ELEMENTS(cases); k++) {
        uint64_t bytes = 32 << 20;
        uint64_t replayed = coll_alone_ps(&f, cases[k].ranks, cases[k].n, cases[k].op, bytes);
        uint64_t run = coll_run_ps(&f, cases[k].ranks, cases[k].n, cases[k].op, bytes, NULL);
        ck_assert_msg(replayed == run,
                      "case %zu: replayed %" G_GUINT64_FORMAT " ps, coll_run %" G_GUINT64_FORMAT
                      " ps",
                      k, replayed, run);
    }
    work_test_fabric_clear(&f);
}
END_TEST

/* The flow engine's time for flow f of a call's traffic alone on its
 * one-hop path, when its link carries only it and `twins` more like it:
 * its link's latency, then its copies x twins draining at the link's
 * rate, each byte weighed with its packets' headers (a float, as
 * net-flow.c keeps it). */
static uint64_t
one_hop_flow_ps(const WorkTestFabric *f, const CollFlow *x, uint32_t twins)
{
    TopoRoute route;
    ck_assert(topo_router_route(f->router, x->src, x->dst, &route));
    ck_assert_uint_eq(route.n_paths, 1);
    ck_assert_uint_eq(route.path[0].n_hops, 1);
    const TopoLink *link = topo_graph_link(f->graph, route.path[0].link[0]);
    uint64_t payload = net_payload_bytes(link->spec, NET_ISSUER_SM);
    double weight = 1.0 + (double)((x->bytes + payload - 1) / payload *
                                   net_header_bytes(link->spec, NET_ISSUER_SM)) /
                              (double)x->bytes;
    double rate = (double)link->bytes_per_s / ((double)(float)weight * x->copies * twins);
    double t = (double)x->bytes / rate * (double)SIM_PS_PER_S;
    return link->latency_ps + (uint64_t)ceil(t - 1e-6);
}

/* The traffic of an all_reduce of bytes on eight ranks, NVLS (checked). */
static GArray *
nvls_traffic(const WorkTestFabric *f, const uint32_t ranks[8], uint64_t bytes, CollResult *res)
{
    g_autoptr(GError) error = NULL;
    g_autoptr(CollComm) comm = coll_comm_new_gpus(f->system, f->graph, f->router, ranks, 8, &error);
    ck_assert_msg(comm != NULL, "%s", error ? error->message : "");
    CollCall call = {.op = COLL_OP_ALL_REDUCE, .n_bytes = bytes, .elem_bytes = 2};
    GArray *traffic = g_array_new(FALSE, FALSE, sizeof(CollFlow));
    ck_assert_msg(coll_run_traffic(comm, &call, NET_FIDELITY_FLOW, res, traffic, &error), "%s",
                  error ? error->message : "");
    ck_assert_int_eq(res->algo, COLL_ALGO_NVLS);
    return traffic;
}

/* Twins: the same NVLS all_reduce on the same eight GPUs from two groups
 * (tensor and data parallel) at once. NVLS's flows each go straight from
 * a GPU to a switch or back, one flow a link and unpaced, so a flow's
 * time is its link's latency and its bytes drained at the link's rate
 * (the session's time for the call's flows alone is the slowest of
 * them). At once every link carries each flow twice: the calls end at
 * their time alone plus what their slowest flow took longer. */
START_TEST(twin_nvls_calls_pay_their_drain_again)
{
    WorkTestFabric f;
    work_test_fabric_load(&f, "dgx-h100", 1);
    uint32_t ranks[8] = {0, 1, 2, 3, 4, 5, 6, 7};
    uint64_t bytes = 64 << 20;
    g_autoptr(GError) error = NULL;
    CollResult res;
    g_autoptr(GArray) traffic = nvls_traffic(&f, ranks, bytes, &res);
    uint64_t alone_flows = 0, twin_flows = 0;
    for (guint i = 0; i < traffic->len; i++) {
        const CollFlow *x = &g_array_index(traffic, CollFlow, i);
        alone_flows = MAX(alone_flows, one_hop_flow_ps(&f, x, 1));
        twin_flows = MAX(twin_flows, one_hop_flow_ps(&f, x, 2));
    }
    g_autoptr(CollSession) session =
        coll_session_new(f.system, f.graph, f.router, NET_FIDELITY_FLOW, false, 0, NULL);
    uint32_t shape = coll_session_prepare(session, COLL_OP_ALL_REDUCE, bytes, ranks, 8, &error);
    ck_assert_msg(shape != COLL_SESSION_NONE, "%s", error ? error->message : "");
    ck_assert_uint_eq(coll_session_flows_ps(session, shape), alone_flows);
    ck_assert_uint_eq(coll_alone_ps(&f, ranks, 8, COLL_OP_ALL_REDUCE, bytes), res.time_ps);
    g_autoptr(WorkStream) s = work_stream_new(8);
    coll_on_all(s, WORK_CAT_DP, ranks, 8, COLL_OP_ALL_REDUCE, bytes);
    coll_on_all(s, WORK_CAT_TP, ranks, 8, COLL_OP_ALL_REDUCE, bytes);
    ck_assert_uint_eq(step_of(&f, s, "twins"), res.time_ps + twin_flows - alone_flows);
    work_test_fabric_clear(&f);
}
END_TEST

/* The same twins at the analytic tier: the first to start asks of each
 * link d = its bytes over its time alone (less than the link carries), so
 * it takes its time alone; the second finds 2 d asked of its links and
 * takes its time alone x the worst 2 d / C, C a link's rate less its
 * packets' headers (the same arithmetic as coll-session.c's). */
START_TEST(twin_nvls_calls_stretch_at_the_analytic_tier)
{
    WorkTestFabric f;
    work_test_fabric_load(&f, "dgx-h100", 1);
    uint32_t ranks[8] = {0, 1, 2, 3, 4, 5, 6, 7};
    uint64_t bytes = 64 << 20;
    g_autoptr(GError) error = NULL;
    CollResult res;
    g_autoptr(GArray) traffic = nvls_traffic(&f, ranks, bytes, &res);
    double per_byte = (double)SIM_PS_PER_S / (double)res.time_ps, stretch = 1.0;
    for (guint i = 0; i < traffic->len; i++) {
        const CollFlow *x = &g_array_index(traffic, CollFlow, i);
        TopoRoute route;
        ck_assert(topo_router_route(f.router, x->src, x->dst, &route));
        ck_assert_uint_eq(route.n_paths, 1);
        const TopoLink *link = topo_graph_link(f.graph, route.path[0].link[0]);
        double rate = (double)x->bytes * x->copies * per_byte / route.total_weight;
        double d = rate * route.path[0].weight;
        double payload = (double)net_payload_bytes(link->spec, NET_ISSUER_SM);
        double header = (double)net_header_bytes(link->spec, NET_ISSUER_SM);
        double c = (double)link->bytes_per_s * payload / (payload + header);
        ck_assert_double_lt(d, c);
        stretch = MAX(stretch, (d + d) / c);
    }
    ck_assert_double_gt(stretch, 1.0);
    g_autoptr(WorkStream) s = work_stream_new(8);
    coll_on_all(s, WORK_CAT_DP, ranks, 8, COLL_OP_ALL_REDUCE, bytes);
    coll_on_all(s, WORK_CAT_TP, ranks, 8, COLL_OP_ALL_REDUCE, bytes);
    WorkReplayResult out;
    WorkReplayOptions o = {.fidelity = NET_FIDELITY_FLOW, .analytic = true};
    ck_assert_msg(work_replay_with(s, f.system, f.graph, f.router, &o, &out, &error), "%s",
                  error ? error->message : "");
    ck_assert_uint_eq(out.step_ps, res.time_ps + (uint64_t)((stretch - 1.0) * (double)res.time_ps));
    ck_assert_uint_eq(out.n_flows, 0);
    work_replay_result_clear(&out);
    work_test_fabric_clear(&f);
}
END_TEST

/* On NVSwitch, {0, 1} and {2, 3} use four GPUs' own links: at once they
 * take exactly as long as alone. */
START_TEST(disjoint_groups_do_not_contend)
{
    WorkTestFabric f;
    work_test_fabric_load(&f, "dgx-h100", 1);
    uint64_t bytes = 64 << 20;
    uint32_t a[2] = {0, 1}, b[2] = {2, 3};
    uint64_t alone_a = coll_alone_ps(&f, a, 2, COLL_OP_ALL_REDUCE, bytes);
    uint64_t alone_b = coll_alone_ps(&f, b, 2, COLL_OP_ALL_REDUCE, bytes);
    ck_assert_uint_eq(alone_a, alone_b);
    ck_assert_uint_eq(two_at_once_ps(&f, a, b, bytes), alone_a);
    work_test_fabric_clear(&f);
}
END_TEST

/* {0, 1} and {0, 2} both ring through GPU 0's NVLinks, each way. Alone on
 * a DGX H100 each of their flows (one a direction, 24 channels' copies)
 * drains at its CTAs' pace P and then crosses its path whole (the capped
 * tail: both hops' packet and latency and the switch), to the ps. At once
 * GPU 0's links (its four planes, C in all) carry 48 copies, each below
 * its pace at C / (48 w), w its packets' header weight, landing the path's
 * tail less its bottleneck packet after: both calls end at alone + (that
 * - their flows alone), to 0.1% (the flow engine weighs a plane group's
 * packets by each plane's share of the bytes, which this does not redo:
 * 6 ns of 175 us here), and before one after the other. */
START_TEST(groups_sharing_a_gpu_contend)
{
    WorkTestFabric f;
    work_test_fabric_load(&f, "dgx-h100", 1);
    uint64_t bytes = 64 << 20;
    uint32_t a[2] = {0, 1}, b[2] = {0, 2};
    g_autoptr(GError) error = NULL;
    g_autoptr(CollComm) comm = coll_comm_new_gpus(f.system, f.graph, f.router, a, 2, &error);
    CollCall call = {.op = COLL_OP_ALL_REDUCE, .n_bytes = bytes, .elem_bytes = 2};
    CollResult res;
    g_autoptr(GArray) traffic = g_array_new(FALSE, FALSE, sizeof(CollFlow));
    ck_assert(coll_run_traffic(comm, &call, NET_FIDELITY_FLOW, &res, traffic, &error));
    ck_assert_int_eq(res.algo, COLL_ALGO_RING);
    ck_assert_uint_eq(traffic->len, 2);
    const CollFlow *x = &g_array_index(traffic, CollFlow, 0);
    /* GPU 0's NVLinks, and the flow's route's tails (net-flow.c). */
    double capacity = 0;
    const HwLink *spec = NULL;
    for (uint32_t l = 0; l < topo_graph_n_links(f.graph); l++) {
        const TopoLink *link = topo_graph_link(f.graph, l);
        if (link->src == topo_graph_gpu_vertex(f.graph, 0) &&
            topo_graph_vertex(f.graph, link->dst)->kind == TOPO_NVSWITCH) {
            capacity += (double)link->bytes_per_s;
            spec = link->spec;
        }
    }
    TopoRoute route;
    ck_assert(topo_router_route(f.router, x->src, x->dst, &route));
    uint64_t tail = 0, capped_tail = 0;
    for (uint32_t p = 0; p < route.n_paths; p++) {
        uint64_t total = 0, worst = 0;
        for (uint32_t h = 0; h < route.path[p].n_hops; h++) {
            const TopoLink *link = topo_graph_link(f.graph, route.path[p].link[h]);
            uint64_t ser = sim_serialization_ps(net_payload_bytes(link->spec, NET_ISSUER_SM) +
                                                    net_header_bytes(link->spec, NET_ISSUER_SM),
                                                link->bytes_per_s);
            worst = MAX(worst, ser);
            total += ser + link->latency_ps;
            if (h + 1 < route.path[p].n_hops)
                total += topo_graph_vertex(f.graph, link->dst)->latency_ps;
        }
        tail = MAX(tail, total - worst);
        capped_tail = MAX(capped_tail, total);
    }
    uint64_t payload = net_payload_bytes(spec, NET_ISSUER_SM);
    float weight = (float)(1.0 + (double)((x->bytes + payload - 1) / payload *
                                          net_header_bytes(spec, NET_ISSUER_SM)) /
                                     (double)x->bytes);
    double pace = (double)x->max_bytes_per_s;
    double shared = capacity / ((double)weight * 2 * x->copies);
    ck_assert_double_lt(shared, pace);
    ck_assert_double_lt(pace * x->copies * weight, capacity);
    uint64_t alone_flows =
        (uint64_t)ceil((double)x->bytes / pace * (double)SIM_PS_PER_S - 1e-6) + capped_tail;
    uint64_t both_flows =
        (uint64_t)ceil((double)x->bytes / shared * (double)SIM_PS_PER_S - 1e-6) + tail;
    uint64_t late = both_flows - alone_flows;
    g_autoptr(CollSession) session =
        coll_session_new(f.system, f.graph, f.router, NET_FIDELITY_FLOW, false, 0, NULL);
    uint32_t shape = coll_session_prepare(session, COLL_OP_ALL_REDUCE, bytes, a, 2, &error);
    ck_assert_msg(shape != COLL_SESSION_NONE, "%s", error ? error->message : "");
    ck_assert_uint_eq(coll_session_flows_ps(session, shape), alone_flows);
    ck_assert_uint_eq(coll_alone_ps(&f, a, 2, COLL_OP_ALL_REDUCE, bytes), res.time_ps);
    ck_assert_uint_eq(coll_alone_ps(&f, b, 2, COLL_OP_ALL_REDUCE, bytes), res.time_ps);
    uint64_t both = two_at_once_ps(&f, a, b, bytes);
    ck_assert_msg(both > res.time_ps + late - late / 1000 &&
                      both < res.time_ps + late + late / 1000,
                  "at once %" G_GUINT64_FORMAT " ps, alone %" G_GUINT64_FORMAT
                  " ps, sharing costs %" G_GUINT64_FORMAT " ps",
                  both, res.time_ps, late);
    ck_assert_uint_le(both, 2 * res.time_ps);
    work_test_fabric_clear(&f);
}
END_TEST

/* Two nodes: GPU 0 and GPU 1 of each node reach the other node through
 * their own NIC (one rail each), so {0, 8} and {1, 9} do not meet; {0, 8}
 * and {0, 9} both leave through GPU 0's NIC and do. */
START_TEST(groups_across_nodes_contend_on_a_shared_nic)
{
    WorkTestFabric f;
    work_test_fabric_load(&f, "dgx-h100", 2);
    uint64_t bytes = 16 << 20;
    uint32_t a[2] = {0, 8}, b[2] = {1, 9}, c[2] = {0, 9};
    uint64_t alone_a = coll_alone_ps(&f, a, 2, COLL_OP_ALL_REDUCE, bytes);
    uint64_t alone_c = coll_alone_ps(&f, c, 2, COLL_OP_ALL_REDUCE, bytes);
    ck_assert_uint_eq(two_at_once_ps(&f, a, b, bytes), alone_a);
    uint64_t both = two_at_once_ps(&f, a, c, bytes);
    ck_assert_msg(both > MAX(alone_a, alone_c),
                  "at once %" G_GUINT64_FORMAT " ps, alone %" G_GUINT64_FORMAT
                  " and %" G_GUINT64_FORMAT " ps",
                  both, alone_a, alone_c);
    ck_assert_uint_le(both, alone_a + alone_c);
    work_test_fabric_clear(&f);
}
END_TEST

/* ---- Replicas. ---- */

/* Ranks base .. base + 3: compute, a TP all-reduce on the four, compute. */
static void
tp_ranks(WorkStream *s, uint32_t base)
{
    uint32_t ranks[4] = {base, base + 1, base + 2, base + 3};
    uint32_t group = work_stream_group(s, WORK_CAT_TP, ranks, 4);
    for (uint32_t r = base; r < base + 4; r++) {
        uint32_t a = compute(s, r, 10 * US + r % 4, NULL, 0);
        uint32_t ar = coll(s, r, group, COLL_OP_ALL_REDUCE, 32 << 20, &a, 1);
        compute(s, r, 15 * US, &ar, 1);
    }
}

/* Two replicas four GPUs apart stand for ranks 4 .. 7 with the same
 * tasks: on NVSwitch the copy's links are its own, so the step is the
 * same and no replica flow is needed. */
START_TEST(replicas_stand_for_detailed_ranks)
{
    WorkTestFabric f;
    work_test_fabric_load(&f, "dgx-h100", 1);
    g_autoptr(WorkStream) rep = work_stream_new(8);
    rep->replicas[0] = (WorkReplicas){.count = 2, .stride = 4};
    tp_ranks(rep, 0);
    g_autoptr(WorkStream) full = work_stream_new(8);
    tp_ranks(full, 0);
    tp_ranks(full, 4);
    WorkReplayResult r1, r2;
    work_test_replay(&f, rep, "replicas", &r1);
    work_test_replay(&f, full, "detailed", &r2);
    ck_assert_uint_eq(r1.step_ps, r2.step_ps);
    ck_assert_uint_eq(r1.n_detailed, 4);
    ck_assert_uint_eq(r2.n_detailed, 8);
    ck_assert_uint_eq(r1.n_mirror_flows, 0);
    for (int k = 0; k < WORK_N_TIMES; k++)
        ck_assert_msg(r1.time_ps[k] == r2.time_ps[k],
                      "%s: %" G_GUINT64_FORMAT " != %" G_GUINT64_FORMAT, work_time_name(k),
                      r1.time_ps[k], r2.time_ps[k]);
    /* 3 us on the slowest rank, the all-reduce, 15 us. */
    uint32_t ranks[4] = {0, 1, 2, 3};
    uint64_t a_ps = coll_alone_ps(&f, ranks, 4, COLL_OP_ALL_REDUCE, 32 << 20);
    ck_assert_uint_eq(r1.step_ps, 10 * US + 3 + a_ps + 15 * US);
    work_replay_result_clear(&r1);
    work_replay_result_clear(&r2);
    work_test_fabric_clear(&f);
}
END_TEST

/* A member of a group without tasks reaches each call with the others:
 * {0, 1} with only rank 0 detailed takes what it takes with both. */
START_TEST(replica_member_joins_every_call)
{
    WorkTestFabric f;
    work_test_fabric_load(&f, "dgx-h100", 1);
    uint32_t ranks[2] = {0, 1};
    g_autoptr(WorkStream) one = work_stream_new(8);
    uint32_t g1 = work_stream_group(one, WORK_CAT_DP, ranks, 2);
    uint32_t a = compute(one, 0, 5 * US, NULL, 0);
    coll(one, 0, g1, COLL_OP_ALL_REDUCE, 8 << 20, &a, 1);
    g_autoptr(WorkStream) two = work_stream_new(8);
    uint32_t g2 = work_stream_group(two, WORK_CAT_DP, ranks, 2);
    for (uint32_t r = 0; r < 2; r++) {
        uint32_t c = compute(two, r, 5 * US, NULL, 0);
        coll(two, r, g2, COLL_OP_ALL_REDUCE, 8 << 20, &c, 1);
    }
    uint64_t a_ps = coll_alone_ps(&f, ranks, 2, COLL_OP_ALL_REDUCE, 8 << 20);
    ck_assert_uint_eq(step_of(&f, one, "one detailed"), 5 * US + a_ps);
    ck_assert_uint_eq(step_of(&f, two, "both detailed"), 5 * US + a_ps);
    work_test_fabric_clear(&f);
}
END_TEST

/* Calls on one group run one at a time in order: two all-reduces issued
 * at once take twice one; on two groups of the same GPUs they overlap. */
START_TEST(calls_on_a_group_are_serial)
{
    WorkTestFabric f;
    work_test_fabric_load(&f, "dgx-h100", 1);
    uint32_t ranks[2] = {4, 6};
    uint64_t bytes = 4 << 20;
    uint64_t a_ps = coll_alone_ps(&f, ranks, 2, COLL_OP_ALL_REDUCE, bytes);
    g_autoptr(WorkStream) s = work_stream_new(8);
    coll_on_all(s, WORK_CAT_DP, ranks, 2, COLL_OP_ALL_REDUCE, bytes);
    coll_on_all(s, WORK_CAT_DP, ranks, 2, COLL_OP_ALL_REDUCE, bytes);
    WorkReplayResult res;
    work_test_replay(&f, s, "two calls", &res);
    ck_assert_uint_eq(res.n_calls, 2);
    ck_assert_uint_eq(res.step_ps, 2 * a_ps);
    ck_assert_uint_eq(res.n_shapes, 1);
    work_replay_result_clear(&res);
    work_test_fabric_clear(&f);
}
END_TEST

Suite *
work_replay_suite(void)
{
    Suite *s = suite_create("work-replay");
    TCase *tc = tcase_create("compute");
    tcase_add_test(tc, compute_sums_on_one_rank);
    tcase_add_test(tc, compute_streams_are_per_rank);
    suite_add_tcase(s, tc);
    tc = tcase_create("pipeline");
    tcase_set_timeout(tc, 30);
    tcase_add_loop_test(tc, gpipe_step_is_the_closed_form, 0, G_N_ELEMENTS(gpipe_cases));
    suite_add_tcase(s, tc);
    tc = tcase_create("dp-overlap");
    tcase_add_test(tc, dp_all_reduce_hidden_behind_backward);
    tcase_add_test(tc, dp_all_reduce_exposed_without_backward);
    tcase_add_test(tc, named_sms_replace_nccl_channels);
    tcase_add_test(tc, ampere_compute_loses_only_the_sms);
    tcase_add_test(tc, memory_bound_compute_shares_hbm);
    suite_add_tcase(s, tc);
    tc = tcase_create("contention");
    tcase_set_timeout(tc, 30);
    tcase_add_test(tc, disjoint_groups_do_not_contend);
    tcase_add_test(tc, groups_sharing_a_gpu_contend);
    tcase_add_test(tc, groups_across_nodes_contend_on_a_shared_nic);
    tcase_add_test(tc, one_call_alone_is_coll_run);
    tcase_add_test(tc, twin_nvls_calls_pay_their_drain_again);
    tcase_add_test(tc, twin_nvls_calls_stretch_at_the_analytic_tier);
    tcase_add_test(tc, calls_on_a_group_are_serial);
    suite_add_tcase(s, tc);
    tc = tcase_create("replicas");
    tcase_add_test(tc, replicas_stand_for_detailed_ranks);
    tcase_add_test(tc, replica_member_joins_every_call);
    suite_add_tcase(s, tc);
    return s;
}
