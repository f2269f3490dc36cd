/* SPDX-License-Identifier: Apache-2.0 */
/* NCCL's topology search on one node of direct NVLink pairs (DGX-1),
 * followed line by line from NCCL 2.30 (NVIDIA/nccl 5067397c): a topology
 * of the communicator's GPUs only (topo.cc:1800, :836-842); paths NVL, NVB
 * through one GPU of it, else PCIe/CPU (SYS across the QPI; P2P beyond
 * PXB via the destination's CPU) (paths.cc:38-135, :356, :769); the search
 * (search.cc:81-880, ncclTopoCompute :1074) with its orders, replays,
 * per-link budgets each way, step budgets and passes. Simplifications: one
 * node (no NET), no NVSwitch, Intel CPUs, GPUs in local index order (PCI
 * bus order), ties among NVB relays by GPU index. Units: NCCL's GB/s, as
 * floats as NCCL keeps them.
 */
#include "coll/coll-rings.h"

#include <math.h>
#include <string.h>

#include "coll/coll-tune-search.h"

#define MAX_G COLL_RINGS_MAX_GPUS
#define MAX_CH COLL_RINGS_MAX_CHANNELS
#define MAX_CPUS 8
#define MAX_LINKS (MAX_G * MAX_G + 4 * MAX_G + MAX_CPUS * MAX_CPUS)
#define MAX_PATH_LINKS 6
#define NO_GPU UINT8_MAX
#define LOC_HOPS 2 /* a GPU path starts and ends with GPU-DEV, LOC_BW (5000 GB/s) */

/* search.cc:332-335 */
#define GLOBAL_TIMEOUT (1 << 19)
#define SEARCH_TIMEOUT (1 << 14)
#define SEARCH_TIMEOUT_TREE (1 << 14)
#define SEARCH_TIMEOUT_SAME_CHANNELS (1 << 8)
/* search.cc:1036-1049 (ncclTopoDupChannels) */
#define DUP_MIN_BW 25.0f
#define DUP_SM90_MIN_BW 50.0f
#define SPEED_RATIO 0.49f /* search.cc:1245 */
#define FALLBACK_BW 0.1f  /* search.cc:1295 */
#define CROSS_NIC 2       /* NCCL_CROSS_NIC's default (search.cc:16) */

/* graph.h's NCCL_TOPO_PATTERN_* */
typedef enum { PAT_BALANCED_TREE = 1, PAT_SPLIT_TREE = 2, PAT_TREE = 3, PAT_RING = 4 } Pattern;
typedef enum { ORDER_FREE, ORDER_PCI, ORDER_REPLAY } Order; /* search.cc:337-338 */

/* A path between two GPUs as NCCL stores it (struct ncclTopoLinkList). */
typedef struct Path {
    CollPath type;
    uint8_t count; /* NCCL's path->count: links, GPU-DEV ones included */
    uint8_t via;   /* NVB: the GPU (topology index) it crosses */
    uint8_t n_links;
    uint16_t link[MAX_PATH_LINKS]; /* the budgets it draws on, LOC ones left out */
    float bw;
} Path;

/* The node as NCCL's topology holds it; GPUs by topology index. */
typedef struct Topo {
    uint32_t n, sm;
    uint8_t rank[MAX_G]; /* topology index -> rank */
    uint32_t n_links;
    float link_bw[MAX_LINKS];
    bool link_pci[MAX_LINKS]; /* LINK_PCI: charged 6/5 on an Intel PHB path */
    Path path[MAX_G][MAX_G];
    float max_bw, total_bw; /* system->maxBw, system->totalBw (search.cc:39-55) */
    CollPath min_type, max_type;
    bool split_nvlink;
    uint32_t n_nets; /* NET devices: NCCL keeps them for a one-node search */
} Topo;

/* struct ncclTopoGraph, intra-node part. */
typedef struct Graph {
    Pattern pattern;
    uint32_t n_channels, min_channels, max_channels;
    float bw_intra, bw_inter;
    CollPath type_intra;
    bool same_channels;
    int cross_nic;
    int n_hops;
    uint8_t intra[MAX_CH][MAX_G];
} Graph;

