/* SPDX-License-Identifier: Apache-2.0 */
/* PAT, NCCL's Parallel Aggregated Trees (all_gather and reduce_scatter,
 * one rank per node), as programs for the executor.
 *
 * Rank r sends to the ranks 2^d away (d < ceil(log2 n); all_gather to
 * r - 2^d, reduce_scatter to r + 2^d, prims_simple.h:681-691) and every
 * rank runs the same list of pieces, each one chunk of one rank's data at
 * offset x from it. In all_gather a piece of x is forwarded on dim d to
 * the rank 2^d below, where it is at offset x + 2^d: the data of offset s
 * comes over the dim of s's lowest set bit, so that it crosses at most
 * log2 n hops, each a binomial tree rooted at its owner; each rank still
 * receives every other rank's chunk once, dim d carrying half of what dim
 * d - 1 does. The list is NCCL's PatAGAlgorithm order (collectives.h:
 * 701-921): the high dims level by level, then the low bits of s in a
 * depth-first walk, so that no dim has more than aggFactor pieces ahead of
 * its reader. Pieces of one level are aggregated postFreq to a message,
 * and parallelFactor of them run at once (one operation here). A rank
 * reads a message once (NCCL reads the slot again for each forward; here
 * later forwards read the copy the first one made). reduce_scatter runs
 * the same list backwards with the directions swapped: partials flow
 * towards their owner, reduced on the way (NCCL's PatRSAlgorithm walks a
 * mirrored order with the same dims, bytes and depth; its exact order is
 * not modelled).
 */
#include "coll/coll-build.h"

/* NCCL_PAT_NWORKERS (collectives.h:411) over WARP_SIZE: the most worker
 * groups, the cap on the parallel factor (all_gather.h:138). */
#define PAT_NWORKERS 512
#define PAT_WARP_SIZE 32
/* NCCL_STEPS: the aggregation's step depth (all_gather.h:138). */
#define PAT_STEP_DEPTH 8

typedef struct PatPiece {
    int8_t in_dim;        /* takes its data from this dim's connection; -1: local */
    int8_t out_dim;       /* sends it on this dim; -1: none */
    bool take;            /* the first piece of in_dim's message: receives it */
    bool post;            /* the last piece of out_dim's message: sends it */
    uint32_t post_pieces; /* pieces in the message it sends */
    uint32_t group;       /* level or residue: the pieces NCCL aggregates */
    uint32_t index;       /* in its group */
} PatPiece;

typedef struct PatList {
    uint32_t n;
    CollPatParams params;
    uint32_t delta; /* NCCL's aggDelta: offsets of one group are this apart */
    GArray *pieces;
    bool *got; /* [n]: offsets received so far */
    uint32_t group;
} PatList;

static uint32_t
lowest_bit(uint32_t v)
{
    uint32_t d = 0;
    while ((v & 1) == 0) {
        v >>= 1;
        d++;
    }
    return d;
}

void
coll_pat_params(uint32_t n_ranks, uint64_t chunk_bytes, uint64_t channel_bytes,
                CollPatParams *params)
{
    uint32_t d = 0;
    while ((UINT32_C(1) << d) < n_ranks)
        d++;
    uint32_t agg = 1;
    while (channel_bytes > 0 && chunk_bytes / (channel_bytes * agg) >= 2 && agg < n_ranks / 2)
        agg *= 2;
    uint32_t post = agg;
    for (uint32_t depth = PAT_STEP_DEPTH; depth > 1 && agg < n_ranks / 2; depth /= 2)
        agg *= 2;
    *params = (CollPatParams){.n_dims = d,
                              .post_pieces = post,
                              .agg_pieces = agg,
                              .parallel = MIN(post, PAT_NWORKERS / PAT_WARP_SIZE)};
}

/* Appends the piece of offset x sent on out_dim (-1: received only). */
static void
pat_piece(PatList *l, uint32_t x, int out_dim, uint32_t index)
{
    PatPiece p = {.in_dim = -1, .out_dim = (int8_t)out_dim, .group = l->group, .index = index};
    if (x > 0 && !l->got[x]) {
        p.in_dim = (int8_t)lowest_bit(x);
        l->got[x] = true;
    }
    g_array_append_val(l->pieces, p);
}

/* The residues mod delta below v (its bits from bit down), depth first:
 * each sends on dim k the pieces a * delta + v + 2^k; an odd one's
 * pieces then arrive over dim 0 (NCCL's phases 1 and 0). A piece that
 * would go past the last rank on dim 0 is still received (the last offset,
 * collectives.h:866-872). */
