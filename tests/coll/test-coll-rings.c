/* SPDX-License-Identifier: Apache-2.0 */
/* NCCL's rings on subsets of a DGX-1 (coll-rings.c) against rings worked
 * out by hand from the link maps (models/system/dgx1-{v100,p100}.ini
 * pairs) with NCCL's rules (NVIDIA/nccl 5067397c, src/graph/search.cc and
 * paths.cc), and the collectives that run on them.
 *
 * The rules used below, in short. NCCL's topology holds only the
 * communicator's GPUs, so a pair is NVL when the two are joined, NVB when
 * a third GPU of the communicator joins both (paths.cc:77-91), else PCIe:
 * on a DGX-1 every pair without an NVLink is across the QPI (SYS), which
 * NCCL rates 6 GB/s each way (topo.h:27, BDW_QPI_BW). One NVLink is 20 GB/s
 * on V100, 18 on P100 (topo.h:19-20), each direction its own budget. The
 * search (ncclTopoCompute, search.cc:1074) tries speeds 40, 30, 20, 18,
 * 15, 12, 10, 9 ... from the fastest no path exceeds, at the nearest path
 * type first (NVL; NVB or SYS only while nothing was found), each channel
 * a ring taking the speed from every link it crosses; it keeps the most
 * channels x speed, stops once that reaches a GPU's NVLink total
 * (search.cc:1198), goes on down while the next speed is above 0.49 of the
 * best (search.cc:1245). The first ring is the PCI order 0 1 2 ... when
 * that is a ring, then a replay of the last ring, then a depth-first
 * search from GPU 0 trying next GPUs by path GB/s, then fewer hops, then
 * index order after the current GPU (search.cc:253-289, :849-880). A
 * result at 25 GB/s or more is duplicated at half the speed (search.cc:
 * 1036). The communicator runs twice the graph's channels (connect.cc:460).
 * GPU numbers below are the node's; ranks follow the listed order.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "coll-suites.h"
#include "coll/coll-run.h"
#include "topo/topo-build.h"
#include "topo/topo-fault.h"

/* The NCCL view of a subset of a node, from the system model's pairs. */
static void
subset_info(const HwSystem *system, const uint32_t *gpus, uint32_t n, CollTopoInfo *info)
{
    uint32_t pair[64] = {0}, to_switch[8] = {0};
    g_assert(n <= 8);
    for (uint32_t a = 0; a < n; a++)
        for (uint32_t b = 0; b < n; b++)
            pair[a * n + b] = a == b ? 0 : hw_system_pair_links(system, gpus[a], gpus[b]);
    CollNvlinks links = {.n = n, .gpu = gpus, .pair = pair, .to_switch = to_switch};
    coll_tune_info_links(system, n, 1, n, &links, info);
}

/* A graph's rings as GPU numbers, "0 1 2|0 2 1". */
static char *
rings_text(const CollRingsGraph *g, const uint32_t *gpus, uint32_t n)
{
    GString *s = g_string_new(NULL);
    for (uint32_t c = 0; c < g->n_channels; c++) {
        if (c > 0)
            g_string_append_c(s, '|');
        for (uint32_t i = 0; i < n; i++)
            g_string_append_printf(s, i == 0 ? "%u" : " %u", gpus[g->order[c][i]]);
    }
    return g_string_free(s, FALSE);
}

typedef struct RingCase {
    const char *system;
    uint32_t gpus[8], n;
    uint32_t n_channels; /* the graph's; the communicator runs twice as many */
    double bw;           /* GB/s per channel */
    CollPath path;
    const char *rings;
} RingCase;