typedef struct Search {
    const Topo *t;
    float bw[MAX_LINKS]; /* what each link has left */
    uint64_t used[MAX_G];
    Graph *save;
} Search;

/* ---- The topology ---------------------------------------------------- */

double
coll_rings_inter_cpu_bw(const HwSystem *system)
{
    if (system == NULL || system->cpu_link == NULL)
        return 0.0;
    /* topo.h:27-30: BDW_QPI_BW 6, SKL_QPI_BW 10, SRP_QPI_BW 22, ERP_QPI_BW
     * 40; a model NCCL does not know is taken as Broadwell. The lane rate
     * names the generation: QPI 9.6 GT/s (Broadwell), UPI 10.4 (Skylake,
     * Cascade Lake), 16 (Sapphire Rapids), 20 (Emerald Rapids). */
    double gts = (double)system->cpu_link->lane_bytes_per_s * 8 / 1e9;
    return gts >= 20.0 - 1e-6 ? 40.0 : gts >= 16.0 - 1e-6 ? 22.0 : gts >= 10.4 - 1e-6 ? 10.0 : 6.0;
}

static uint16_t
add_link(Topo *t, float bw, bool pci)
{
    g_assert(t->n_links < MAX_LINKS);
    t->link_bw[t->n_links] = bw;
    t->link_pci[t->n_links] = pci;
    return (uint16_t)t->n_links++;
}

/* The CPU a node's GPU g hangs from, as topo-build lays hosts out. */
static uint32_t
gpu_cpu(const HwSystem *system, uint32_t g)
{
    if (system->gpus_per_pcie_switch > 0)
        g = g / system->gpus_per_pcie_switch * system->gpus_per_pcie_switch;
    uint32_t hosts = MAX(system->n_hosts, 1), per_host = MAX(system->n_gpus / hosts, 1);
    uint32_t cpus = MAX(system->n_cpus_per_host, 1);
    return MIN((g / per_host) * cpus + (g % per_host) * cpus / per_host, MAX_CPUS - 1);
}

typedef struct Host {
    uint16_t up[MAX_G], down[MAX_G];       /* GPU to its PCIe switch or CPU, and back */
    uint16_t sw_up[MAX_G], sw_down[MAX_G]; /* the switch to its CPU, and back */
    uint16_t cpu[MAX_CPUS][MAX_CPUS];      /* LINK_SYS, one per direction */
    uint32_t sw[MAX_G], cpu_of[MAX_G];     /* switch (UINT32_MAX: none) and CPU of each GPU */
} Host;

static void
host_links(Topo *t, Host *h, const HwSystem *system, const uint32_t *local)
{
    double gpu_pci =
        system->gpu_host_link != NULL && system->gpu_host_link->kind == HW_LINK_PCIE
            ? coll_tune_pcie_bw(system->gpu_host_link->generation, system->gpu_host_link->n_lanes)
            : coll_tune_pcie_bw(system->gpu->pcie_generation, 16);
    double sw_pci = system->pcie != NULL
                        ? coll_tune_pcie_bw(system->pcie->generation, system->pcie->n_lanes)
                        : gpu_pci;
    float qpi = (float)coll_rings_inter_cpu_bw(system);
    uint32_t n_cpus = MIN(MAX(system->n_hosts, 1) * MAX(system->n_cpus_per_host, 1), MAX_CPUS);
    memset(h->cpu, 0xff, sizeof h->cpu);
    uint32_t per_host = MAX(system->n_cpus_per_host, 1);
    /* ncclTopoConnectCpus (topo.cc:270-282): every two CPUs of a host. */
    for (uint32_t c = 0; c < n_cpus; c++)
        for (uint32_t d = 0; d < n_cpus; d++)
            if (c != d && c / per_host == d / per_host && qpi > 0)
                h->cpu[c][d] = add_link(t, qpi, false);
    for (uint32_t i = 0; i < t->n; i++) {
        h->up[i] = add_link(t, (float)gpu_pci, true);
        h->down[i] = add_link(t, (float)gpu_pci, true);
        h->cpu_of[i] = gpu_cpu(system, local[i]);
        h->sw[i] =
            system->gpus_per_pcie_switch > 0 ? local[i] / system->gpus_per_pcie_switch : UINT32_MAX;
        /* One uplink per switch, however many of its GPUs the node has. */
        uint32_t first = i;
        for (uint32_t j = 0; j < i; j++)
            if (h->sw[i] != UINT32_MAX && h->sw[j] == h->sw[i] && first == i)
                first = j;
        h->sw_up[i] = first != i ? h->sw_up[first] : add_link(t, (float)sw_pci, true);
        h->sw_down[i] = first != i ? h->sw_down[first] : add_link(t, (float)sw_pci, true);
    }
}

