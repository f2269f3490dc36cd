/* SPDX-License-Identifier: Apache-2.0 */
/* coll names: every name parses back to its value; the spellings of
 * nccl-tests, NCCL and NCCL_ALGO/NCCL_PROTO parse; unknown words do not;
 * nccl-tests' bus bandwidth factors. */
#include <math.h>

#include "coll-suites.h"

START_TEST(op_names_round_trip)
{
    CollOp op = (CollOp)_i, back = COLL_N_OPS;
    ck_assert_msg(coll_op_parse(coll_op_name(op), &back), "%s: does not parse", coll_op_name(op));
    ck_assert_int_eq(back, op);
}
END_TEST

START_TEST(algo_names_round_trip)
{
    CollAlgo algo = (CollAlgo)_i, back = COLL_N_ALGOS;
    ck_assert_msg(coll_algo_parse(coll_algo_name(algo), &back), "%s: does not parse",
                  coll_algo_name(algo));
    ck_assert_int_eq(back, algo);
}
END_TEST

START_TEST(proto_names_round_trip)
{
    CollProto proto = (CollProto)_i, back = COLL_N_PROTOS;
    ck_assert_msg(coll_proto_parse(coll_proto_name(proto), &back), "%s: does not parse",
                  coll_proto_name(proto));
    ck_assert_int_eq(back, proto);
}
END_TEST

/* Spellings users and data files write. */
static const struct {
    const char *text;
    char kind; /* 'o' op, 'a' algo, 'p' proto */
    int value; /* -1: must not parse */
} spellings[] = {
    {"all_reduce", 'o', COLL_OP_ALL_REDUCE},
    {"allreduce", 'o', COLL_OP_ALL_REDUCE},
    {"AllReduce", 'o', COLL_OP_ALL_REDUCE},
    {"all-gather", 'o', COLL_OP_ALL_GATHER},
    {"ReduceScatter", 'o', COLL_OP_REDUCE_SCATTER},
    {"alltoall", 'o', COLL_OP_ALLTOALL},
    {"send_recv", 'o', COLL_OP_SENDRECV},
    {"all", 'o', -1},
    {"", 'o', -1},
    {"Ring", 'a', COLL_ALGO_RING},
    {"NVLS", 'a', COLL_ALGO_NVLS},
    {"NVLSTree", 'a', COLL_ALGO_NVLS_TREE},
    {"PAT", 'a', COLL_ALGO_PAT},
    {"NVLS/SHARP", 'a', -1},
    {"CollNetDirect", 'a', COLL_ALGO_COLLNET_DIRECT},
    {"collnet_direct", 'a', COLL_ALGO_COLLNET_DIRECT},
    {"CollNetChain", 'a', COLL_ALGO_COLLNET_CHAIN},
    {"collnet-chain", 'a', COLL_ALGO_COLLNET_CHAIN},
    {"collnet", 'a', -1},
    {"simple", 'p', COLL_PROTO_SIMPLE},
    {"ll128", 'p', COLL_PROTO_LL128},
    {"LL", 'p', COLL_PROTO_LL},
    {"LL64", 'p', -1},
};

START_TEST(spellings_parse)
{
    int value = -1;
    bool ok = false;
    if (spellings[_i].kind == 'o') {
        CollOp op;
        ok = coll_op_parse(spellings[_i].text, &op);
        value = ok ? (int)op : -1;
    } else if (spellings[_i].kind == 'a') {
        CollAlgo algo;
        ok = coll_algo_parse(spellings[_i].text, &algo);
        value = ok ? (int)algo : -1;
    } else {
        CollProto proto;
        ok = coll_proto_parse(spellings[_i].text, &proto);
        value = ok ? (int)proto : -1;
    }
    ck_assert_msg(value == spellings[_i].value, "'%s': parsed to %d, expected %d",
                  spellings[_i].text, value, spellings[_i].value);
}
END_TEST

/* nccl-tests' getBw(): busbw = algbw x factor. */
static const struct {
    CollOp op;
    uint32_t n_ranks;
    double factor;
} factors[] = {
    {COLL_OP_ALL_REDUCE, 8, 14.0 / 8.0},
    {COLL_OP_ALL_REDUCE, 2, 1.0},
    {COLL_OP_ALL_REDUCE, 1, 0.0},
    {COLL_OP_ALL_GATHER, 8, 7.0 / 8.0},
    {COLL_OP_REDUCE_SCATTER, 16, 15.0 / 16.0},
    {COLL_OP_ALLTOALL, 4, 3.0 / 4.0},
    {COLL_OP_BROADCAST, 8, 1.0},
    {COLL_OP_REDUCE, 8, 1.0},
    {COLL_OP_SENDRECV, 8, 1.0},
};

START_TEST(busbw_factors)
{
    double f = coll_busbw_factor(factors[_i].op, factors[_i].n_ranks);
    ck_assert_msg(fabs(f - factors[_i].factor) < 1e-12, "%s on %u ranks: %g, expected %g",
                  coll_op_name(factors[_i].op), factors[_i].n_ranks, f, factors[_i].factor);
}
END_TEST

Suite *
coll_names_suite(void)
{
    Suite *s = suite_create("coll-names");
    TCase *tc = tcase_create("names");
    tcase_add_loop_test(tc, op_names_round_trip, 0, COLL_N_OPS);
    tcase_add_loop_test(tc, algo_names_round_trip, 0, COLL_N_ALGOS);
    tcase_add_loop_test(tc, proto_names_round_trip, 0, COLL_N_PROTOS);
    tcase_add_loop_test(tc, spellings_parse, 0, G_N_ELEMENTS(spellings));
    tcase_add_loop_test(tc, busbw_factors, 0, G_N_ELEMENTS(factors));
    suite_add_tcase(s, tc);
    return s;
}