/* Each case reasoned out from the link map; "x2" and "x1" are NVLinks.
 *
 * DGX-1V: 0-1 0-2 1-3 2-6 3-7 4-5 4-6 5-7 x1; 0-3 0-4 1-2 1-5 2-3 4-7 5-6
 * 6-7 x2 (40 GB/s each way).
 *
 * {0,1}: one x1 link, 20 GB/s: one ring 0 1 at 20, which fills GPU 0's
 * NVLinks (20); below 25, not duplicated.
 * {0,1,2}: 0-1, 0-2 x1, 1-2 x2. No ring at 40 (GPU 0 has no x2 link). At
 * 20 the PCI order 0 1 2 is a ring; GPU 0's two links leave room for one
 * more, found from 0 by trying 1 (full), then 2: 0 2 1. 2 x 20.
 * {0,1,2,3}: GPUs 0 and 1 have 4 links each, so at most 4 rings at 20 (no
 * ring at 40: GPU 0 has one x2 link). PCI order 0 1 2 3; then from 0 the
 * x2 link first (0-3), 3's x2 neighbour 2, then 1: 0 3 2 1; again 0 3,
 * 3-2 is full one way so 3 1 2: 0 3 1 2; 0-3 is full, 0-1 too: 0 2, 2's
 * next by index 3 (3-1 is full), so 2 1 3: 0 2 1 3. 4 x 20, GPU 0's links
 * full. NCCL on GPUs 0-3 of a DGX-1V logs 8 channels, channel 0 (and 4)
 * 0->1->2->3, channel 2 2->0 and 3->1, channel 3 0->2 and 1->3
 * (NVIDIA/nccl#671).
 * {0..4}: GPU 4's only NVLink is 0-4 (x2), so no NVL ring; the search
 * takes NVB paths (4->1, 4->2, 4->3 through 0). At 40 GPU 1 has one 40
 * GB/s path (1-2), so none; at 20 the PCI order 0 1 2 3 4 is a ring (3->4
 * through 0), then 0 3 2 1 4 (1->4 through 0); every ring enters and
 * leaves 4 over 0-4, whose 40 GB/s each way carry 2. 2 x 20, path NVB.
 * {0..5}: 4's links go to 0 (x2) and 5 (x1), 5's to 1 (x2) and 4, so
 * every NVL ring holds 0-4-5-1 and crosses the x1 4-5 link: one ring each
 * way, 0 3 2 1 5 4 (from 0: 3, 2, 1 by their x2 links) and 0 4 5 1 2 3.
 * NCCL tries NVB only while NVL found nothing, so 2 x 20.
 * {0..6}: 6 joins 2 (x1), 4 (x1), 5 (x2); 4 and 6 have 4 links: at most 4
 * rings at 20, found as 0 3 2 1 5 6 4, 0 3 1 2 6 5 4, 0 4 5 6 2 1 3,
 * 0 4 6 5 1 2 3. 4 x 20.
 * {0..7}: at 40 the x2 links make one ring, 0 3 2 1 5 6 7 4, and its
 * reverse: 80 GB/s, below 6 links x 20 = 120. 20 is above 0.49 of 40: at
 * 20 the x2 ring twice each way and the two rings of x1 links, 0 1 3 7 5 4
 * 6 2 and 0 2 6 4 5 7 3 1: 6 x 20 = 120, every link full. NCCL 2.19.3 and
 * 2.27.5 on 8 x V100 DGX-1 machines log these four orders on 12 channels,
 * 0 3 2 1 5 6 7 4 and 0 4 7 6 5 1 2 3 on four each (public NCCL_DEBUG
 * logs found by exact-string search in the code index, repositories not
 * resolvable).
 * {4,5,6,7}: the {0,1,2,3} quad with 0-3 as 4-7, 1-2 as 5-6, 2-3 as 6-7:
 * the same rings, renamed.
 * {0,3}: x2: one ring at 40 fills both directions; duplicated: 2 x 20.
 * {0,5}: no NVLink and no GPU between them in the communicator: PCIe and
 * the QPI, 6 GB/s each way: one ring at 6.
 * {0,3,4,7}: 0-3, 0-4, 4-7 x2, 3-7 x1; 3<->4 through 0 and 0<->7 through 4
 * are NVB at 40. At 40 no NVL ring (3-7 is 20); with NVB 0 3 4 7 uses 0-3,
 * 3-0-4, 4-7, 7-4-0 once each way: 1 x 40. At 20 NVL gives the square 0 3
 * 7 4 and its reverse, 40 again (more hops: not better); then NVB at 20
 * (NVL was beaten by NVB) finds 0 3 4 7, 0 3 7 4, 0 4 7 3: 3 x 20 = 60,
 * every NVLink of the four GPUs full both ways.
 * {0,1,6,7}: 0-1 x1, 6-7 x2, nothing between the pairs: two NVLink
 * islands, so NCCL asks for 2 channels at least (search.cc:1140); one ring
 * 0 1 6 7 crosses the QPI once each way, at 6 GB/s one channel, so 2 x 3.
 * {0,1,2,5}: 5's only NVLink is 1-5 (x2); 5->0 and 5->2 go through 1. 2 x
 * 20: 0 1 5 2 and 0 2 1 5, 1-5 full both ways.
 *
 * DGX-1P: 16 single links (18 GB/s): quads {0,1,2,3}, {4,5,6,7} and 0-4,
 * 1-5, 2-6, 3-7.
 *
 * {0,1}, {0,1,2}: as on V100, at 18: 1 x 18; 2 x 18 (0 1 2, 0 2 1).
 * {0,1,2,3}: K4 of single links. At 18 at most 2 rings (its 12 one-way
 * links do not split into 3 rings: two rings use 8, the third finds none
 * of the 6 orders free): 36 < 54. 9 is 0.5 of 18: at 9 every link carries
 * 2, and all 6 orders of K4 fit (each link lies on exactly 2 of them): 6 x
 * 9 = 54, every link full, found in the order 0 1 2 3, 0 1 3 2, 0 2 3 1,
 * 0 2 1 3, 0 3 1 2, 0 3 2 1, the order NCCL's dump shows for 4 V100 of 2
 * links each pair (NVIDIA/nccl#713).
 * {0..4}: 4's only link is 0-4: NVB through 0, one ring each way at 18
 * needs 0-4 twice: 1 x 18 (0 1 2 3 4; 2 x 9 is no more).
 * {0..5}: as on V100, the single 4-5 link carries one ring each way: 2 x
 * 18, 0 2 3 1 5 4 and 0 4 5 1 3 2.
 * {0..6}: at 18 at most 2 rings (the 12 orders of this graph pack 2 at a
 * time); at 9, 6 would fit (each link 2), but the search spends its 16384
 * steps (search.cc:334) first: 5 x 9 = 45 > 36. The five orders are the
 * emulation's, not worked out by hand (pinned here so that they do not
 * move unnoticed).
 * {0..7}: 4 links each, 4 rings at 18 fill them all (72 = a GPU's total).
 * Tartan measured all_reduce busbw at 1 GB on the first 2 .. 8 GPUs of a
 * DGX-1P with an NCCL 2 of 2018-19 (uuudown/Tartan, microbenchmark/
 * scale_up_cl/nccl-v2/bandwidth.txt): 17.3, 34.6, 52.1, 5.6, 34.7, 34.7,
 * 62.2 GB/s, against 18, 36, 54, 18, 36, 45, 72 here. The two that differ
 * are the rules that came later: NVB paths (NCCL 2.8.3; before, 5 GPUs
 * fell back to PCIe and the QPI, 6 GB/s) and the search going on to half
 * the speed (the 0.49 rule, NCCL 2.6.4; before, 7 GPUs kept 2 x 18).
 */