/* The PCIe path from i to j (paths.cc:96-112 by path type; beyond PXB,
 * P2P is off and the path goes through j's CPU, paths.cc:356, :763-771:
 * the same links on these hosts). */
static void
pcie_path(const Topo *t, const Host *h, uint32_t i, uint32_t j, Path *p)
{
    p->n_links = 0;
    p->link[p->n_links++] = h->up[i];
    if (h->sw[i] != UINT32_MAX && h->sw[i] == h->sw[j]) {
        p->type = COLL_PATH_PIX;
    } else {
        if (h->sw[i] != UINT32_MAX)
            p->link[p->n_links++] = h->sw_up[i];
        p->type = COLL_PATH_PHB;
        if (h->cpu_of[i] != h->cpu_of[j] && h->cpu[h->cpu_of[i]][h->cpu_of[j]] != UINT16_MAX) {
            p->link[p->n_links++] = h->cpu[h->cpu_of[i]][h->cpu_of[j]];
            p->type = COLL_PATH_SYS;
        }
        if (h->sw[j] != UINT32_MAX)
            p->link[p->n_links++] = h->sw_down[j];
    }
    p->link[p->n_links++] = h->down[j];
    p->count = (uint8_t)(p->n_links + LOC_HOPS);
    p->bw = t->link_bw[p->link[0]];
    for (uint32_t k = 1; k < p->n_links; k++)
        p->bw = MIN(p->bw, t->link_bw[p->link[k]]);
}

/* NVL where i and j are joined; else NVB through the GPU k joining both
 * with the most GB/s (the breadth-first search from j keeps the first best
 * one, j's links in GB/s order, paths.cc:96-99; ties by index); else PCIe. */
static void
gpu_path(const Topo *t, const Host *h, uint16_t nvl[MAX_G][MAX_G], uint32_t i, uint32_t j, Path *p)
{
    memset(p, 0, sizeof *p);
    p->via = NO_GPU;
    if (nvl[i][j] != UINT16_MAX) {
        *p = (Path){.type = COLL_PATH_NVL, .count = 1 + LOC_HOPS, .via = NO_GPU, .n_links = 1};
        p->link[0] = nvl[i][j];
        p->bw = t->link_bw[nvl[i][j]];
        return;
    }
    float best = 0, best_kj = 0;
    for (uint32_t k = 0; k < t->n; k++) {
        if (nvl[i][k] == UINT16_MAX || nvl[k][j] == UINT16_MAX)
            continue;
        float kj = t->link_bw[nvl[k][j]], bw = MIN(t->link_bw[nvl[i][k]], kj);
        if (bw > best || (bw == best && kj > best_kj)) {
            best = bw;
            best_kj = kj;
            p->via = (uint8_t)k;
        }
    }
    if (p->via != NO_GPU) {
        p->type = COLL_PATH_NVB;
        p->count = 2 + LOC_HOPS;
        p->n_links = 2;
        p->link[0] = nvl[i][p->via];
        p->link[1] = nvl[p->via][j];
        p->bw = best;
        return;
    }
    pcie_path(t, h, i, j, p);
}

