/* SPDX-License-Identifier: Apache-2.0 */
/* NCCL's cost model, NCCL 2.30 (shared/reference/nccl_model.md §1-§7):
 * the tuner's constant tables, the communicator as NCCL's topology code
 * would parse it from an HwSystem, the time model (tuning.cc), the choice
 * of algorithm and protocol (enqueue.cc) and the per-call channels and
 * chunks. Analytical closed forms, no events. The channel search that
 * feeds the model is emulated in coll-tune-search.c. Units: NCCL's GB/s
 * (1000 bytes per us), us, bytes. Sources: NVIDIA/nccl @5067397c, file:line
 * on each table.
 */
#include "coll/coll-tune.h"

#include <math.h>
#include <string.h>

#include "coll/coll-tune-search.h"

/* Hardware classes of hwLatencies (NCCL_HW_NVLINK, _PCI, _NET). */
enum { HW_NVLINK, HW_PCI, HW_NET, N_HW };

/* baseLatencies (us), tuning.cc:149-155. */
static const double base_latency_us[N_NA][N_NP] = {
    [NA_TREE] = {6.8, 14.0, 8.4},   [NA_RING] = {6.6, 14.0, 8.4}, [NA_COLLNET_DIRECT] = {0, 0, 0},
    [NA_COLLNET_CHAIN] = {0, 0, 0}, [NA_NVLS] = {0, 0, 0},        [NA_NVLS_TREE] = {0, 0, 0},
    [NA_PAT] = {8.0, 8.0, 8.0},
};

/* hwLatencies (us per step) by link class, tuning.cc:156-176. */
static const double hw_latency_us[N_HW][N_NA][N_NP] = {
    [HW_NVLINK] = {[NA_TREE] = {0.6, 1.25, 4.0},
                   [NA_RING] = {0.6, 1.9, 3.4},
                   [NA_COLLNET_DIRECT] = {0, 0, 3.7},
                   [NA_COLLNET_CHAIN] = {0, 0, 2.8},
                   [NA_NVLS] = {0, 0, 25},
                   [NA_NVLS_TREE] = {0, 0, 25},
                   [NA_PAT] = {0, 0, 4.0}},
    [HW_PCI] = {[NA_TREE] = {1.0, 1.9, 4.0},
                [NA_RING] = {1.0, 2.5, 5.7},
                [NA_COLLNET_DIRECT] = {0, 0, 3.7},
                [NA_COLLNET_CHAIN] = {0, 0, 2.8},
                [NA_NVLS] = {0, 0, 0},
                [NA_NVLS_TREE] = {0, 0, 0},
                [NA_PAT] = {0, 0, 4.0}},
    [HW_NET] = {[NA_TREE] = {5.0, 8.5, 14},
                [NA_RING] = {2.7, 4.0, 14.0},
                [NA_COLLNET_DIRECT] = {0, 0, 31},
                [NA_COLLNET_CHAIN] = {0, 0, 30},
                [NA_NVLS] = {0, 0, 18},
                [NA_NVLS_TREE] = {0, 0, 20.9},
                [NA_PAT] = {0, 0, 14}},
};

/* Caps in GB/s, [arch index][scale index: 1 node, 2 nodes, >= 3 nodes]. */
/* llMaxBws, tuning.cc:177-183. Single node: the row of the arch;
 * multi-node: row 0 (Intel) or row 1 (AMD), tuning.cc:268-271. */
static const double ll_max_bw[N_ARCHS][N_SCALES] = {
    {39.0, 39.0, 20.4}, {87.7, 22.5, 19.0}, {141.0, 45.0, 35.0}, {2 * 141.0, 2 * 45.0, 2 * 35.0}};
/* perChMaxRingLL128Bws, tuning.cc:184-190. */
static const double per_ch_max_ring_ll128_bw[N_ARCHS][N_SCALES] = {
    {20.0, 20.0, 20.0}, {20.0, 20.0, 20.0}, {36.7, 36.7, 36.7}, {40.0, 40.0, 40.0}};
/* perChMaxTreeLL128Bws, tuning.cc:191-197. */
static const double per_ch_max_tree_ll128_bw[N_ARCHS][N_SCALES] = {
    {20.0, 20.0, 20.0}, {20.0, 20.0, 20.0}, {36.7, 36.7, 29.0}, {55.6, 31.67, 20.0}};
/* perChMaxTreeBws, tuning.cc:198-204. */
static const double per_ch_max_tree_bw[N_ARCHS][N_SCALES] = {
    {26.5, 18.5, 10.0}, {24.0, 23.6, 17.8}, {38.7, 41.4, 36.0}, {70.0, 42.8, 24.0}};
/* perChMaxNVLSTreeBws, tuning.cc:205-211. */
static const double per_ch_max_nvls_tree_bw[N_ARCHS][N_SCALES] = {
    {26.5, 18.5, 10.0}, {24.0, 23.6, 17.8}, {0.0, 57.7, 45.5}, {0.0, 96.0, 80.0}};

/* nvlsEfficiency, tuning.cc:139-146. */
static const double nvls_efficiency[N_ARCHS] = {0.0, 0.0, 0.85, 0.74};

/* Model refinements, tuning.cc:326-338, and the ring plateau, :647-650. */
#define RING_LL_FACTOR 0.5
#define RING_LL128_FACTOR 0.92 /* "120.0/128.0" in the source's comment */
#define TREE_ALLREDUCE_FACTOR 0.92
#define TREE_LL_DIVISOR 3.8
#define TREE_LL128_FACTOR_ONE_NODE (7.0 / 9.0)
#define TREE_LL128_FACTOR_NODES (120.0 / 128.0)
#define TREE_PATTERN_FACTOR 0.85    /* the plain TREE pattern (one GPU per node) */
#define PAT_FACTOR 0.75             /* :337 */
#define PAT_LATENCY_PER_RANK_US 2.8 /* :433 */
#define PAT_INTER_DIVISOR 3.5       /* :432, over log2(nodes) steps */
/* CollNet Direct (tuning.cc:340-348, :418-422): the share of the bus
 * bandwidth on SM90+, and the serialization of each extra local rank. */