static const RingCase ring_cases[] = {
    {"dgx1-v100", {0, 1}, 2, 1, 20.0, COLL_PATH_NVL, "0 1"},
    {"dgx1-v100", {0, 1, 2}, 3, 2, 20.0, COLL_PATH_NVL, "0 1 2|0 2 1"},
    {"dgx1-v100", {0, 1, 2, 3}, 4, 4, 20.0, COLL_PATH_NVL, "0 1 2 3|0 3 2 1|0 3 1 2|0 2 1 3"},
    {"dgx1-v100", {0, 1, 2, 3, 4}, 5, 2, 20.0, COLL_PATH_NVB, "0 1 2 3 4|0 3 2 1 4"},
    {"dgx1-v100", {0, 1, 2, 3, 4, 5}, 6, 2, 20.0, COLL_PATH_NVL, "0 3 2 1 5 4|0 4 5 1 2 3"},
    {"dgx1-v100",
     {0, 1, 2, 3, 4, 5, 6},
     7,
     4,
     20.0,
     COLL_PATH_NVL,
     "0 3 2 1 5 6 4|0 3 1 2 6 5 4|0 4 5 6 2 1 3|0 4 6 5 1 2 3"},
    {"dgx1-v100",
     {0, 1, 2, 3, 4, 5, 6, 7},
     8,
     6,
     20.0,
     COLL_PATH_NVL,
     "0 3 2 1 5 6 7 4|0 3 2 1 5 6 7 4|0 4 7 6 5 1 2 3|0 4 7 6 5 1 2 3|0 1 3 7 5 4 6 2|"
     "0 2 6 4 5 7 3 1"},
    {"dgx1-v100", {4, 5, 6, 7}, 4, 4, 20.0, COLL_PATH_NVL, "4 5 6 7|4 7 6 5|4 7 5 6|4 6 5 7"},
    {"dgx1-v100", {0, 3}, 2, 2, 20.0, COLL_PATH_NVL, "0 3|0 3"},
    {"dgx1-v100", {0, 5}, 2, 1, 6.0, COLL_PATH_SYS, "0 5"},
    {"dgx1-v100", {0, 3, 4, 7}, 4, 3, 20.0, COLL_PATH_NVB, "0 3 4 7|0 3 7 4|0 4 7 3"},
    {"dgx1-v100", {0, 1, 6, 7}, 4, 2, 3.0, COLL_PATH_SYS, "0 1 6 7|0 1 6 7"},
    {"dgx1-v100", {0, 1, 2, 5}, 4, 2, 20.0, COLL_PATH_NVB, "0 1 5 2|0 2 1 5"},
    {"dgx1-p100", {0, 1}, 2, 1, 18.0, COLL_PATH_NVL, "0 1"},
    {"dgx1-p100", {0, 1, 2}, 3, 2, 18.0, COLL_PATH_NVL, "0 1 2|0 2 1"},
    {"dgx1-p100",
     {0, 1, 2, 3},
     4,
     6,
     9.0,
     COLL_PATH_NVL,
     "0 1 2 3|0 1 3 2|0 2 3 1|0 2 1 3|0 3 1 2|0 3 2 1"},
    {"dgx1-p100", {0, 1, 2, 3, 4}, 5, 1, 18.0, COLL_PATH_NVB, "0 1 2 3 4"},
    {"dgx1-p100", {0, 1, 2, 3, 4, 5}, 6, 2, 18.0, COLL_PATH_NVL, "0 2 3 1 5 4|0 4 5 1 3 2"},
    {"dgx1-p100",
     {0, 1, 2, 3, 4, 5, 6},
     7,
     5,
     9.0,
     COLL_PATH_NVL,
     "0 1 3 2 6 5 4|0 1 5 4 6 2 3|0 2 3 1 5 6 4|0 3 2 6 4 5 1|0 4 5 6 2 1 3"},
    {"dgx1-p100",
     {0, 1, 2, 3, 4, 5, 6, 7},
     8,
     4,
     18.0,
     COLL_PATH_NVL,
     "0 1 2 3 7 5 6 4|0 2 6 7 4 5 1 3|0 3 1 5 4 7 6 2|0 4 6 5 7 3 2 1"},
    {"dgx1-p100", {0, 5}, 2, 1, 6.0, COLL_PATH_SYS, "0 5"},
};