static void
pat_residues(PatList *l, uint32_t v, uint32_t bit)
{
    uint32_t A = l->params.agg_pieces, n = l->n;
    for (uint32_t k = bit; k-- > 0;) {
        uint32_t as = v + (UINT32_C(1) << k);
        l->group++;
        for (uint32_t a = 0; a < A; a++) {
            uint64_t s = (uint64_t)a * l->delta + as;
            if (s < n)
                pat_piece(l, (uint32_t)(s - (UINT32_C(1) << k)), (int)k, a);
            else if (k == 0 && s - 1 < n && !l->got[s - 1])
                pat_piece(l, (uint32_t)(s - 1), -1, a);
        }
        if (k == 0) {
            l->group++;
            for (uint32_t a = 0; a < A && (uint64_t)a * l->delta + as < n; a++)
                pat_piece(l, a * l->delta + as, -1, a);
        }
        pat_residues(l, as, k);
    }
}

/* Closes dim d's open message: its last piece sends it. */
static void
pat_close(PatList *l, uint32_t last, uint32_t *count, GArray *sent)
{
    PatPiece *p = &g_array_index(l->pieces, PatPiece, last);
    p->post = true;
    p->post_pieces = *count;
    g_array_append_val(sent, *count);
    *count = 0;
}

/* Marks, per dim, which piece receives each message and which sends it:
 * messages of at most post_pieces pieces of one group; the k-th piece
 * read from a dim is the k-th sent on it (every rank runs the same list,
 * and NCCL's order reads each dim in the order it was sent). */
static void
pat_messages(PatList *l)
{
    uint32_t D = l->params.n_dims, P = l->params.post_pieces;
    g_autofree uint32_t *open = g_new0(uint32_t, D); /* its message's last piece so far */
    g_autofree uint32_t *count = g_new0(uint32_t, D);
    g_autofree GArray **sent = g_new(GArray *, D); /* message sizes in pieces, in order */
    for (uint32_t d = 0; d < D; d++)
        sent[d] = g_array_new(FALSE, FALSE, sizeof(uint32_t));
    for (uint32_t i = 0; i < l->pieces->len; i++) {
        const PatPiece *p = &g_array_index(l->pieces, PatPiece, i);
        if (p->out_dim < 0)
            continue;
        uint32_t d = (uint32_t)p->out_dim;
        if (count[d] > 0 &&
            (count[d] == P || g_array_index(l->pieces, PatPiece, open[d]).group != p->group))
            pat_close(l, open[d], &count[d], sent[d]);
        open[d] = i;
        count[d]++;
    }
    for (uint32_t d = 0; d < D; d++)
        if (count[d] > 0)
            pat_close(l, open[d], &count[d], sent[d]);
    g_autofree uint32_t *msg = g_new0(uint32_t, D), *left = g_new0(uint32_t, D);
    for (uint32_t i = 0; i < l->pieces->len; i++) {
        PatPiece *p = &g_array_index(l->pieces, PatPiece, i);
        if (p->in_dim < 0)
            continue;
        uint32_t d = (uint32_t)p->in_dim;
        p->take = left[d] == 0;
        if (p->take) {
            g_assert(msg[d] < sent[d]->len);
            left[d] = g_array_index(sent[d], uint32_t, msg[d]++);
        }
        left[d]--;
    }
    for (uint32_t d = 0; d < D; d++)
        g_array_free(sent[d], TRUE);
}

/* The list every rank runs on each chunk: all_gather's, or reversed for
 * reduce_scatter (a forward becomes a partial received and reduced, a
 * first read the partial's last contribution, sent on). */
static PatList *
pat_list_new(uint32_t n, const CollPatParams *params, bool reduce_scatter)
{
    PatList *l = g_new0(PatList, 1);
    l->n = n;
    l->params = *params;
    l->delta = (UINT32_C(1) << params->n_dims) / params->agg_pieces;
    l->pieces = g_array_new(FALSE, FALSE, sizeof(PatPiece));
    l->got = g_new0(bool, n);
    uint32_t low_bits = lowest_bit(l->delta);
    /* The high dims level by level (NCCL's phase 2): on dim e the offsets
     * (2a + 1) 2^e, forwarding what came over the dims above. */
    for (uint32_t e = params->n_dims; e-- > low_bits;) {
        l->group++;
        for (uint64_t a = 0; ((2 * a + 1) << e) < n; a++)
            pat_piece(l, (uint32_t)(2 * a << e), (int)e, (uint32_t)a);
    }
    pat_residues(l, 0, low_bits);
    if (reduce_scatter) {
        uint32_t len = l->pieces->len;
        for (uint32_t i = 0; i < len / 2; i++) {
            PatPiece t = g_array_index(l->pieces, PatPiece, i);
            g_array_index(l->pieces, PatPiece, i) = g_array_index(l->pieces, PatPiece, len - 1 - i);
            g_array_index(l->pieces, PatPiece, len - 1 - i) = t;
        }
        for (uint32_t i = 0; i < len; i++) {
            PatPiece *p = &g_array_index(l->pieces, PatPiece, i);
            int8_t in = p->out_dim;
            p->out_dim = p->in_dim;
            p->in_dim = in;
            p->index = i > 0 && p[-1].group == p->group ? p[-1].index + 1 : 0;
        }
    }
    pat_messages(l);
    return l;
}

static void
pat_list_free(PatList *l)
{
    g_array_free(l->pieces, TRUE);
    g_free(l->got);
    g_free(l);
}