#define COLLNET_DIRECT_SM90_FACTOR 0.85
#define COLLNET_DIRECT_ARITY_US 0.4
/* Extra channels for CollNet when a chain's intra bandwidth exceeds its
 * inter (connect.cc:466-468): nChannels + nChannels / 2. */
#define COLLNET_CHANNEL_GROWTH_NUM 3
#define COLLNET_CHANNEL_GROWTH_DEN 2
#define RING_PLATEAU_PRE_AMPERE 1.9
#define RING_PLATEAU 1.4
/* Network post overhead (us), tuning.cc:225-233; x3 for Simple (:408). */
#define NET_OVERHEAD_US 1.0
#define NET_OVERHEAD_AMD_US 2.0
#define NET_OVERHEAD_SIMPLE_FACTOR 3.0

/* treeCorrectionFactor[proto][log2(bytes/64)], 64 B ... 256 MiB,
 * tuning.cc:623-627. */
static const double tree_correction[N_NP][24] = {
    {1.0, 1.0, 1.0, 1.0, .9, .8, .7, .7,  .7,  .7,  .6,  .5,
     .4,  .4,  .5,  .6,  .7, .8, .9, 1.0, 1.0, 1.0, 1.0, 1.0},
    {1.0, 1.0, 1.0, 1.0, 1.0, .9, .8, .8, .8, .7,  .6,  .6,
     .6,  .6,  .6,  .6,  .8,  .9, .9, .9, .9, 1.0, 1.0, 1.0},
    {.9, .9, .9, .9, .9, .9, .9, .8, .7, .6, .6, .5,
     .5, .5, .5, .6, .7, .8, .7, .7, .8, .9, .9, .9},
};

/* Protocol geometry (device.h, comm.h, init.cc:810-851). */
#define NCCL_STEPS 8
#define LL_BUFF_BYTES 524288u      /* 8 lines/thread x 512 threads x 8 steps x 16 B */
#define LL128_BUFF_BYTES 4915200u  /* 120 elems/thread x 640 threads x 8 steps x 8 B */
#define SIMPLE_BUFF_BYTES 4194304u /* 4 MiB, NCCL_BUFFSIZE */
static const uint32_t buff_bytes[N_NP] = {LL_BUFF_BYTES, LL128_BUFF_BYTES, SIMPLE_BUFF_BYTES};

/* A protocol's buffer a connection: NCCL_BUFFSIZE, where set, is Simple's
 * (init.cc:810-813). */
static uint64_t
proto_buff_bytes(const CollTopoInfo *info, int p)
{
    return p == NP_SIMPLE && info->env.buffsize_bytes > 0 ? info->env.buffsize_bytes
                                                          : buff_bytes[p];
}
/* ncclProtoGrainSize, device.h:328-334. */
static const uint32_t grain_bytes[N_NP] = {16, 1920, 512};
/* NCCL_LL_MAX_NTHREADS, NCCL_LL128_MAX_NTHREADS, NCCL_SIMPLE_MAX_NTHREADS. */
static const uint32_t max_threads[N_NP] = {512, 640, 512};
/* NCCL_{LL,LL128,SIMPLE}_THREAD_THRESHOLD, comm.h:49-51 (Ring LL: x nRanks). */
static const uint32_t thread_threshold[N_NP] = {8, 8, 64};
/* NCCL_MAX_NTHREADS (device.h), CollNet's maxThreads (tuning.cc:250-252)
 * and CollNet's thread threshold, 512 (tuning.cc:594-595). */
#define MAX_NTHREADS 640
#define COLLNET_THREAD_THRESHOLD 512
/* CollNet Chain's chunk cap (enqueue.cc:2249-2250). */
#define COLLNET_CHAIN_MAX_CHUNK_BYTES (256u * 1024u)
#define PCI_BW 12.0 /* topo.h PCI_BW: Ring Simple runs 256 threads at or below it */
#define MAX_CHANNELS 64

/* NVLS (nvls.cc:155-243). */
#define NVLS_CHANNELS_SM90 16
#define NVLS_CHANNELS_SM100 32
#define NVLS_CHANNELS_SM100_ONE_NODE 24
#define NVLS_CHUNK_BYTES (128u * 1024u)
#define NVLS_TREE_MAX_CHUNK_BYTES_4_NODES (64u * 1024u)

/* P2P (init.cc:818-845, enqueue.cc:859-944, paths.cc:917-952). */
#define P2P_NVL_CHUNK_BYTES (512u * 1024u)
#define P2P_PCI_CHUNK_BYTES (128u * 1024u)
#define P2P_NET_CHUNK_BYTES (128u * 1024u)
#define P2P_LL_THRESHOLD_BYTES 16384u

/* ---- NCCL's indices ---------------------------------------------------- */

int
coll_tune_nccl_algo(CollAlgo algo)
{
    switch (algo) {
    case COLL_ALGO_RING:
        return NA_RING;
    case COLL_ALGO_TREE:
        return NA_TREE;
    case COLL_ALGO_NVLS:
        return NA_NVLS;
    case COLL_ALGO_NVLS_TREE:
        return NA_NVLS_TREE;
    case COLL_ALGO_PAT:
        return NA_PAT;
    case COLL_ALGO_COLLNET_DIRECT:
        return NA_COLLNET_DIRECT;
    case COLL_ALGO_COLLNET_CHAIN:
        return NA_COLLNET_CHAIN;
    default:
        return -1;
    }
}

static int
nccl_proto(CollProto proto)
{
    switch (proto) {
    case COLL_PROTO_LL:
        return NP_LL;
    case COLL_PROTO_LL128:
        return NP_LL128;
    case COLL_PROTO_SIMPLE:
        return NP_SIMPLE;
    default:
        return -1;
    }
}

/* NCCL's log2i: floor(log2(n)), -1 for 0. */
static int
log2i(uint64_t n)
{
    int l = -1;
    while (n != 0) {
        n >>= 1;
        l++;
    }
    return l;
}

/* NCCL's float ppn, nRanks / nNodes (tuning.cc:281, enqueue.cc:2288). */
static double
mean_ppn(const CollTopoInfo *info)
{
    return (double)info->n_ranks / info->n_nodes;
}

/* ---- Small accessors ---------------------------------------------------- */