static const char *
case_name(const RingCase *c, char *buf, size_t size)
{
    GString *s = g_string_new(c->system);
    for (uint32_t i = 0; i < c->n; i++)
        g_string_append_printf(s, i == 0 ? " {%u" : ",%u", c->gpus[i]);
    g_string_append_c(s, '}');
    g_strlcpy(buf, s->str, size);
    g_string_free(s, TRUE);
    return buf;
}

START_TEST(rings_as_nccl_builds_them)
{
    const RingCase *c = &ring_cases[_i];
    char name[64];
    case_name(c, name, sizeof name);
    g_autoptr(HwSystem) system = coll_test_load_system(c->system);
    CollTopoInfo info;
    subset_info(system, c->gpus, c->n, &info);
    const CollRingsGraph *g = &info.rings.ring;
    ck_assert_msg(info.rings.searched, "%s: not searched", name);
    g_autofree char *got = rings_text(g, c->gpus, c->n);
    ck_assert_msg(g->n_channels == c->n_channels && fabs(g->bw_intra - c->bw) < 1e-6 &&
                      g->path_intra == c->path && strcmp(got, c->rings) == 0,
                  "%s: %u x %.2f GB/s path %d: %s; expected %u x %.2f path %d: %s", name,
                  g->n_channels, g->bw_intra, g->path_intra, got, c->n_channels, c->bw, c->path,
                  c->rings);
    /* What the tuner reports for the ring, and the communicator's CTAs. */
    CollTuneGraph ring;
    coll_tune_graph(&info, COLL_ALGO_RING, &ring);
    ck_assert_msg(ring.n_channels == c->n_channels && fabs(ring.bw_intra - c->bw) < 1e-6 &&
                      ring.path_intra == c->path,
                  "%s: the tuner's ring %u x %.2f", name, ring.n_channels, ring.bw_intra);
    ck_assert_msg(coll_tune_channels(&info) == 2 * c->n_channels, "%s: %u channels", name,
                  coll_tune_channels(&info));
}
END_TEST

/* Budgets of a subset's directed links, as NCCL charges them: NVLinks by
 * pair (index a * n + b, links x per-link GB/s) and the QPI each way
 * (index n * n + 0 from CPU 0, n * n + 1 from CPU 1). */
typedef struct Load {
    double cap[66], used[66];
} Load;

static void
hop_load(Load *l, const CollRings *rings, const uint32_t *gpus, uint32_t n, uint32_t a, uint32_t b,
         double bw)
{
    uint32_t via = rings->via[a][b];
    if (rings->path[a][b] == COLL_PATH_NVL) {
        l->used[a * n + b] += bw;
    } else if (via != COLL_RINGS_DIRECT) {
        l->used[a * n + via] += bw;
        l->used[via * n + b] += bw;
    } else if (rings->path[a][b] == COLL_PATH_SYS) {
        l->used[n * n + gpus[a] / 4] += bw; /* GPUs 0-3 on CPU 0 */
    }
}