/* ncclTopoSplitNvLink (paths.cc:1076-1107): two NVLink domains of more
 * than one GPU each, as its one-pass labelling counts them. */
static bool
split_nvlink(const Topo *t)
{
    uint32_t domain[MAX_G], count[MAX_G] = {0}, n_domains = 0;
    for (uint32_t g = 0; g < t->n; g++)
        domain[g] = g;
    for (uint32_t g = 0; g < t->n; g++)
        for (uint32_t p = g + 1; p < t->n; p++)
            if (t->path[g][p].type == COLL_PATH_NVL)
                domain[p] = domain[g];
    for (uint32_t g = 0; g < t->n; g++)
        count[domain[g]]++;
    for (uint32_t g = 0; g < t->n; g++)
        n_domains += count[g] > 1;
    return n_domains == 2;
}

static void
topo_init(Topo *t, const HwSystem *system, uint32_t n, const uint32_t *gpu, const uint32_t *pair)
{
    memset(t, 0, sizeof *t);
    t->n = n;
    t->sm = (uint32_t)system->gpu->sm_version;
    /* Topology order: the GPUs by PCI bus id, taken as local index order. */
    uint32_t local[MAX_G];
    for (uint32_t r = 0; r < n; r++) {
        uint32_t at = 0;
        for (uint32_t q = 0; q < n; q++)
            at += gpu[q] < gpu[r];
        t->rank[at] = (uint8_t)r;
        local[at] = gpu[r];
    }
    /* topo.cc:827-842: count x ncclTopoNVLinkBw each way. */
    float nvlink_bw = (float)coll_tune_nvlink_link_bw(t->sm);
    uint16_t nvl[MAX_G][MAX_G];
    for (uint32_t i = 0; i < n; i++)
        for (uint32_t j = 0; j < n; j++) {
            uint32_t links = i == j ? 0 : pair[t->rank[i] * n + t->rank[j]];
            nvl[i][j] = links > 0 ? add_link(t, (float)links * nvlink_bw, false) : UINT16_MAX;
        }
    Host h;
    host_links(t, &h, system, local);
    t->min_type = COLL_PATH_SYS;
    t->max_type = COLL_PATH_LOC;
    for (uint32_t i = 0; i < n; i++) {
        /* getTotalBw (search.cc:30-38): a GPU's NVLinks or its PCIe link. */
        float nvl_sum = 0;
        for (uint32_t j = 0; j < n; j++) {
            nvl_sum += nvl[i][j] != UINT16_MAX ? t->link_bw[nvl[i][j]] : 0;
            if (i == j)
                continue;
            gpu_path(t, &h, nvl, i, j, &t->path[i][j]);
            t->max_bw = MAX(t->max_bw, t->path[i][j].bw);
            t->min_type = MIN(t->min_type, t->path[i][j].type);
            t->max_type = MAX(t->max_type, t->path[i][j].type);
        }
        t->total_bw = MAX(t->total_bw, MAX(nvl_sum, t->link_bw[h.up[i]]));
    }
    t->split_nvlink = split_nvlink(t);
    t->n_nets = system->nic != NULL ? system->n_nics * MAX(1, system->n_nic_ports_per_nic) : 0;
}

/* ---- Following a path (search.cc:81-169) ------------------------------- */

/* SUB_ROUND (search.cc:79): budgets kept to 0.001 GB/s. */
static void
sub_round(float *a, float b)
{
    *a = roundf((*a - b) * 1000) / 1000;
}

/* ncclTopoFollowPath from GPU a to GPU b: mult 1 takes the graph's
 * bwIntra from every link of the path (6/5 of it from PCIe links on a PHB
 * path through an Intel CPU), or fails and gives back what it took; mult
 * -1 gives it back. */