double
coll_tune_nvls_efficiency(const CollTopoInfo *info)
{
    g_return_val_if_fail(info != NULL && info->arch_index < N_ARCHS, 0.0);
    return nvls_efficiency[info->arch_index];
}

uint32_t
coll_tune_channels(const CollTopoInfo *info)
{
    g_return_val_if_fail(info != NULL, 1);
    CollTuneGraph ring, tree;
    coll_tune_graph(info, COLL_ALGO_RING, &ring);
    coll_tune_graph(info, COLL_ALGO_TREE, &tree);
    uint32_t n = MIN(MAX_CHANNELS, 2 * MIN(ring.n_channels, tree.n_channels));
    CollTuneGraph chain;
    coll_tune_graph(info, COLL_ALGO_COLLNET_CHAIN, &chain);
    if (chain.n_channels > 0 && chain.bw_intra > chain.bw_inter && info->ppn > 1)
        n = MIN(MAX_CHANNELS, n * COLLNET_CHANNEL_GROWTH_NUM / COLLNET_CHANNEL_GROWTH_DEN);
    if (info->sm_version >= 90 && info->n_nodes > 1 && ring.bw_intra > 45.0 && n < 16)
        n = MIN(MAX_CHANNELS, 2 * n);
    return MAX(n, 1);
}

/* The SM100 multi-node NVLS-tree table (nvls.cc:163-199): channels, chunk
 * and tree chunk cap by NIC GB/s and ranks per node. */
static void
nvls_sm100_nodes(const CollTopoInfo *info, uint32_t *n_channels, uint32_t *chunk,
                 uint32_t *tree_max)
{
    double nic = info->nic_bw;
    uint32_t ppn = info->node_ranks; /* comm->minLocalRanks, nvls.cc:167 */
    bool close = info->path_net <= COLL_PATH_PXB;
    *chunk = NVLS_CHUNK_BYTES;
    if (info->n_nodes == 2 && nic >= 48.0) {
        *n_channels = 32;
        *tree_max = 128 * 1024;
        if (ppn <= 4) {
            *chunk = 256 * 1024;
            *tree_max = 256 * 1024;
        } else if (ppn >= 16 || (ppn <= 8 && close && nic < 96.0)) {
            *tree_max = 64 * 1024;
        }
    } else if (nic >= 96.0) {
        *n_channels = ppn <= 8 ? 24 : 32;
        *chunk = ppn <= 8 ? 256 * 1024 : NVLS_CHUNK_BYTES;
        *tree_max = ppn <= 8 ? 256 * 1024 : (ppn < 32 ? 128 * 1024 : 64 * 1024);
    } else if (nic >= 48.0) {
        *n_channels = 24;
        *tree_max = close ? 64 * 1024 : 128 * 1024;
    }
}

/* nvlsChannels, nvlsChunkSize and nvlsTreeMaxChunkSize (ncclNvlsTuning). */
static void
nvls_params(const CollTopoInfo *info, uint32_t *n_channels, uint32_t *chunk, uint32_t *tree_max)
{
    *n_channels = info->sm_version >= 100
                      ? (info->n_nodes > 1 ? NVLS_CHANNELS_SM100 : NVLS_CHANNELS_SM100_ONE_NODE)
                      : NVLS_CHANNELS_SM90;
    *chunk = 0;
    *tree_max = 0;
    if (info->sm_version >= 100 && info->n_nodes > 1)
        nvls_sm100_nodes(info, n_channels, chunk, tree_max);
    if (*chunk == 0)
        *chunk = NVLS_CHUNK_BYTES;
    /* NCCL_NVLS_CHUNKSIZE and NCCL_NVLSTREE_MAX_CHUNKSIZE, where set,
     * replace the tuning's (nvls.cc's ncclParamNvlsChunkSize,
     * ncclParamNvlsTreeMaxChunkSize). */
    if (info->env.nvls_chunk_bytes > 0)
        *chunk = (uint32_t)info->env.nvls_chunk_bytes;
    if (*tree_max == 0)
        *tree_max = info->n_nodes >= 4 ? NVLS_TREE_MAX_CHUNK_BYTES_4_NODES : *chunk;
    if (info->env.nvls_tree_max_chunk_bytes > 0)
        *tree_max = (uint32_t)info->env.nvls_tree_max_chunk_bytes;
}

uint32_t
coll_tune_nvls_channels(const CollTopoInfo *info)
{
    g_return_val_if_fail(info != NULL, 0);
    if (!info->nvls)
        return 0;
    uint32_t n, chunk, tree_max;
    nvls_params(info, &n, &chunk, &tree_max);
    return n;
}

/* ---- Which combinations NCCL runs ---------------------------------------- */

/* ncclTopoTuneModel's algorithm filter (tuning.cc:293-305), the enable
 * rules (:440-538) and updateCollCostTable's (enqueue.cc:1989-2025), for
 * what nvlsim models: no tuner plugin, no NCCL_ALGO/NCCL_PROTO,
 * homogeneous GPUs, not the CUDA 11.8 Hopper two-rank LL128 exception.
 * With CollNet on, NCCL would also run NVLS across nodes (NVLS+SHARP,
 * :503-506) and CollNet Direct all_gather and reduce_scatter (:351-374;
 * the SHARP plugin has iallgather and ireducescatter); nvlsim simulates
 * neither, so its choice leaves them out. */