static void
graph_load(Load *l, const HwSystem *system, const CollRings *rings, const CollRingsGraph *g,
           const uint32_t *gpus, uint32_t n, bool ring)
{
    memset(l, 0, sizeof *l);
    double link_bw = system->gpu->sm_version >= 70 ? 20.0 : 18.0; /* topo.h:19-20 */
    for (uint32_t a = 0; a < n; a++)
        for (uint32_t b = 0; b < n; b++)
            l->cap[a * n + b] =
                a == b ? 0 : hw_system_pair_links(system, gpus[a], gpus[b]) * link_bw;
    l->cap[n * n] = l->cap[n * n + 1] = 6.0; /* BDW_QPI_BW, topo.h:27 */
    for (uint32_t c = 0; c < g->n_channels; c++)
        for (uint32_t i = 0; i + (ring ? 0 : 1) < n; i++)
            hop_load(l, rings, gpus, n, g->order[c][i], g->order[c][(i + 1) % n], g->bw_intra);
}

/* Every ring visits each GPU once, crosses paths no farther than its
 * type, and no link carries more than NCCL's budget for it; likewise the
 * tree's chains, which have the ring's channels. */
START_TEST(rings_fit_the_links)
{
    const RingCase *c = &ring_cases[_i];
    char name[64];
    case_name(c, name, sizeof name);
    g_autoptr(HwSystem) system = coll_test_load_system(c->system);
    CollTopoInfo info;
    subset_info(system, c->gpus, c->n, &info);
    const CollRings *rings = &info.rings;
    ck_assert_msg(rings->tree.n_channels == rings->ring.n_channels, "%s: %u tree channels", name,
                  rings->tree.n_channels);
    for (int t = 0; t < 2; t++) {
        const CollRingsGraph *g = t == 0 ? &rings->ring : &rings->tree;
        for (uint32_t ch = 0; ch < g->n_channels; ch++) {
            uint32_t seen = 0;
            for (uint32_t i = 0; i < c->n; i++) {
                seen |= 1u << g->order[ch][i];
                if (t == 1 && i + 1 == c->n)
                    break; /* a chain does not close */
                uint32_t a = g->order[ch][i], b = g->order[ch][(i + 1) % c->n];
                ck_assert_msg(rings->path[a][b] <= g->path_intra,
                              "%s: channel %u hop %u->%u beyond the graph's path", name, ch,
                              c->gpus[a], c->gpus[b]);
            }
            ck_assert_msg(seen == (1u << c->n) - 1, "%s: channel %u misses a GPU", name, ch);
        }
        Load l;
        graph_load(&l, system, rings, g, c->gpus, c->n, t == 0);
        for (uint32_t k = 0; k < G_N_ELEMENTS(l.cap); k++)
            ck_assert_msg(l.used[k] <= l.cap[k] + 1e-9, "%s: %s link %u carries %.1f of %.1f GB/s",
                          name, t == 0 ? "ring" : "tree", k, l.used[k], l.cap[k]);
    }
}
END_TEST

/* Which links carry the rings, worked out from the rings above: the
 * directed NVLinks a -> b with their GB/s, and the QPI each way. */
static const struct {
    const char *system;
    uint32_t gpus[8], n;
    const char *loads; /* "a>b=GB/s ..." over GPU numbers, "qpi0>1=GB/s": every other is 0 */
} load_cases[] = {
    /* Every directed NVLink of a DGX-1V full: x2 links 40, x1 links 20. */
    {"dgx1-v100",
     {0, 1, 2, 3, 4, 5, 6, 7},
     8,
     "0>1=20 1>0=20 0>2=20 2>0=20 1>3=20 3>1=20 2>6=20 6>2=20 3>7=20 7>3=20 4>5=20 5>4=20 "
     "4>6=20 6>4=20 5>7=20 7>5=20 0>3=40 3>0=40 0>4=40 4>0=40 1>2=40 2>1=40 1>5=40 5>1=40 "
     "2>3=40 3>2=40 4>7=40 7>4=40 5>6=40 6>5=40 6>7=40 7>6=40"},
    /* GPU 4 reaches the others through 0: 0-4 full both ways (each ring
     * enters and leaves 4 over it), 0-1 full (ring 1 0->1, ring 2 1->4
     * through 0); the rest half used. */
    {"dgx1-v100",
     {0, 1, 2, 3, 4},
     5,
     "0>4=40 4>0=40 0>1=20 1>0=20 1>2=20 2>1=20 2>3=20 3>2=20 3>0=20 0>3=20"},
    /* All eight directed NVLinks full: 3-7 (x1) by rings 2 and 3, the x2
     * ones twice, through 0 and 4 as NVB. */
    {"dgx1-v100", {0, 3, 4, 7}, 4, "0>3=40 3>0=40 0>4=40 4>0=40 4>7=40 7>4=40 3>7=20 7>3=20"},
    /* No NVLink: the QPI each way. */
    {"dgx1-v100", {0, 5}, 2, "qpi0>1=6 qpi1>0=6"},
    /* The QPI each way at 2 x 3, the NVLinks at 2 x 3 too. */
    {"dgx1-v100", {0, 1, 6, 7}, 4, "0>1=6 6>7=6 qpi0>1=6 qpi1>0=6"},
    /* K4 of 18 GB/s links: every directed link 2 x 9. */
    {"dgx1-p100",
     {0, 1, 2, 3},
     4,
     "0>1=18 1>0=18 0>2=18 2>0=18 0>3=18 3>0=18 1>2=18 2>1=18 1>3=18 3>1=18 2>3=18 3>2=18"},
};