static bool
follow(Search *s, Graph *g, uint32_t a, uint32_t b, int mult)
{
    const Path *p = &s->t->path[a][b];
    if (mult == 1 && p->type > g->type_intra)
        return false;
    if (mult == 1 && g->pattern != PAT_RING && s->t->path[b][a].type > g->type_intra)
        return false;
    float bw = g->bw_intra * (float)mult;
    float pci_bw = p->type == COLL_PATH_PHB ? bw * 6 / 5 : bw; /* INTEL_P2P_OVERHEAD, topo.h:39 */
    uint32_t step = 0;
    for (; step < p->n_links; step++) {
        uint16_t l = p->link[step];
        float fw = s->t->link_pci[l] ? pci_bw : bw;
        if (s->bw[l] < fw)
            break;
        sub_round(&s->bw[l], fw);
    }
    if (step < p->n_links) {
        while (step-- > 0) {
            uint16_t l = p->link[step];
            sub_round(&s->bw[l], -(s->t->link_pci[l] ? pci_bw : bw));
        }
        return false;
    }
    g->n_hops += mult * p->count;
    return true;
}

/* ---- The recursion (search.cc:253-880) -------------------------------- */

static void search_rec(Search *s, Graph *g, int *time);
static void rec_gpu(Search *s, Graph *g, uint32_t gpu, uint32_t step, int back_to_first,
                    Order order, int *time);

/* ncclTopoCompareGraphs (search.cc:445-466). */
static bool
better(const Graph *g, const Graph *ref)
{
    if (g->n_channels < g->min_channels)
        return false;
    float bw = (float)g->n_channels * g->bw_intra, ref_bw = (float)ref->n_channels * ref->bw_intra;
    if (bw != ref_bw)
        return bw > ref_bw;
    return g->pattern == ref->pattern && g->cross_nic == ref->cross_nic && g->n_hops < ref->n_hops;
}

/* ncclTopoSearchNextGpuSort without NVSwitch or NET (search.cc:253-289):
 * unused GPUs by path GB/s (as int), then fewer hops, then index order
 * after gpu. */
static uint32_t
next_gpus(const Search *s, const Graph *g, uint32_t gpu, uint32_t *next)
{
    uint32_t n = s->t->n, count = 0;
    uint64_t flag = UINT64_C(1) << g->n_channels;
    for (uint32_t i = 1; i < n; i++) {
        uint32_t x = (gpu + i) % n;
        if ((s->used[x] & flag) == 0)
            next[count++] = x;
    }
    for (uint32_t i = 1; i < count; i++) /* insertion sort: stable, start index last */
        for (uint32_t k = i; k > 0; k--) {
            const Path *a = &s->t->path[gpu][next[k - 1]], *b = &s->t->path[gpu][next[k]];
            if ((int)b->bw < (int)a->bw || ((int)b->bw == (int)a->bw && b->count >= a->count))
                break;
            uint32_t tmp = next[k];
            next[k] = next[k - 1];
            next[k - 1] = tmp;
        }
    return count;
}

/* ncclTopoSearchTryGpu (search.cc:358-371); from < 0: the first GPU. */
static void
try_gpu(Search *s, Graph *g, uint32_t step, int back_to_first, Order order, int *time, int from,
        uint32_t to)
{
    if (from >= 0 && !follow(s, g, (uint32_t)from, to, 1))
        return;
    uint64_t flag = UINT64_C(1) << g->n_channels;
    s->used[to] ^= flag;
    rec_gpu(s, g, to, step, back_to_first, order, time);
    s->used[to] ^= flag;
    if (from >= 0)
        follow(s, g, (uint32_t)from, to, -1);
}