static bool
algo_runs(const CollTopoInfo *info, CollOp op, NcclAlgo a, int p)
{
    bool ag_rs = op == COLL_OP_ALL_GATHER || op == COLL_OP_REDUCE_SCATTER;
    switch (op) {
    case COLL_OP_ALL_REDUCE:
        if (a == NA_PAT)
            return false;
        break;
    case COLL_OP_ALL_GATHER:
    case COLL_OP_REDUCE_SCATTER:
        if (a != NA_RING && a != NA_NVLS && a != NA_PAT)
            return false;
        break;
    case COLL_OP_BROADCAST:
    case COLL_OP_REDUCE:
        if (a != NA_RING)
            return false;
        break;
    default:
        return false;
    }
    if (a == NA_NVLS || a == NA_NVLS_TREE) {
        if (p != NP_SIMPLE || !info->nvls || (!ag_rs && op != COLL_OP_ALL_REDUCE))
            return false;
        if (op != COLL_OP_ALL_REDUCE && info->max_node_ranks > 32)
            return false;
        if (a == NA_NVLS && info->n_nodes > 1) /* needs CollNet (IB SHARP) */
            return false;
        if (a == NA_NVLS_TREE && info->n_nodes == 1)
            return false;
    }
    /* CollNet (tuning.cc:338-339, :503-509; enqueue.cc:1999-2003): Simple,
     * enabled, at most 8 ranks a node; Direct on NVSwitch systems (its
     * graph is empty elsewhere). */
    if ((a == NA_COLLNET_DIRECT || a == NA_COLLNET_CHAIN) &&
        (p != NP_SIMPLE || !info->collnet || info->max_node_ranks > COLL_COLLNET_MAX_PPN))
        return false;
    /* ncclPatEnable (tuning.cc:215-223): SM60+, one GPU per node. */
    if (a == NA_PAT && (p != NP_SIMPLE || info->sm_version < 60 || info->n_nodes != info->n_ranks))
        return false;
    return true;
}

/* LL128's default (tuning.cc:518-533): close enough to the NIC (PXN on
 * SM90+, PXB before), NVLink-class paths inside the node, Volta or later. */
static bool
ll128_runs(const CollTopoInfo *info, const CollTuneGraph *g)
{
    CollPath max_inter = info->sm_version >= 90 ? COLL_PATH_PXN : COLL_PATH_PXB;
    return g->path_inter <= max_inter && g->path_intra <= COLL_PATH_NVB && info->sm_version >= 70;
}

/* ---- The model ------------------------------------------------------------ */

static uint32_t
n_steps(CollOp op, uint32_t n)
{
    if (op == COLL_OP_ALL_REDUCE)
        return 2 * (n - 1);
    if (op == COLL_OP_ALL_GATHER || op == COLL_OP_REDUCE_SCATTER)
        return n - 1;
    return n;
}

/* NVLS's per-channel GB/s (tuning.cc:307-321). */
static double
nvls_channel_bw(const CollTopoInfo *info, CollOp op, NcclAlgo a, const CollTuneGraph *g)
{
    double ppn = mean_ppn(info), n = g->n_channels;
    double intra = g->bw_intra * nvls_efficiency[info->arch_index] * (n - 1) / n;
    intra *= op == COLL_OP_ALL_REDUCE ? 2.0 : (ppn - 1) / ppn;
    double inter = g->bw_inter * (a == NA_NVLS_TREE && info->n_nodes <= 2 ? 2.0 : 1.0);
    double bw = MIN(intra, inter);
    if (a == NA_NVLS_TREE)
        bw = MIN(bw, per_ch_max_nvls_tree_bw[info->arch_index][info->scale_index]);
    return bw;
}

/* The bus GB/s NCCL's model gives all channels together, 0 when disabled
 * (tuning.cc:306-375, before the conversion to algorithm bandwidth). */
static double
model_bus_bw(const CollTopoInfo *info, CollOp op, NcclAlgo a, int p, const CollTuneGraph *g)
{
    uint32_t ai = info->arch_index, si = info->scale_index, n = info->n_ranks;
    bool ag_rs = op == COLL_OP_ALL_GATHER || op == COLL_OP_REDUCE_SCATTER;
    double nch = g->n_channels;
    bool collnet = a == NA_COLLNET_DIRECT || a == NA_COLLNET_CHAIN;
    double bw = info->n_nodes <= 2 || collnet ? g->bw_intra : g->bw_inter;
    if (a == NA_NVLS || a == NA_NVLS_TREE) {
        if (g->n_channels < 2)
            return 0.0;
        bw = nvls_channel_bw(info, op, a, g);
    }
    double bus = nch * bw;
    double ll_max = ll_max_bw[info->n_nodes == 1 ? ai : (info->cpu_amd ? 1 : 0)][si];
    if (a == NA_RING && p == NP_LL)
        bus = MIN(ll_max, bus * RING_LL_FACTOR);
    if (a == NA_RING && p == NP_LL128)
        bus = MIN(bus * RING_LL128_FACTOR, nch * per_ch_max_ring_ll128_bw[ai][si]);
    if (a == NA_TREE && op == COLL_OP_ALL_REDUCE)
        bus = MIN(bus * TREE_ALLREDUCE_FACTOR, nch * per_ch_max_tree_bw[ai][si]);
    if (a == NA_TREE && p == NP_LL)
        bus = MIN(bus / TREE_LL_DIVISOR, ll_max);
    if (a == NA_TREE && p == NP_LL128)
        bus = MIN(bus * (info->n_nodes == 1 ? TREE_LL128_FACTOR_ONE_NODE : TREE_LL128_FACTOR_NODES),
                  nch * per_ch_max_tree_ll128_bw[ai][si]);
    /* One GPU per node turns the tree search's pattern into the plain
     * TREE (search.cc:1133); with more, the balanced tree is assumed. */
    if (a == NA_TREE && info->n_ranks == info->n_nodes)
        bus *= TREE_PATTERN_FACTOR;
    if (a == NA_PAT)
        bus *= PAT_FACTOR;
    if (a == NA_NVLS && ag_rs && info->n_nodes > 1)
        bus = 0.0;
    /* CollNet Direct all_reduce: the GPU:NIC ratio (ppn / heads) costs
     * half its excess (tuning.cc:340-348). */
    if (a == NA_COLLNET_DIRECT && nch > 0) {
        double factor = mean_ppn(info) / nch;
        factor -= (factor - 1) / 2;
        bus /= factor;
        if (info->sm_version >= 90)
            bus *= COLLNET_DIRECT_SM90_FACTOR;
    }
    (void)n;
    return bus;
}

/* comm->bandwidths[op][a][p]: the algorithm GB/s (tuning.cc:376-382). */
static double
model_bw(const CollTopoInfo *info, CollOp op, NcclAlgo a, int p, const CollTuneGraph *g)
{
    bool ag_rs = op == COLL_OP_ALL_GATHER || op == COLL_OP_REDUCE_SCATTER;
    uint32_t n = info->n_ranks;
    double bus = model_bus_bw(info, op, a, p, g);
    if (!(a != NA_RING && ag_rs))
        bus *= a == NA_RING || a == NA_NVLS || a == NA_NVLS_TREE ? (double)n / n_steps(op, n) : 0.5;
    return bus;
}