START_TEST(links_the_rings_take)
{
    uint32_t n = load_cases[_i].n;
    const uint32_t *gpus = load_cases[_i].gpus;
    g_autoptr(HwSystem) system = coll_test_load_system(load_cases[_i].system);
    CollTopoInfo info;
    subset_info(system, gpus, n, &info);
    Load l, want = {{0}, {0}};
    graph_load(&l, system, &info.rings, &info.rings.ring, gpus, n, true);
    g_auto(GStrv) items = g_strsplit(load_cases[_i].loads, " ", -1);
    for (char **it = items; *it != NULL; it++) {
        uint32_t a, b;
        double bw;
        if (sscanf(*it, "qpi%u>%u=%lf", &a, &b, &bw) == 3) {
            want.used[n * n + a] = bw;
            continue;
        }
        ck_assert_msg(sscanf(*it, "%u>%u=%lf", &a, &b, &bw) == 3, "bad case '%s'", *it);
        uint32_t ia = n, ib = n;
        for (uint32_t r = 0; r < n; r++) {
            ia = gpus[r] == a ? r : ia;
            ib = gpus[r] == b ? r : ib;
        }
        want.used[ia * n + ib] = bw;
    }
    for (uint32_t k = 0; k < n * n + 2; k++)
        ck_assert_msg(fabs(l.used[k] - want.used[k]) < 1e-9,
                      "%s case %d: link %u (%u>%u) carries %.1f GB/s; expected %.1f",
                      load_cases[_i].system, _i, k, k < n * n ? gpus[k / n] : k - n * n,
                      k < n * n ? gpus[k % n] : 1 - (k - n * n), l.used[k], want.used[k]);
}
END_TEST

/* The search runs on the GPUs, not the ranks: listing 7,4,3,0 (rank 0 on
 * GPU 7) gives the rings of {0,3,4,7}, each GPU's rank relabelled; an
 * NVB path keeps its GPU. */
START_TEST(rank_order_relabels)
{
    g_autoptr(HwSystem) system = coll_test_load_system("dgx1-v100");
    const uint32_t up[] = {0, 3, 4, 7}, down[] = {7, 4, 3, 0};
    CollTopoInfo a, b;
    subset_info(system, up, 4, &a);
    subset_info(system, down, 4, &b);
    g_autofree char *ra = rings_text(&a.rings.ring, up, 4);
    g_autofree char *rb = rings_text(&b.rings.ring, down, 4);
    ck_assert_str_eq(ra, rb);
    /* 3 -> 4 goes through 0; 7 -> 0 through 4 (both NVB). */
    ck_assert_uint_eq(b.rings.via[2][1], 3); /* ranks: GPU 3 is 2, GPU 4 is 1, GPU 0 is 3 */
    ck_assert_uint_eq(b.rings.via[0][3], 1);
    ck_assert_uint_eq(a.rings.path[1][2], COLL_PATH_NVB);
}
END_TEST

/* ---- Communicators on a subset -------------------------------------- */

typedef struct Node {
    HwSystem *sys;
    TopoGraph *graph;
    TopoRouter *router;
} Node;

static void
node_init(Node *x, const char *id, const char *faults)
{
    x->sys = coll_test_load_system(id);
    g_autoptr(GError) error = NULL;
    g_auto(GStrv) items = faults != NULL ? g_strsplit(faults, ";", -1) : NULL;
    g_autoptr(TopoFaults) f = topo_faults_from_sets(items, "test", &error);
    ck_assert_msg(f != NULL, "%s", error ? error->message : "");
    x->graph = topo_build_system_faulted(x->sys, 1, f, &error);
    ck_assert_msg(x->graph != NULL, "%s", error ? error->message : "");
    x->router = topo_router_new(x->graph);
}

static void
node_clear(Node *x)
{
    topo_router_free(x->router);
    topo_graph_free(x->graph);
    hw_system_free(x->sys);
}

static CollComm *
subset_comm(const Node *x, const uint32_t *gpus, uint32_t n)
{
    g_autoptr(GError) error = NULL;
    CollComm *comm = coll_comm_new_local(x->sys, x->graph, x->router, gpus, n, 1, NULL, &error);
    ck_assert_msg(comm != NULL, "%s", error ? error->message : "");
    return comm;
}

/* A communicator's tuner sees its own GPUs: the same view as the system
 * model's pairs among them (comm_info gave GPUs 0 .. k-1 before), and the
 * first k GPUs by either constructor. */