/* ncclTopoSearchRecGpu without NET (search.cc:621-720). */
static void
rec_gpu(Search *s, Graph *g, uint32_t gpu, uint32_t step, int back_to_first, Order order, int *time)
{
    if (*time <= 0)
        return;
    (*time)--;
    uint32_t n = s->t->n;
    if (step == n) {
        g->n_channels++;
        if (better(g, s->save)) {
            *s->save = *g;
            if (g->n_channels == g->max_channels)
                *time = -1;
        }
        if (g->n_channels < g->max_channels)
            search_rec(s, g, time);
        g->n_channels--;
        return;
    }
    g->intra[g->n_channels][step] = (uint8_t)gpu;
    if (step < n - 1) {
        uint32_t next[MAX_G], count = 1;
        if (order == ORDER_PCI)
            next[0] = step + 1;
        else if (order == ORDER_REPLAY)
            next[0] = g->intra[g->n_channels - 1][step + 1];
        else
            count = next_gpus(s, g, gpu, next);
        for (uint32_t i = 0; i < count; i++)
            try_gpu(s, g, step + 1, back_to_first, order, time, (int)gpu, next[i]);
    } else if ((int)step == back_to_first) {
        uint32_t first = g->intra[g->n_channels][0];
        if (follow(s, g, gpu, first, 1)) {
            rec_gpu(s, g, first, step + 1, -1, order, time);
            follow(s, g, gpu, first, -1);
        }
    } else {
        rec_gpu(s, g, gpu, n, -1, order, time);
    }
}

/* ncclTopoSearchRec, intra-node (search.cc:849-880): the PCI order for
 * the first channel, else a replay of the last; then every start GPU
 * unless the channels must be the same. */
static void
search_rec(Search *s, Graph *g, int *time)
{
    int back_to_first = g->pattern == PAT_RING ? (int)s->t->n - 1 : -1;
    if (g->n_channels == 0)
        try_gpu(s, g, 0, back_to_first, ORDER_PCI, time, -1, 0);
    else
        try_gpu(s, g, 0, back_to_first, ORDER_REPLAY, time, -1, g->intra[g->n_channels - 1][0]);
    if (!g->same_channels || g->n_channels == 0)
        for (uint32_t gpu = 0; gpu < s->t->n; gpu++)
            try_gpu(s, g, 0, back_to_first, ORDER_FREE, time, -1, gpu);
}

/* One search of tmp's speed and rules, keeping the best in save. */
static int
run_once(Search *s, Graph *tmp, Graph *save, int64_t *global)
{
    int time = tmp->same_channels         ? SEARCH_TIMEOUT_SAME_CHANNELS
               : tmp->pattern == PAT_TREE ? SEARCH_TIMEOUT_TREE
                                          : SEARCH_TIMEOUT;
    tmp->n_channels = 0;
    *global -= time;
    memcpy(s->bw, s->t->link_bw, sizeof(float) * s->t->n_links);
    memset(s->used, 0, sizeof s->used);
    s->save = save;
    search_rec(s, tmp, &time);
    return time;
}

/* ---- ncclTopoCompute (search.cc:1074-1320), one node ------------------ */

/* search.cc:1051-1067: the intra-node speed lists. */
static const float speeds_intra[] = {40, 30, 20, 18, 15, 12, 10, 9, 7, 6, 5, 4, 3};
static const float speeds_sm90[] = {60, 50, 40, 30, 24, 20, 15, 12, 11, 6, 3};
static const float speeds_sm100[] = {90, 80, 70, 60, 50, 45, 40, 30, 24, 20, 19, 18};

typedef struct Speeds {
    const float *v;
    uint32_t n;
} Speeds;

static Speeds
speeds_for(uint32_t sm)
{
    if (sm >= 100)
        return (Speeds){speeds_sm100, G_N_ELEMENTS(speeds_sm100)};
    if (sm >= 90)
        return (Speeds){speeds_sm90, G_N_ELEMENTS(speeds_sm90)};
    return (Speeds){speeds_intra, G_N_ELEMENTS(speeds_intra)};
}

/* ncclTopoDupChannels (search.cc:1036-1049). */
static void
dup_channels(Graph *g, uint32_t sm)
{
    if (g->n_channels == 0 || g->bw_intra < DUP_MIN_BW)
        return;
    if (sm > 80 && g->bw_intra < DUP_SM90_MIN_BW && g->n_channels > 4)
        return;
    uint32_t dup = MIN(g->n_channels * 2, g->max_channels);
    memcpy(g->intra[g->n_channels], g->intra[0], (size_t)(dup - g->n_channels) * MAX_G);
    uint32_t div = (dup + g->n_channels - 1) / g->n_channels;
    g->bw_intra /= (float)div;
    g->bw_inter /= (float)div;
    g->n_channels = dup;
}