/* The ring's latency (tuning.cc:393-412). */
static double
ring_latency_us(const CollTopoInfo *info, CollOp op, int p, int intra_hw, double inter_lat,
                const CollTuneGraph *g)
{
    uint32_t nsteps = n_steps(op, info->n_ranks);
    int hw = info->n_nodes == 1 ? intra_hw : HW_NET;
    if (op == COLL_OP_BROADCAST || op == COLL_OP_REDUCE) {
        double l = hw_latency_us[hw][NA_RING][p];
        if (g->same_channels)
            return l;
        if (p == NP_SIMPLE)
            l = hw_latency_us[hw][NA_TREE][p];
        return nsteps * l;
    }
    double intra_lat = hw_latency_us[intra_hw][NA_RING][p], overhead = 0.0;
    if (info->n_nodes > 1) {
        overhead = info->cpu_amd ? NET_OVERHEAD_AMD_US : NET_OVERHEAD_US;
        if (p == NP_SIMPLE)
            overhead *= NET_OVERHEAD_SIMPLE_FACTOR;
    }
    intra_lat = MAX(intra_lat, overhead);
    uint32_t n_inter = info->n_nodes == 1         ? 0
                       : op == COLL_OP_ALL_REDUCE ? 2 * (info->n_nodes - 1)
                                                  : info->n_nodes - 1;
    return (nsteps - n_inter) * intra_lat + n_inter * inter_lat;
}

/* comm->latencies[op][a][p] in us (tuning.cc:384-435). A network step
 * adds the NET device's latency as its plugin reports it (the graph's
 * latencyInter), twice for Simple (its flush, tuning.cc:389-391): 0 from
 * NCCL's InfiniBand plugin. */
static double
model_latency_us(const CollTopoInfo *info, CollOp op, NcclAlgo a, int p, const CollTuneGraph *g)
{
    /* The source compares typeIntra with LINK_NVL: only a direct NVLink
     * path (PATH_NVL) gets NVLink latencies (tuning.cc:284-286). */
    int intra_hw = g->path_intra == COLL_PATH_NVL ? HW_NVLINK : HW_PCI;
    double intra_lat = hw_latency_us[intra_hw][a][p];
    double inter_lat = info->n_ranks == info->n_nodes ? hw_latency_us[HW_NET][NA_TREE][p]
                                                      : hw_latency_us[HW_NET][a][p];
    if (info->n_nodes > 1)
        inter_lat += info->net_latency_us * (p == NP_SIMPLE ? 2 : 1);
    int log_nodes = log2i(info->n_nodes);
    double lat = base_latency_us[a][p];
    bool ag_rs = op == COLL_OP_ALL_GATHER || op == COLL_OP_REDUCE_SCATTER;
    switch (a) {
    case NA_RING:
        return lat + ring_latency_us(info, op, p, intra_hw, inter_lat, g);
    case NA_TREE:
        if (op == COLL_OP_ALL_REDUCE)
            lat += 2 * ((info->ppn - 1) * intra_lat + log_nodes * inter_lat);
        return lat;
    case NA_COLLNET_DIRECT:
        return lat +
               2 * (MIN(1.0, info->ppn - 1.0) * intra_lat +
                    (info->ppn - 1.0) * COLLNET_DIRECT_ARITY_US) +
               inter_lat;
    case NA_COLLNET_CHAIN:
        return lat + 2 * (info->ppn - 1.0) * intra_lat + inter_lat;
    case NA_NVLS:
        return intra_lat + (info->n_nodes > 1 ? inter_lat : 0.0);
    case NA_NVLS_TREE:
        return lat + intra_lat + 2 * log_nodes * inter_lat;
    case NA_PAT:
        if (ag_rs)
            lat += log_nodes * (inter_lat / PAT_INTER_DIVISOR) +
                   info->n_ranks * PAT_LATENCY_PER_RANK_US;
        return lat;
    default:
        return lat;
    }
}

/* ---- p2p: alltoall and sendrecv ------------------------------------------- */

/* Bytes each peer gets: nccl-tests' alltoall splits its buffer over the
 * ranks, sendrecv sends it whole to the next rank. */
static uint64_t
peer_bytes(CollOp op, uint64_t n_bytes, uint32_t n_ranks)
{
    return op == COLL_OP_ALLTOALL ? n_bytes / n_ranks : n_bytes;
}

/* comm->p2pChunkSize (init.cc:836-848): 128 KiB over the network (x2 on
 * Grace with SM100), 512 KiB when every local pair is NVLink, else 128
 * KiB; at most a Simple step. */
static uint64_t
p2p_step_bytes(const CollTopoInfo *info)
{
    uint64_t net = info->env.p2p_net_chunk_bytes > 0
                       ? info->env.p2p_net_chunk_bytes
                       : P2P_NET_CHUNK_BYTES * (info->cpu_arm && info->sm_version >= 100 ? 2 : 1);
    uint64_t step = info->n_nodes > 1        ? net
                    : info->nvlink_all_pairs ? P2P_NVL_CHUNK_BYTES
                                             : P2P_PCI_CHUNK_BYTES;
    return MIN(step, proto_buff_bytes(info, NP_SIMPLE) / NCCL_STEPS);
}

/* The channels one peer's bytes are split over (enqueue.cc:1143-1146,
 * :913-926): up to the per-peer count, fewer when all peers must share
 * the p2p channels, one per minimum part. */
static uint32_t
p2p_part_channels(const CollTopoInfo *info, uint64_t bytes)
{
    uint64_t step = p2p_step_bytes(info);
    uint32_t p2p_total, most;
    coll_tune_p2p_channels(info, &p2p_total, &most);
    uint32_t least = most;
    while ((uint64_t)least * info->n_ranks > p2p_total && least > 1)
        least /= 2;
    if (bytes == 0)
        return 1;
    bool multi = info->n_nodes > 1;
    uint64_t min_part = multi ? step / 2 : step / 8, max_part = multi ? step : step * 32;
    uint32_t n = (uint32_t)MIN((uint64_t)least, (bytes + min_part - 1) / min_part);
    uint64_t part = MAX(min_part, (bytes + n - 1) / n);
    while (part > max_part && n <= most / 2) {
        n *= 2;
        part = (bytes + n - 1) / n;
    }
    return n;
}