START_TEST(comm_sees_its_gpus)
{
    Node x;
    node_init(&x, "dgx1-v100", NULL);
    const uint32_t gpus[] = {0, 3, 4, 7}, first[] = {0, 1, 2, 3};
    g_autoptr(CollComm) comm = subset_comm(&x, gpus, 4);
    CollTopoInfo want;
    subset_info(x.sys, gpus, 4, &want);
    ck_assert(memcmp(&comm->info.rings, &want.rings, sizeof want.rings) == 0);
    ck_assert_uint_eq(comm->info.rings.ring.n_channels, 3);
    g_autoptr(GError) error = NULL;
    g_autoptr(CollComm) by_count = coll_comm_new(x.sys, x.graph, x.router, 4, &error);
    g_autoptr(CollComm) by_list = subset_comm(&x, first, 4);
    ck_assert(memcmp(&by_count->info, &by_list->info, sizeof by_list->info) == 0);
    ck_assert_uint_eq(by_count->info.rings.ring.n_channels, 4);
    node_clear(&x);
}
END_TEST

/* A link down is seen in a subset: one of 0-3's two links down leaves
 * the pair as {0,1} is, one ring at 20 (not 2 x 20). */
START_TEST(comm_sees_links_down)
{
    Node x;
    node_init(&x, "dgx1-v100", "links_down=0-3x1");
    const uint32_t gpus[] = {0, 3};
    g_autoptr(CollComm) comm = subset_comm(&x, gpus, 2);
    ck_assert_uint_eq(comm->info.rings.ring.n_channels, 1);
    ck_assert(fabs(comm->info.rings.ring.bw_intra - 20.0) < 1e-9);
    node_clear(&x);
}
END_TEST

/* Bad GPU lists are errors naming the GPU. */
START_TEST(comm_rejects_bad_lists)
{
    Node x;
    node_init(&x, "dgx1-v100", NULL);
    const uint32_t twice[] = {0, 3, 3}, beyond[] = {0, 8};
    g_autoptr(GError) e1 = NULL, e2 = NULL;
    ck_assert(coll_comm_new_local(x.sys, x.graph, x.router, twice, 3, 1, NULL, &e1) == NULL);
    ck_assert_msg(strstr(e1->message, "GPU 3 is listed twice") != NULL, "%s", e1->message);
    ck_assert(coll_comm_new_local(x.sys, x.graph, x.router, beyond, 2, 1, NULL, &e2) == NULL);
    ck_assert_msg(strstr(e2->message, "GPU 8 is not one") != NULL, "%s", e2->message);
    node_clear(&x);
}
END_TEST

/* busbw in GB/s of a bandwidth-bound all_reduce of 256 MiB (ring, Simple:
 * NCCL's choice at this size) on a subset. */
static double
subset_busbw(const Node *x, const uint32_t *gpus, uint32_t n, double *model_busbw)
{
    g_autoptr(CollComm) comm = subset_comm(x, gpus, n);
    uint64_t bytes = UINT64_C(256) << 20;
    CollCall call = {.op = COLL_OP_ALL_REDUCE,
                     .n_bytes = bytes,
                     .elem_bytes = 4,
                     .algo = COLL_ALGO_RING,
                     .proto = COLL_PROTO_SIMPLE};
    CollResult r;
    g_autoptr(GError) error = NULL;
    ck_assert_msg(coll_run(comm, &call, NET_FIDELITY_FLOW, &r, &error), "%s",
                  error ? error->message : "");
    double factor = coll_busbw_factor(COLL_OP_ALL_REDUCE, n);
    *model_busbw = (double)bytes / (r.nccl_model_us * 1e3) * factor;
    return (double)bytes / ((double)r.time_ps / 1e3) * factor;
}

/* The time of a subset's collective follows from its rings: GPUs 0 and 3
 * (2 NVLinks, 2 x 20 GB/s) all-reduce twice as fast as 0 and 1 (1 link,
 * 1 x 20), 0 and 5 (no NVLink, the QPI at 6) 20/6 times slower than 0 and
 * 1; {0,3,4,7}'s three rings through NVB relays reach 3 x 20; each within
 * 5% of NCCL's own model of the same rings, the square within 10%: its
 * relays forward each slice at their channel's rate (coll-exec paces
 * every CTA's sends), which NCCL's model does not count. */