/* Rank prog's operations for one chunk of cb bytes: the parallel pieces
 * of a group as one operation (another message from a dim already taken
 * starts the next), which receives the messages its pieces take, sends the
 * message it completes, and for reduce_scatter reduces every partial. */
static void
pat_chunk(CollBuild *b, const PatList *l, uint32_t prog, const uint32_t *send_conn,
          const uint32_t *recv_conn, uint64_t cb, bool reduce)
{
    uint32_t recv[32], n_recv = 0, n_pieces = 0, n_reduce = 0, pf = l->params.parallel;
    const PatPiece *prev = NULL;
    for (uint32_t i = 0; i < l->pieces->len; i++) {
        const PatPiece *p = &g_array_index(l->pieces, PatPiece, i);
        bool taken = false;
        for (uint32_t k = 0; p->take && k < n_recv; k++)
            taken = taken || recv[k] == recv_conn[p->in_dim];
        if (n_pieces > 0 &&
            (p->group != prev->group || p->index / pf != prev->index / pf || taken)) {
            if (n_recv > 0 || n_reduce > 0)
                coll_exec_op(b->ex, prog, recv, n_recv, NULL, 0, n_pieces * cb, n_reduce * cb);
            n_recv = n_pieces = n_reduce = 0;
        }
        if (p->take)
            recv[n_recv++] = recv_conn[p->in_dim];
        n_pieces++;
        if (reduce && p->in_dim >= 0)
            n_reduce++;
        prev = p;
        if (p->post) {
            coll_exec_op(b->ex, prog, recv, n_recv, &send_conn[p->out_dim], 1, p->post_pieces * cb,
                         n_reduce * cb);
            n_recv = n_pieces = n_reduce = 0;
        }
    }
    if (n_recv > 0 || n_reduce > 0)
        coll_exec_op(b->ex, prog, recv, n_recv, NULL, 0, n_pieces * cb, n_reduce * cb);
}

bool
coll_build_pat(CollBuild *b, GError **error)
{
    const CollComm *comm = b->comm;
    CollOp op = b->call->op;
    if ((op != COLL_OP_ALL_GATHER && op != COLL_OP_REDUCE_SCATTER) || comm->ppn != 1) {
        g_set_error(error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                    "PAT runs all_gather and reduce_scatter with one GPU per node (NCCL's "
                    "ncclPatEnable, tuning.cc:220), not %s with %u per node",
                    coll_op_name(op), comm->ppn);
        return false;
    }
    bool rs = op == COLL_OP_REDUCE_SCATTER;
    uint32_t n = comm->n_ranks, nch = MAX(b->plan.n_channels, 1);
    uint64_t chunk = MAX(b->plan.chunk_bytes, 1);
    CollPatParams pp;
    coll_pat_params(n, chunk, 1, &pp);
    uint32_t D = pp.n_dims;
    g_autofree uint32_t *send_conn = g_new(uint32_t, (size_t)n * D);
    g_autofree uint32_t *recv_conn = g_new(uint32_t, (size_t)n * D);
    /* A channel: a connection a rank and dim, a program a rank, and on
     * each chunk at most an operation (a run) a piece, naming at most the
     * connection its piece takes from and the one it posts on. Counted
     * channel by channel, before each is laid out. */
    CollBuildSize size = {0};
    for (uint32_t ch = 0; ch < nch; ch++) {
        uint64_t seg = coll_build_share(b->call->n_bytes / n, nch, ch);
        if (seg == 0)
            continue;
        coll_pat_params(n, chunk, seg, &pp);
        PatList *l = pat_list_new(n, &pp, rs);
        uint64_t runs = (uint64_t)n * ((seg + chunk - 1) / chunk) * l->pieces->len;
        size.n_ops += (double)runs;
        size.n_progs += n;
        size.n_conns += (uint64_t)n * D;
        size.n_runs += runs;
        size.n_peers += 2 * runs;
        if (!coll_build_fits(b, &size, error, "%u pieces a rank and chunk, %u channels",
                             l->pieces->len, nch)) {
            pat_list_free(l);
            return false;
        }
        for (uint32_t r = 0; r < n; r++)
            for (uint32_t d = 0; d < D; d++) {
                uint64_t step = UINT64_C(1) << d;
                uint32_t peer = (uint32_t)(rs ? (r + step) % n : (r + n - step) % n);
                uint32_t c = coll_build_conn(b, b->rank_part[r], b->rank_part[peer]);
                send_conn[(size_t)r * D + d] = c;
                recv_conn[(size_t)peer * D + d] = c;
            }
        for (uint32_t r = 0; r < n; r++) {
            uint32_t prog = coll_exec_program(b->ex, b->rank_part[r]);
            for (uint64_t off = 0; off < seg; off += chunk)
                pat_chunk(b, l, prog, &send_conn[(size_t)r * D], &recv_conn[(size_t)r * D],
                          MIN(chunk, seg - off), rs);
        }
        pat_list_free(l);
    }
    return true;
}