/* NCCL_P2P_LL_THRESHOLD: LL while a peer's bytes fit 16 KiB per channel. */
static bool
p2p_ll(const CollTopoInfo *info, uint64_t bytes)
{
    return bytes <= (uint64_t)p2p_part_channels(info, bytes) * P2P_LL_THRESHOLD_BYTES;
}

/* NCCL has no model for p2p; this one uses its constants. Latency: one
 * ring step, base + per-step latency of Ring with the protocol (a send is
 * one hop of a ring; NET when any byte leaves the node). Bandwidth: a
 * rank's NVLinks for alltoall's local share (all peers at once, traffic
 * through an intermediate GPU not charged), the neighbour pair's path for
 * sendrecv, the rank's NICs for the remote share; LL carries half its
 * line. The slower share sets the time. */
static double
p2p_time_us(const CollTopoInfo *info, CollOp op, CollAlgo algo, CollProto proto, uint64_t n_bytes)
{
    int p = nccl_proto(proto);
    if (algo != COLL_ALGO_DIRECT || (p != NP_LL && p != NP_SIMPLE))
        return -1.0;
    if (info->n_ranks <= 1)
        return p == NP_SIMPLE ? 0.0 : -1.0;
    if ((info->n_nodes > 1 && info->n_nics == 0) ||
        (p == NP_LL && !p2p_ll(info, peer_bytes(op, n_bytes, info->n_ranks))))
        return -1.0;
    double n = info->n_ranks, ppn = mean_ppn(info), intra, inter;
    if (op == COLL_OP_ALLTOALL) {
        intra = n_bytes * (ppn - 1) / n;
        inter = n_bytes * (n - ppn) / n;
    } else {
        intra = info->n_nodes == 1 ? (double)n_bytes : 0.0;
        inter = info->n_nodes > 1 ? (double)n_bytes : 0.0;
    }
    bool nvlink = info->path_gpu <= COLL_PATH_NVB && info->nvlink_bw > 0;
    double intra_bw =
        op == COLL_OP_ALLTOALL ? (nvlink ? info->nvlink_bw : info->pci_bw) : info->p2p_bw;
    double inter_bw = info->net_bw, share = p == NP_LL ? RING_LL_FACTOR : 1.0;
    if ((intra > 0 && intra_bw <= 0) || (inter > 0 && inter_bw <= 0))
        return -1.0;
    int hw = inter > 0 ? HW_NET : nvlink ? HW_NVLINK : HW_PCI;
    double t = 0.0;
    if (intra > 0)
        t = MAX(t, intra / (1000.0 * intra_bw * share));
    if (inter > 0)
        t = MAX(t, inter / (1000.0 * inter_bw * share));
    return base_latency_us[NA_RING][p] + hw_latency_us[hw][NA_RING][p] + t;
}

/* ---- Time and choice ----------------------------------------------------- */

double
coll_tune_time_us(const CollTopoInfo *info, CollOp op, CollAlgo algo, CollProto proto,
                  uint64_t n_bytes)
{
    g_return_val_if_fail(info != NULL && (unsigned)op < COLL_N_OPS, -1.0);
    if (op == COLL_OP_ALLTOALL || op == COLL_OP_SENDRECV)
        return p2p_time_us(info, op, algo, proto, n_bytes);
    int a = coll_tune_nccl_algo(algo), p = nccl_proto(proto);
    if (a < 0 || p < 0)
        return -1.0;
    if (info->n_ranks <= 1) /* updateCollCostTable: one rank costs nothing */
        return a == NA_RING && p == NP_SIMPLE ? 0.0 : -1.0;
    if (info->n_nodes > 1 && info->n_nics == 0)
        return -1.0;
    CollTuneGraph g;
    coll_tune_graph(info, algo, &g);
    if (!algo_runs(info, op, a, p) || (p == NP_LL128 && !ll128_runs(info, &g)))
        return -1.0;
    double bw = model_bw(info, op, a, p, &g);
    if (bw <= 0.0)
        return -1.0;
    double lat = model_latency_us(info, op, a, p, &g);
    /* ncclTopoGetAlgoTime (tuning.cc:630-654). */
    int log_size = log2i(n_bytes >> 6);
    if (a == NA_TREE && op == COLL_OP_ALL_REDUCE && log_size >= 0 && log_size < 23)
        bw *= tree_correction[p][log_size];
    if (a == NA_NVLS_TREE && op == COLL_OP_ALL_REDUCE && log_size >= 0 && log_size < 24 &&
        info->sm_version >= 100 && !info->cpu_arm)
        bw *= tree_correction[p][log_size];
    if (a == NA_RING && p == NP_SIMPLE && info->n_nodes > 1 && op == COLL_OP_ALL_REDUCE &&
        n_bytes / ((uint64_t)coll_tune_channels(info) * info->n_ranks) >= 64)
        lat *= info->sm_version < 80 ? RING_PLATEAU_PRE_AMPERE : RING_PLATEAU;
    return lat + (double)n_bytes / (1000.0 * bw);
}