START_TEST(subset_time_follows_rings)
{
    Node x;
    node_init(&x, "dgx1-v100", NULL);
    const uint32_t two[] = {0, 3}, one[] = {0, 1}, none[] = {0, 5}, square[] = {0, 3, 4, 7};
    double m2, m1, m0, m4;
    double b2 = subset_busbw(&x, two, 2, &m2), b1 = subset_busbw(&x, one, 2, &m1);
    double b0 = subset_busbw(&x, none, 2, &m0), b4 = subset_busbw(&x, square, 4, &m4);
    ck_assert_msg(fabs(b2 / b1 - 2.0) < 0.05, "0-3 %.2f, 0-1 %.2f GB/s", b2, b1);
    ck_assert_msg(fabs(b1 / b0 - 20.0 / 6.0) < 0.1, "0-1 %.2f, 0-5 %.2f GB/s", b1, b0);
    ck_assert_msg(b4 > 0.9 * 60.0 && b4 <= 60.0 * 1.001, "{0,3,4,7} %.2f GB/s", b4);
    const double got[] = {b2, b1, b0, b4}, model[] = {m2, m1, m0, m4};
    for (int i = 0; i < 4; i++)
        ck_assert_msg(fabs(got[i] / model[i] - 1.0) < (i == 3 ? 0.10 : 0.05),
                      "case %d: %.2f GB/s, NCCL's model %.2f", i, got[i], model[i]);
    node_clear(&x);
}
END_TEST

/* A partial NVSwitch node keeps every GPU's links to the switches: the
 * channel count of the full node for every k (NCCL's rings there cross
 * each GPU's switch links once whatever k), and no pair search. */
START_TEST(nvswitch_subsets_keep_channels)
{
    const char *ids[] = {"dgx-a100", "dgx-h100"};
    for (int s = 0; s < 2; s++) {
        Node x;
        node_init(&x, ids[s], NULL);
        g_autoptr(GError) error = NULL;
        g_autoptr(CollComm) full = coll_comm_new(x.sys, x.graph, x.router, 8, &error);
        uint32_t want = coll_tune_channels(&full->info);
        for (uint32_t k = 2; k < 8; k++) {
            const uint32_t spread[] = {7, 0, 5, 2, 6, 1, 3};
            g_autoptr(CollComm) comm = subset_comm(&x, spread, k);
            ck_assert_msg(coll_tune_channels(&comm->info) == want && !comm->info.rings.searched,
                          "%s k=%u: %u channels, full node %u", ids[s], k,
                          coll_tune_channels(&comm->info), want);
        }
        node_clear(&x);
    }
}
END_TEST

/* 4 V100 with 2 NVLinks between every two (NVIDIA/nccl#713's server A):
 * no 3 rings fit at 40 (as for K4 above), at 20 the six orders of K4, in
 * the order NCCL's graph dump lists them (6 channels, typeintra NVL). */
START_TEST(k4_of_double_links)
{
    g_autofree char *dir = coll_test_models_dir();
    const char *text = "[system]\nname = 4 V100, 2 links a pair\ngpu = v100-sxm2\ngpus = 4\n"
                       "[nvlink]\nlink = nvlink2\npairs = 0-1x2, 0-2x2, 0-3x2, 1-2x2, 1-3x2, "
                       "2-3x2\n[host]\ncpus = 1\ngpu_link = pcie3\npcie = pcie3\n";
    g_autoptr(GError) error = NULL;
    g_autoptr(HwSystem) system = hw_system_load_data(text, (gsize)-1, "k4.ini", dir, &error);
    ck_assert_msg(system != NULL, "%s", error ? error->message : "");
    const uint32_t gpus[] = {0, 1, 2, 3};
    CollTopoInfo info;
    subset_info(system, gpus, 4, &info);
    g_autofree char *got = rings_text(&info.rings.ring, gpus, 4);
    ck_assert_str_eq(got, "0 1 2 3|0 1 3 2|0 2 3 1|0 2 1 3|0 3 1 2|0 3 2 1");
    ck_assert(fabs(info.rings.ring.bw_intra - 20.0) < 1e-9);
}
END_TEST

Suite *
coll_rings_suite(void)
{
    Suite *s = suite_create("coll-rings");
    TCase *tc = tcase_create("search");
    tcase_add_loop_test(tc, rings_as_nccl_builds_them, 0, G_N_ELEMENTS(ring_cases));
    tcase_add_loop_test(tc, rings_fit_the_links, 0, G_N_ELEMENTS(ring_cases));
    tcase_add_loop_test(tc, links_the_rings_take, 0, G_N_ELEMENTS(load_cases));
    tcase_add_test(tc, rank_order_relabels);
    tcase_add_test(tc, k4_of_double_links);
    suite_add_tcase(s, tc);
    tc = tcase_create("comm");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, comm_sees_its_gpus);
    tcase_add_test(tc, comm_sees_links_down);
    tcase_add_test(tc, comm_rejects_bad_lists);
    tcase_add_test(tc, subset_time_follows_rings);
    tcase_add_test(tc, nvswitch_subsets_keep_channels);
    suite_add_tcase(s, tc);
    return s;
}