/* Pass 1's next try after a search that did not settle it
 * (search.cc:1201-1259); false when pass 1 is over. */
static bool
pass_one_next(const Topo *t, Graph *tmp, const Graph *graph, int time, int64_t *global, Speeds sp,
              uint32_t *idx)
{
    if (tmp->same_channels) { /* the AMD exception does not arise: Intel CPUs */
        tmp->same_channels = false;
        return true;
    }
    tmp->same_channels = true;
    *global = time != -1 ? *global + time : GLOBAL_TIMEOUT;
    if (*global < 0 && graph->n_channels > 0)
        return false;
    if (t->sm >= 90 && tmp->pattern == PAT_BALANCED_TREE) {
        tmp->pattern = PAT_TREE;
        return true;
    }
    tmp->pattern = graph->pattern;
    if (tmp->type_intra < t->max_type &&
        (graph->n_channels == 0 || tmp->type_intra < graph->type_intra)) {
        tmp->type_intra++;
        return true;
    }
    tmp->type_intra = t->min_type;
    /* crossNic is NCCL_CROSS_NIC (2) with NET devices, rings and trees
     * (search.cc:1080-1085): one more search, alike on one node. */
    if (t->n_nets > 1 && graph->pattern != PAT_TREE && tmp->cross_nic == 0) {
        tmp->cross_nic = CROSS_NIC;
        return true;
    }
    tmp->cross_nic = 0;
    if (*idx < sp.n - 1 &&
        (graph->n_channels == 0 || sp.v[*idx + 1] / graph->bw_inter > SPEED_RATIO)) {
        tmp->bw_intra = tmp->bw_inter = sp.v[++*idx];
        return true;
    }
    return false;
}

/* ncclTopoCompute's start (search.cc:1086-1175): an empty graph at the
 * nearest path type (2 channels at least for two NVLink islands); returns
 * the first speed: the fastest no path exceeds whose minimum channels a
 * GPU's total carries (n/(n-1) of it for trees). */
static uint32_t
compute_start(const Topo *t, Graph *graph, Speeds sp)
{
    graph->bw_intra = graph->bw_inter = 0;
    graph->type_intra = t->min_type;
    graph->n_channels = 0;
    graph->same_channels = true;
    graph->cross_nic = 0;
    graph->n_hops = 0;
    if (graph->pattern == PAT_RING && t->split_nvlink && graph->max_channels >= 2 &&
        graph->min_channels == 1)
        graph->min_channels = 2; /* search.cc:1140-1147 */
    float total_bw = t->total_bw;
    if (graph->pattern != PAT_RING)
        total_bw *= (float)t->n / (float)(t->n - 1); /* search.cc:1168 */
    uint32_t idx = 0;
    while ((sp.v[idx] > t->max_bw || sp.v[idx] * (float)graph->min_channels > total_bw) &&
           idx < sp.n - 1)
        idx++;
    return idx;
}