bool
coll_tune_select(const CollTopoInfo *info, CollOp op, uint64_t n_bytes, CollAlgo *algo,
                 CollProto *proto)
{
    g_return_val_if_fail(info != NULL && algo != NULL && proto != NULL, false);
    static const CollProto protos[] = {COLL_PROTO_LL, COLL_PROTO_LL128, COLL_PROTO_SIMPLE};
    if (op == COLL_OP_ALLTOALL || op == COLL_OP_SENDRECV) {
        /* p2p takes LL below its threshold, else Simple; no model choice. */
        for (size_t i = 0; i < G_N_ELEMENTS(protos); i++) {
            if (*proto != COLL_PROTO_AUTO && *proto != protos[i])
                continue;
            if ((*algo == COLL_ALGO_AUTO || *algo == COLL_ALGO_DIRECT) &&
                coll_tune_time_us(info, op, COLL_ALGO_DIRECT, protos[i], n_bytes) >= 0.0) {
                *algo = COLL_ALGO_DIRECT;
                *proto = protos[i];
                return true;
            }
        }
        return false;
    }
    /* NCCL's index order, so that ties go as in topoGetAlgoInfo
     * (enqueue.cc:2028-2050): the first strictly fastest wins. */
    static const CollAlgo algos[] = {COLL_ALGO_TREE,
                                     COLL_ALGO_RING,
                                     COLL_ALGO_COLLNET_DIRECT,
                                     COLL_ALGO_COLLNET_CHAIN,
                                     COLL_ALGO_NVLS,
                                     COLL_ALGO_NVLS_TREE,
                                     COLL_ALGO_PAT};
    double best = -1.0;
    CollAlgo best_algo = COLL_ALGO_AUTO;
    CollProto best_proto = COLL_PROTO_AUTO;
    for (size_t i = 0; i < G_N_ELEMENTS(algos); i++) {
        if (*algo != COLL_ALGO_AUTO && *algo != algos[i])
            continue;
        for (size_t j = 0; j < G_N_ELEMENTS(protos); j++) {
            if (*proto != COLL_PROTO_AUTO && *proto != protos[j])
                continue;
            double t = coll_tune_time_us(info, op, algos[i], protos[j], n_bytes);
            if (t >= 0.0 && (best < 0.0 || t < best)) {
                best = t;
                best_algo = algos[i];
                best_proto = protos[j];
            }
        }
    }
    if (best < 0.0)
        return false;
    *algo = best_algo;
    *proto = best_proto;
    return true;
}

/* ---- The plan ----------------------------------------------------------- */

/* Channels (CTAs) for one call (enqueue.cc:2070-2117). */
static uint32_t
call_channels(const CollTopoInfo *info, NcclAlgo a, int p, uint64_t n_bytes)
{
    uint32_t comm_channels = coll_tune_channels(info);
    if (a == NA_NVLS || a == NA_NVLS_TREE) {
        uint32_t n = coll_tune_nvls_channels(info);
        return a == NA_NVLS && info->n_nodes > 1 ? MIN(n, comm_channels) : n;
    }
    /* maxThreads[PAT] is never set (tuning.cc:244-262), so PAT keeps all. */
    if (a == NA_PAT)
        return comm_channels;
    uint32_t nc = comm_channels;
    if (a == NA_COLLNET_DIRECT) {
        /* Down through 16, 8, 4, 2, 1 channels per head, the threshold
         * halved past each step (enqueue.cc:2073-2083). */
        CollTuneGraph direct;
        coll_tune_graph(info, COLL_ALGO_COLLNET_DIRECT, &direct);
        uint64_t threshold = COLLNET_THREAD_THRESHOLD, heads = MAX(direct.n_channels, 1);
        bool more = true;
        for (uint32_t sw = 16; sw >= 1 && more; sw /= 2)
            while ((more = n_bytes < nc * MAX_NTHREADS * heads * threshold) && nc > sw) {
                if (nc == sw + sw / 2)
                    threshold /= 2;
                nc--;
            }
        return nc;
    }
    if (a == NA_COLLNET_CHAIN) {
        while (nc >= 2 && n_bytes < (uint64_t)nc * MAX_NTHREADS * COLLNET_THREAD_THRESHOLD)
            nc--;
        return nc;
    }
    uint64_t nt = max_threads[p];
    if (a == NA_RING && p == NP_SIMPLE) {
        CollTuneGraph ring;
        coll_tune_graph(info, COLL_ALGO_RING, &ring);
        if (ring.bw_intra * ring.n_channels <= PCI_BW)
            nt = 256;
    }
    uint64_t threshold = thread_threshold[p] * (a == NA_RING && p == NP_LL ? info->n_ranks : 1);
    while (nc >= 2 && n_bytes < nc * nt * threshold)
        nc--;
    return nc;
}

/* The chunk (calcCollChunking, enqueue.cc:2182-2300), data bytes. */
static uint64_t
call_chunk(const CollTopoInfo *info, CollOp op, NcclAlgo a, int p, uint64_t n_bytes, uint32_t nc,
           uint32_t chunk_steps)
{
    uint64_t chunk = proto_buff_bytes(info, p) / NCCL_STEPS * chunk_steps;
    if (p == NP_LL)
        chunk /= 2;
    if (p == NP_LL128)
        chunk = chunk / 16 * 15; /* NCCL_LL128_LINEELEMS, NCCL_LL128_DATAELEMS */
    uint32_t nvls_nc, nvls_chunk, tree_max;
    nvls_params(info, &nvls_nc, &nvls_chunk, &tree_max);
    CollTuneGraph nvls;
    coll_tune_graph(info, COLL_ALGO_NVLS, &nvls);
    uint64_t ops = (uint64_t)nc * nvls.n_channels; /* channels x NVLS heads */
    if (a == NA_NVLS) {
        /* The 32 KiB multi-node cap needs multi-node NVLS (CollNet): not
         * modelled. */
        chunk = MIN(chunk, nvls_chunk);
        if (n_bytes < 64 * ops * chunk && chunk > 65536)
            chunk = 65536;
        if (n_bytes < 8 * ops * chunk && chunk > 32768)
            chunk = 32768;
        if (n_bytes < 2 * ops * chunk && chunk > 16384)
            chunk = 16384;
    } else if (a == NA_NVLS_TREE) {
        chunk = MIN(nvls_chunk, tree_max);
        if (n_bytes < 32 * ops * chunk && chunk > 262144)
            chunk = 262144;
        if (n_bytes < 16 * ops * chunk && chunk > 131072)
            chunk = 131072;
        if (n_bytes < 4 * ops * chunk && chunk > 65536)
            chunk = 65536;
        if (n_bytes < ops * chunk && chunk > 32768)
            chunk = 32768;
    } else if (a == NA_COLLNET_DIRECT) {
        /* depth 2: every rank talks to heads (connect.cc:238). */
        CollTuneGraph direct;
        coll_tune_graph(info, COLL_ALGO_COLLNET_DIRECT, &direct);
        uint64_t per = (uint64_t)nc * MAX(direct.n_channels, 1), depth = info->ppn > 1 ? 2 : 1;
        while (n_bytes / (per * chunk) < depth * 64 && chunk > 131072)
            chunk /= 2;
        while (n_bytes / (per * chunk) < depth * 8 && chunk > 65536)
            chunk /= 2;
        while (n_bytes / (per * chunk) < depth * 8 && chunk > 32768)
            chunk /= 2;
    } else if (a == NA_COLLNET_CHAIN) {
        /* depth: the chain's ranks (connect.cc:471-473). */
        uint64_t depth = info->ppn;
        chunk = MIN(COLLNET_CHAIN_MAX_CHUNK_BYTES, chunk);
        while (n_bytes / (nc * chunk) < depth * 64 && chunk > 131072)
            chunk /= 2;
        while (n_bytes / (nc * chunk) < depth * 8 && chunk > 65536)
            chunk /= 2;
        while (n_bytes / (nc * chunk) < depth && chunk > 32768)
            chunk /= 2;
    } else if (a == NA_TREE && p == NP_LL128) {
        double ppn = mean_ppn(info), steps = 1 + log2i(info->n_nodes) + 0.1 * ppn;
        while ((double)(n_bytes / (nc * chunk)) < steps * 64 / ppn && chunk > 131072)
            chunk /= 2;
        while ((double)(n_bytes / (nc * chunk)) < steps * 16 / ppn && chunk > 32768)
            chunk /= 2;
    } else if (a == NA_PAT && op == COLL_OP_ALL_GATHER) {
        while (chunk * nc * 32 > n_bytes && chunk > 65536)
            chunk /= 2;
    } else if (a == NA_PAT && op == COLL_OP_REDUCE_SCATTER) {
        while (chunk * nc * 16 > n_bytes && chunk > 65536)
            chunk /= 2;
    }
    return chunk / grain_bytes[p] * grain_bytes[p];
}

/* p2p: channels for one peer's bytes and the p2p chunk (enqueue.cc:930-950).
 * Multi-node, every peer is taken as remote. */
static void
p2p_plan(const CollTopoInfo *info, CollOp op, CollProto proto, uint64_t n_bytes, CollTunePlan *plan)
{
    uint64_t bytes = peer_bytes(op, n_bytes, MAX(info->n_ranks, 1));
    bool ll = proto == COLL_PROTO_LL;
    uint64_t chunk = ll ? LL_BUFF_BYTES / NCCL_STEPS : p2p_step_bytes(info);
    if (info->n_nodes > 1) {
        if (!ll && bytes < chunk)
            chunk /= 4;
        else if (bytes < 8 * chunk)
            chunk /= 2;
    }
    plan->n_channels = p2p_part_channels(info, bytes);
    plan->chunk_bytes = ll ? chunk / 2 : chunk;
    plan->slice_bytes = plan->chunk_bytes;
    plan->slices_in_flight = NCCL_STEPS;
}

void
coll_tune_plan(const CollTopoInfo *info, CollOp op, CollAlgo algo, CollProto proto,
               uint64_t n_bytes, CollTunePlan *plan)
{
    g_return_if_fail(info != NULL && plan != NULL);
    memset(plan, 0, sizeof *plan);
    if ((algo == COLL_ALGO_AUTO || proto == COLL_PROTO_AUTO) &&
        !coll_tune_select(info, op, n_bytes, &algo, &proto))
        return;
    if (algo == COLL_ALGO_DIRECT) {
        p2p_plan(info, op, proto, n_bytes, plan);
        return;
    }
    int a = coll_tune_nccl_algo(algo), p = nccl_proto(proto);
    g_return_if_fail(a >= 0 && p >= 0);
    /* chunkSteps/sliceSteps are the collective's only for Ring + Simple:
     * NCCL_STEPS/2 and /4 for all_reduce, all_gather, reduce_scatter,
     * 1 and 1 otherwise (collectives.h:19-34). */
    uint32_t chunk_steps = 1, slice_steps = 1;
    if (a == NA_RING && p == NP_SIMPLE &&
        (op == COLL_OP_ALL_REDUCE || op == COLL_OP_ALL_GATHER || op == COLL_OP_REDUCE_SCATTER)) {
        chunk_steps = NCCL_STEPS / 2;
        slice_steps = NCCL_STEPS / 4;
    }
    plan->n_channels = call_channels(info, (NcclAlgo)a, p, n_bytes);
    plan->chunk_bytes =
        call_chunk(info, op, (NcclAlgo)a, p, n_bytes, plan->n_channels, chunk_steps);
    plan->slice_bytes = plan->chunk_bytes * slice_steps / chunk_steps;
    plan->slices_in_flight = NCCL_STEPS / slice_steps;
}

double
coll_tune_channel_bw(const CollTopoInfo *info, CollOp op, CollAlgo algo, CollProto proto)
{
    int a = coll_tune_nccl_algo(algo), p = nccl_proto(proto);
    if (a < 0 || p < 0)
        return 0.0;
    CollTuneGraph g;
    coll_tune_graph(info, algo, &g);
    double bus = model_bus_bw(info, op, (NcclAlgo)a, p, &g);
    uint32_t nc = algo == COLL_ALGO_NVLS || algo == COLL_ALGO_NVLS_TREE
                      ? coll_tune_nvls_channels(info)
                      : coll_tune_channels(info);
    return nc > 0 ? bus / nc : 0.0;
}

double
coll_tune_step_latency_us(const CollTopoInfo *info, CollAlgo algo, CollProto proto)
{
    int a = coll_tune_nccl_algo(algo), p = nccl_proto(proto);
    if (algo == COLL_ALGO_DIRECT)
        a = NA_RING;
    if (a < 0 || p < 0)
        return 0.0;
    CollTuneGraph g;
    coll_tune_graph(info, algo == COLL_ALGO_DIRECT ? COLL_ALGO_RING : algo, &g);
    int hw = g.path_intra == COLL_PATH_NVL ? HW_NVLINK : HW_PCI;
    return hw_latency_us[hw][a][p];
}