static void
compute(Search *s, Graph *graph)
{
    const Topo *t = s->t;
    Speeds sp = speeds_for(t->sm);
    uint32_t idx = compute_start(t, graph, sp);
    Graph tmp = *graph;
    tmp.bw_intra = tmp.bw_inter = sp.v[idx];
    int64_t global = GLOBAL_TIMEOUT;
    bool pass_two = false;
    for (;;) {
        int time = run_once(s, &tmp, graph, &global);
        bool done = time == -1 || (float)graph->n_channels * graph->bw_inter >= t->total_bw;
        if (!pass_two) {
            if (!done && pass_one_next(t, &tmp, graph, time, &global, sp, &idx))
                continue;
            /* Pass 2 from the best (search.cc:1261-1267). */
            time = -1;
            dup_channels(graph, t->sm);
            tmp = *graph;
            for (idx = 0; sp.v[idx] > graph->bw_inter && idx < sp.n - 1;)
                idx++;
            tmp.bw_intra = tmp.bw_inter = sp.v[idx];
            tmp.min_channels = graph->n_channels;
            pass_two = true;
        }
        /* Faster channels (search.cc:1268-1286): both speeds for rings,
         * bwIntra for trees while the last try succeeded. */
        if (time != 0 && idx > 0) {
            if (graph->pattern == PAT_RING) {
                tmp.bw_intra = tmp.bw_inter = sp.v[--idx];
                continue;
            }
            if (tmp.bw_intra == graph->bw_intra && tmp.bw_intra < tmp.bw_inter * 2) {
                tmp.bw_intra = sp.v[--idx];
                continue;
            }
        }
        break;
    }
    if (graph->n_channels == 0) { /* search.cc:1288-1310: the simple order */
        for (uint32_t i = 0; i < t->n; i++)
            graph->intra[0][i] = (uint8_t)i;
        graph->bw_intra = graph->bw_inter = FALLBACK_BW;
        graph->type_intra = COLL_PATH_SYS;
        graph->n_channels = 1;
    }
}

/* ---- The entry point ------------------------------------------------- */

static void
export_graph(const Topo *t, const Graph *g, CollRingsGraph *out)
{
    memset(out, 0, sizeof *out);
    out->n_channels = g->n_channels;
    out->bw_intra = g->bw_intra;
    out->path_intra = g->type_intra;
    out->same_channels = g->same_channels;
    for (uint32_t c = 0; c < g->n_channels; c++)
        for (uint32_t i = 0; i < t->n; i++)
            out->order[c][i] = t->rank[g->intra[c][i]];
}

static void
search_graph(Search *s, Pattern pattern, uint32_t min_channels, uint32_t max_channels,
             CollRingsGraph *out)
{
    Graph *g = g_new0(Graph, 1);
    g->pattern = pattern;
    g->min_channels = min_channels;
    g->max_channels = max_channels;
    compute(s, g);
    export_graph(s->t, g, out);
    g_free(g);
}

void
coll_rings_find(const HwSystem *system, uint32_t n, const uint32_t *gpu, const uint32_t *pair,
                bool search, CollRings *rings)
{
    g_return_if_fail(system != NULL && system->gpu != NULL && rings != NULL);
    memset(rings, 0, sizeof *rings);
    if (n > MAX_G || n == 0)
        return;
    g_return_if_fail(gpu != NULL && pair != NULL);
    Search *s = g_new0(Search, 1);
    Topo *t = g_new0(Topo, 1);
    topo_init(t, system, n, gpu, pair);
    s->t = t;
    rings->n = n;
    memset(rings->via, COLL_RINGS_DIRECT, sizeof rings->via);
    for (uint32_t i = 0; i < n; i++)
        for (uint32_t j = 0; j < n; j++) {
            uint32_t a = t->rank[i], b = t->rank[j];
            const Path *p = &t->path[i][j];
            rings->path[a][b] = (uint8_t)(i == j ? COLL_PATH_LOC : p->type);
            if (i != j && p->via != NO_GPU)
                rings->via[a][b] = t->rank[p->via];
        }
    if (search && n > 1) {
        /* init.cc:1174-1186, :1459: the ring, then the tree with exactly
         * the ring's channels; both keep the fewer. */
        search_graph(s, PAT_RING, 1, MAX_CH, &rings->ring);
        search_graph(s, PAT_BALANCED_TREE, rings->ring.n_channels, rings->ring.n_channels,
                     &rings->tree);
        uint32_t nch = MIN(rings->ring.n_channels, rings->tree.n_channels);
        rings->ring.n_channels = rings->tree.n_channels = nch;
        rings->searched = true;
    }
    g_free(t);
    g_free(s);
}
