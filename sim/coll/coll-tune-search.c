/* SPDX-License-Identifier: Apache-2.0 */
/* NCCL's view of a system and its channel search, emulated (NCCL 2.30,
 * nccl_model.md §2): coll_tune_info parses an HwSystem as NCCL's topology
 * code would (per-link NVLink constants, PCIe and NIC parse rules), and
 * coll_tune_graph finds the channels and per-channel GB/s of the ring,
 * tree and NVLS graphs. On one node of direct NVLink pairs (DGX-1, any
 * subset) NCCL's own search runs, step by step (coll-rings.c). Elsewhere
 * the main simplification: the backtracking search over GPU orders
 * (search.cc) is replaced by a closed form per speed, the most channels
 * the links can carry at that speed (fit_*); the passes around it (speed
 * lists, start speed, the .49 rule, ties, duplication, raising the speed
 * in pass 2) follow ncclTopoCompute (search.cc:1074-1300). Each fit_*
 * function says what it leaves out. Units: NCCL's GB/s.
 */
#include "coll/coll-tune-search.h"

#include <math.h>
#include <string.h>

#define LOC_BW 5000.0             /* topo.h:17: a single GPU */
#define P2P_PER_CHANNEL_NET_BW 14 /* paths.cc:917 (NCCL_P2P_PER_CHANNEL_NET_BW) */
#define MAX_GRAPH_CHANNELS 32     /* ring graph maxChannels = MAXCHANNELS / 2, init.cc:1177 */
#define MAX_NVLS_ARITY 32         /* NCCL_MAX_NVLS_ARITY, device.h:192-213 */
#define DUP_MIN_BW 25.0           /* ncclTopoDupChannels, search.cc:1036-1049 */
#define DUP_SM90_MIN_BW 50.0
#define SPEED_RATIO 0.49    /* try a lower speed while it is above this share (search.cc:1245) */
#define FALLBACK_BW 0.1     /* "falling back to simple order" (search.cc:1290) */
#define SLACK 1e-6          /* NCCL rounds link budgets to 0.001 GB/s (SUB_ROUND) */
#define MAX_CHANNELS 64     /* MAXCHANNELS, device.h:91 */
#define P2P_PER_BATCH 8     /* NCCL_MAX_DEV_WORK_P2P_PER_BATCH, device.h:391 */
#define COLLNET_MIN_NODES 2 /* NCCL_COLLNET_NODE_THRESHOLD, init.cc:857, :1469-1474 */

/* ---- Per-link constants and parse rules --------------------------------- */

/* NCCL's GB/s of one NVLink by SM: topo.h:19-24, ncclTopoNVLinkBw :273-281. */
double
coll_tune_nvlink_link_bw(uint32_t sm)
{
    return sm >= 100  ? 40.1
           : sm >= 90 ? 20.6
           : sm == 86 ? 12.0
           : sm >= 80 ? 20.0
           : sm >= 70 ? 20.0
           : sm >= 60 ? 18.0
                      : 20.0;
}

/* A PCIe link as NCCL parses it: width x speed code / 80 GB/s, the code
 * 15, 30, 60, 120, 240, 480 for gen 1-6 (topo.cc:545-556, :650-658). */
double
coll_tune_pcie_bw(uint64_t generation, uint64_t lanes)
{
    uint64_t gen = CLAMP(generation, 1, 6);
    return (double)(lanes * (15u << (gen - 1))) / 80.0;
}

/* Speed lists (GB/s per channel), search.cc:1051-1067: intra-node lists
 * for single-node searches, inter-node lists as soon as there is a
 * network (for the intra-node part too). */
static const double speeds_intra[] = {40.0, 30.0, 20.0, 18.0, 15.0, 12.0, 10.0,
                                      9.0,  7.0,  6.0,  5.0,  4.0,  3.0};
static const double speeds_inter[] = {48.0, 30.0, 28.0, 24.0, 20.0, 18.0, 15.0, 12.0, 10.0, 9.0,
                                      7.0,  6.0,  5.0,  4.0,  3.0,  2.4,  1.2,  0.24, 0.12};
static const double speeds_sm90_intra[] = {60.0, 50.0, 40.0, 30.0, 24.0, 20.0,
                                           15.0, 12.0, 11.0, 6.0,  3.0};
static const double speeds_sm90_inter[] = {48.0, 45.0, 42.0, 40.0, 30.0, 24.0, 22.0, 20.0, 17.5,
                                           15.0, 12.0, 6.0,  3.0,  2.4,  1.2,  0.24, 0.12};
static const double speeds_sm100_intra[] = {90.0, 80.0, 70.0, 60.0, 50.0, 45.0,
                                            40.0, 30.0, 24.0, 20.0, 19.0, 18.0};
static const double speeds_sm100_inter[] = {96.0, 86.0, 80.0, 48.0, 45.1, 42.0, 40.0,
                                            30.0, 24.0, 22.0, 20.0, 17.5, 15.0, 12.0,
                                            6.0,  3.0,  2.4,  1.2,  0.24, 0.12};

/* ---- coll_tune_info ------------------------------------------------------ */

static uint32_t
pair_links(const CollNvlinks *links, uint32_t a, uint32_t b)
{
    return links->pair[a * links->n + b];
}

/* True when ranks 0..n-1 have a directed ring over direct NVLinks that
 * visits each once, extending order[0..depth). */
static bool
direct_ring_from(const CollNvlinks *links, uint32_t n, uint32_t *order, uint32_t depth,
                 uint32_t used)
{
    uint32_t last = order[depth - 1];
    if (depth == n)
        return pair_links(links, last, order[0]) > 0;
    for (uint32_t g = 1; g < n; g++) {
        if ((used & (1u << g)) != 0 || pair_links(links, last, g) == 0)
            continue;
        order[depth] = g;
        if (direct_ring_from(links, n, order, depth + 1, used | (1u << g)))
            return true;
    }
    return false;
}

/* Whether the NVLink pairs among ranks 0..n-1 connect them all. */
static bool
nvlink_connected(const CollNvlinks *links, uint32_t n)
{
    if (n > 31)
        return false;
    uint32_t reached = 1, grew = 1;
    while (grew != 0) {
        grew = 0;
        for (uint32_t a = 0; a < n; a++)
            for (uint32_t b = 0; b < n; b++)
                if ((reached & (1u << a)) && !(reached & (1u << b)) &&
                    pair_links(links, a, b) > 0) {
                    reached |= 1u << b;
                    grew = 1;
                }
    }
    return reached == (1u << n) - 1;
}

/* The PCIe path a ring of n ranks needs: one switch, one CPU, or both. */
static CollPath
pcie_path(const HwSystem *system, uint32_t n)
{
    if (system->gpus_per_pcie_switch >= n)
        return COLL_PATH_PIX;
    uint32_t n_cpus = MAX(1, system->n_hosts * system->n_cpus_per_host);
    return n <= system->n_gpus / n_cpus ? COLL_PATH_PHB : COLL_PATH_SYS;
}

/* The GB/s of NCCL's path between ranks a and b of a node of direct
 * pairs (paths.cc:96-99: its narrowest link): the direct links, the
 * narrower of an NVB path's two, a PCIe link, or through the CPUs. */
static double
pair_path_bw(const CollTopoInfo *info, const HwSystem *system, const CollNvlinks *links, uint32_t a,
             uint32_t b)
{
    const CollRings *rings = &info->rings;
    uint32_t l = pair_links(links, a, b);
    if (l > 0)
        return l * info->nvlink_link_bw;
    if (rings->n == 0)
        return info->nvlink_all_pairs ? info->nvlink_link_bw : info->pci_bw;
    uint32_t via = rings->via[a][b];
    if (via != COLL_RINGS_DIRECT)
        return MIN(pair_links(links, a, via), pair_links(links, via, b)) * info->nvlink_link_bw;
    if (rings->path[a][b] == COLL_PATH_SYS)
        return MIN(info->pci_bw, coll_rings_inter_cpu_bw(system));
    return info->pci_bw;
}

/* Direct-pair NVLink systems (DGX-1): NCCL's topology holds only the
 * communicator's GPUs, so only links among the node's ranks count. On one
 * node NCCL's ring and tree searches run on them (coll-rings.c); across
 * nodes the closed forms of fit_intra stand in for them. */
static void
info_nvlink_pairs(CollTopoInfo *info, const HwSystem *system, const CollNvlinks *links)
{
    uint32_t n = info->node_ranks, max_links = 0, min_links = UINT32_MAX, max_pair = 0;
    for (uint32_t a = 0; a < n; a++) {
        uint32_t sum = 0;
        for (uint32_t b = 0; b < n; b++) {
            uint32_t l = a == b ? 0 : pair_links(links, a, b);
            sum += l;
            max_pair = MAX(max_pair, l);
        }
        max_links = MAX(max_links, sum);
        min_links = MIN(min_links, sum);
    }
    info->nvlink_bw = max_links * info->nvlink_link_bw;
    info->nvlink_max_path_bw = max_pair * info->nvlink_link_bw;
    info->nvlink_ring_links = n > 1 ? min_links : 0;
    g_autofree uint32_t *gpu = g_new(uint32_t, MAX(n, 1));
    for (uint32_t r = 0; r < n; r++)
        gpu[r] = links->gpu != NULL ? links->gpu[r] : r;
    coll_rings_find(system, n, gpu, links->pair, info->n_nodes == 1, &info->rings);
    /* ncclTopoPathAllNVLink (paths.cc:1056-1062): every path NVL or NVB. */
    bool all_nvb = n <= 1 || info->rings.n > 0;
    for (uint32_t a = 0; a < info->rings.n; a++)
        for (uint32_t b = 0; b < info->rings.n; b++)
            all_nvb = all_nvb && info->rings.path[a][b] <= COLL_PATH_NVB;
    info->nvlink_all_pairs = info->rings.n > 0 ? all_nvb : nvlink_connected(links, n);
    /* Rings over direct links only (path NVL) if there is one; checked
     * exhaustively up to 16 ranks, beyond that taken as needing NVB. */
    uint32_t order[16] = {0};
    bool direct = n >= 2 && n <= 16 && direct_ring_from(links, n, order, 1, 1);
    info->path_gpu = n <= 1                   ? COLL_PATH_LOC
                     : info->rings.searched   ? info->rings.ring.path_intra
                     : direct                 ? COLL_PATH_NVL
                     : info->nvlink_all_pairs ? COLL_PATH_NVB
                                              : pcie_path(system, n);
    /* sendrecv's neighbour pairs: the slowest path of rank r to r + 1. */
    info->p2p_bw = 0;
    for (uint32_t r = 0; n > 1 && r < n; r++) {
        double bw = pair_path_bw(info, system, links, r, (r + 1) % n);
        info->p2p_bw = r == 0 ? bw : MIN(info->p2p_bw, bw);
    }
}

/* No NVLink among the node's ranks: PCIe (or the host) carries it all. */
static void
info_no_nvlink(CollTopoInfo *info, const HwSystem *system)
{
    uint32_t n = info->node_ranks;
    info->nvlink_all_pairs = n <= 1;
    info->path_gpu = n <= 1 ? COLL_PATH_LOC : pcie_path(system, n);
    info->p2p_bw = n > 1 ? info->pci_bw : 0.0;
}

static void
info_nvlink(CollTopoInfo *info, const HwSystem *system, const CollNvlinks *links)
{
    info->nvlink_link_bw = coll_tune_nvlink_link_bw(info->sm_version);
    uint32_t n = info->node_ranks;
    if (system->nvlink == NULL) {
        info_no_nvlink(info, system);
        return;
    }
    if (system->nvswitch == NULL) {
        info_nvlink_pairs(info, system, links);
        return;
    }
    /* Every channel crosses every rank: the rank with the fewest links
     * bounds them all. */
    uint32_t fewest = UINT32_MAX;
    for (uint32_t r = 0; r < n; r++)
        fewest = MIN(fewest, links->to_switch[r]);
    if (fewest == 0 && n > 1) {
        info_no_nvlink(info, system);
        return;
    }
    info->nvswitch = true;
    info->nvlink_bw = fewest * info->nvlink_link_bw;
    info->nvlink_max_path_bw = info->nvlink_bw;
    info->nvlink_ring_links = fewest;
    info->nvlink_all_pairs = true;
    info->path_gpu = n <= 1 ? COLL_PATH_LOC : COLL_PATH_NVL;
    info->p2p_bw = n > 1 ? info->nvlink_bw : 0.0;
}

/* NCCL NET devices per node and the NIC ports each joins. */
static uint32_t
net_devices(const HwSystem *system, uint32_t *ports_each)
{
    uint32_t ports = system->n_nics * MAX(1, system->n_nic_ports_per_nic);
    uint32_t n = system->n_net_devices > 0 ? system->n_net_devices : ports;
    *ports_each = MAX(ports / MAX(n, 1), 1);
    return n;
}

/* NICs: every NCCL NET device is of its ports' rate (Mbit/s / 8000,
 * topo.cc:415-418; a plugin's device of several ports reports their sum).
 * A NIC shares the GPU's PCIe switch when there is one NIC per switch or
 * more (PIX), else it is reached through the CPU (PHB); Grace reaches its
 * NICs over C2C then PCIe (P2C). */
static void
info_net(CollTopoInfo *info, const HwSystem *system, uint32_t nics_down)
{
    info->path_net = COLL_PATH_SYS;
    if (system->nic == NULL || system->n_nics == 0)
        return;
    uint32_t ports_each;
    uint32_t n_nets = net_devices(system, &ports_each);
    n_nets = MAX(1, n_nets * (system->n_nics - MIN(nics_down, system->n_nics)) / system->n_nics);
    uint32_t nics_each = MAX(ports_each / MAX(1, system->n_nic_ports_per_nic), 1);
    info->nic_bw = (double)system->nic->port_link->bytes_per_s / 1e9 * ports_each;
    info->net_latency_us = (double)system->net_latency_ps / 1e6;
    info->net_bw = info->nic_bw * n_nets / system->n_gpus;
    info->n_nics = MAX(1, (n_nets * info->node_ranks + system->n_gpus - 1) / system->n_gpus);
    uint32_t n_switches =
        system->gpus_per_pcie_switch == 0
            ? 0
            : (system->n_gpus + system->gpus_per_pcie_switch - 1) / system->gpus_per_pcie_switch;
    info->path_net = info->cpu_arm                                    ? COLL_PATH_P2C
                     : n_switches > 0 && system->n_nics >= n_switches ? COLL_PATH_PIX
                                                                      : COLL_PATH_PHB;
    info->net_path_bw =
        MIN(info->nic_bw,
            nics_each * coll_tune_pcie_bw(system->nic->pcie_generation, system->nic->pcie_lanes));
    if (!info->cpu_arm)
        info->net_path_bw = MIN(info->net_path_bw, info->pci_bw);
    if (info->path_net == COLL_PATH_PHB && system->pcie != NULL)
        info->net_path_bw = MIN(info->net_path_bw,
                                coll_tune_pcie_bw(system->pcie->generation, system->pcie->n_lanes));
}

/* p2pnChannelsPerPeer of rank 0 (paths.cc:919-975): NVLink peers 2 x
 * links, PCIe peers 2, network peers max(local NICs, netBw / 14), the
 * fewest over its peers, rounded up to a power of two. */
static void
info_p2p_channels(CollTopoInfo *info, const HwSystem *system, const CollNvlinks *links)
{
    uint32_t n = UINT32_MAX;
    if (info->node_ranks > 1 && !info->nvswitch && info->rings.n > 0) {
        /* Per peer by its path (paths.cc:927-936): NVL and NVB by its GB/s
         * in links, PCIe 2. */
        for (uint32_t b = 1; b < info->node_ranks; b++)
            n = MIN(n, info->rings.path[0][b] <= COLL_PATH_NVB
                           ? 2 * MAX(1, (uint32_t)(pair_path_bw(info, system, links, 0, b) /
                                                       info->nvlink_link_bw +
                                                   SLACK))
                           : 2);
    } else if (info->node_ranks > 1 && info->path_gpu <= COLL_PATH_NVB) {
        if (info->nvswitch) {
            n = 2 * MAX(1, (uint32_t)(info->nvlink_bw / info->nvlink_link_bw + SLACK));
        } else {
            for (uint32_t b = 1; b < info->node_ranks; b++)
                n = MIN(n, 2 * MAX(1, pair_links(links, 0, b)));
        }
    } else if (info->node_ranks > 1) {
        n = 2;
    }
    if (info->n_nodes > 1 && info->n_nics > 0) {
        uint32_t ports_each;
        uint32_t n_nets = net_devices(system, &ports_each);
        uint32_t local = n_nets >= system->n_gpus ? n_nets / system->n_gpus : 1;
        uint32_t bw = (uint32_t)(local * info->nic_bw);
        n = MIN(n, MAX(local, (bw + P2P_PER_CHANNEL_NET_BW - 1) / P2P_PER_CHANNEL_NET_BW));
    } else if (info->n_nodes > 1) {
        n = MIN(n, 2);
    }
    uint32_t p = 1;
    while (n != UINT32_MAX && p < n)
        p <<= 1;
    info->p2p_channels = p;
}

void
coll_tune_info(const HwSystem *system, uint32_t n_ranks, uint32_t n_nodes, CollTopoInfo *info)
{
    g_return_if_fail(system != NULL && system->gpu != NULL && info != NULL);
    g_return_if_fail(n_nodes >= 1 && n_ranks >= n_nodes && n_ranks % n_nodes == 0);
    g_return_if_fail(n_ranks / n_nodes <= system->n_gpus);
    /* The model's wiring among GPUs 0 .. ppn - 1 of a node. */
    uint32_t n = n_ranks / n_nodes, links = 0;
    for (uint32_t s = 0; system->nvswitch != NULL && s < system->n_switches_per_board; s++)
        links += system->gpu_switch_links[s];
    g_autofree uint32_t *pair = g_new0(uint32_t, (size_t)n * n);
    g_autofree uint32_t *to_switch = g_new(uint32_t, n);
    for (uint32_t a = 0; a < n; a++) {
        to_switch[a] = links;
        for (uint32_t b = 0; b < n; b++)
            pair[a * n + b] = a == b ? 0 : hw_system_pair_links(system, a, b);
    }
    CollNvlinks nvlinks = {.n = n, .pair = pair, .to_switch = to_switch};
    coll_tune_info_links(system, n_ranks, n_nodes, n, &nvlinks, info);
}

void
coll_tune_info_links(const HwSystem *system, uint32_t n_ranks, uint32_t n_nodes,
                     uint32_t max_node_ranks, const CollNvlinks *links, CollTopoInfo *info)
{
    g_return_if_fail(system != NULL && system->gpu != NULL && info != NULL && links != NULL);
    g_return_if_fail(n_nodes >= 1 && links->n >= 1 && links->n <= max_node_ranks);
    g_return_if_fail(max_node_ranks <= system->n_gpus);
    g_return_if_fail((uint64_t)links->n * n_nodes <= n_ranks &&
                     n_ranks <= (uint64_t)max_node_ranks * n_nodes);
    memset(info, 0, sizeof *info);
    info->n_ranks = n_ranks;
    info->n_nodes = n_nodes;
    info->ppn = n_ranks / n_nodes;
    info->node_ranks = links->n;
    info->max_node_ranks = max_node_ranks;
    uint32_t sm = (uint32_t)system->gpu->sm_version;
    info->sm_version = sm;
    info->env = system->nccl;
    info->arch_index = sm >= 100 ? 3 : sm >= 90 ? 2 : sm >= 80 ? 1 : 0;
    info->scale_index = n_nodes <= 2 ? n_nodes - 1 : 2;
    /* No CPU vendor in the system model: a system file that names AMD
     * EPYC still gets Intel's constants (see the header). Grace is the
     * only host reached over C2C. */
    info->cpu_amd = false;
    info->cpu_arm = system->gpu_host_link != NULL && system->gpu_host_link->kind == HW_LINK_C2C;
    const HwLink *host = system->gpu_host_link;
    info->pci_bw = host != NULL && host->kind == HW_LINK_PCIE
                       ? coll_tune_pcie_bw(host->generation, host->n_lanes)
                       : coll_tune_pcie_bw(system->gpu->pcie_generation, 16);
    info_nvlink(info, system, links);
    /* NVLS's multicast objects span the switch chips every GPU of the
     * node reaches: ranks on several boards joined by trunks share none;
     * joined by a spine tier, they share its chips. */
    uint32_t per_board = system->n_board_gpus;
    bool one_board = true;
    for (uint32_t a = 1; a < links->n && per_board > 0 && system->n_spine_links == 0; a++)
        one_board = one_board && (links->gpu != NULL ? links->gpu[a] : a) / per_board ==
                                     (links->gpu != NULL ? links->gpu[0] : 0) / per_board;
    /* NCCL_NVLS_ENABLE=0 leaves nvlsSupport 0 (nvls.cc, ncclNvlsInit). */
    info->nvls = info->nvswitch && system->nvswitch->nvls && sm >= 90 && info->node_ranks >= 2 &&
                 one_board && !system->nccl.nvls_off;
    info_net(info, system, links->nics_down);
    info_p2p_channels(info, system, links);
    /* collNetSupport (the plugin, coll_net.h:87) with NCCL_COLLNET_ENABLE,
     * on 2 nodes or more. */
    info->collnet = system->collnet && hw_system_sharp(system) && n_nodes >= COLLNET_MIN_NODES &&
                    info->n_nics > 0;
}

/* ---- The search ---------------------------------------------------------- */

typedef struct Search {
    const CollTopoInfo *info;
    NcclAlgo pattern; /* NA_RING, NA_TREE or NA_NVLS */
    const double *speeds;
    uint32_t n_speeds;
    uint32_t min_channels, max_channels;
    double max_bw;         /* system->maxBw: the fastest path a channel can take */
    double total_bw;       /* system->totalBw: a GPU's NVLink (or PCIe) GB/s */
    double start_total_bw; /* totalBw for the start speed (x n/(n-1) off rings) */
} Search;

/* Ring and tree channels of s GB/s the links between a node's GPUs carry.
 * NVSwitch: a GPU sends each channel once over its NVLinks (multi-node:
 * all but the GPU that leaves to the network, spread evenly). Direct
 * pairs across nodes (one node runs coll-rings.c's search instead): a
 * channel takes one NVLink per hop (faster rings over doubled
 * links, such as DGX-1V's 40 GB/s pairs, are not searched: on the shipped
 * systems the single-link rings carry more in total), and there are as
 * many link-disjoint rings as the fewest links a rank has (the bound the
 * DGX-1 hybrid cube mesh reaches; NVB rings through a GPU are counted
 * like direct ones). PCIe: one link per GPU, without Intel's 6/5 P2P
 * overhead or shared uplinks. */
static uint32_t
fit_intra(const CollTopoInfo *info, double s)
{
    if (info->node_ranks <= 1)
        return UINT32_MAX;
    if (info->path_gpu > COLL_PATH_NVB)
        return s > info->pci_bw + SLACK ? 0 : (uint32_t)floor((info->pci_bw + SLACK) / s);
    if (!info->nvswitch) {
        if (s > info->nvlink_link_bw + SLACK)
            return 0;
        return info->nvlink_ring_links * (uint32_t)floor((info->nvlink_link_bw + SLACK) / s);
    }
    if (s > info->nvlink_bw + SLACK)
        return 0;
    double per_gpu = info->nvlink_bw;
    if (info->n_nodes > 1)
        per_gpu *= (double)info->node_ranks / (info->node_ranks - 1);
    return (uint32_t)floor((per_gpu + SLACK) / s);
}

/* Channels of s GB/s the network carries: every channel enters through
 * one NIC and leaves through one (search.cc:745-800), each NIC port takes
 * floor(port / s) of them, each GPU's PCIe link as many. Rail and
 * cross-NIC rules are not modelled. */
static uint32_t
fit_inter(const CollTopoInfo *info, double s)
{
    if (info->n_nics == 0 || s > info->net_path_bw + SLACK || s > info->nic_bw + SLACK)
        return 0;
    uint32_t n = info->n_nics * (uint32_t)floor((info->nic_bw + SLACK) / s);
    if (!info->cpu_arm)
        n = MIN(n, info->node_ranks * (uint32_t)floor((info->pci_bw + SLACK) / s));
    return n;
}

/* NVLS channels: each has its own head GPU, which carries it twice, and
 * every GPU carries every channel (search.cc:271-304), so k channels of
 * s GB/s need (k + 1) s of a GPU's NVLinks. Multi-node, each channel's
 * head needs its own NIC of bw_inter (search.cc:760-780). */
static uint32_t
fit_nvls(const Search *se, double intra, double inter)
{
    const CollTopoInfo *info = se->info;
    if (intra > info->nvlink_bw + SLACK)
        return 0;
    uint32_t k = (uint32_t)floor((info->nvlink_bw + SLACK) / intra);
    k = k > 0 ? k - 1 : 0;
    if (info->n_nodes > 1) {
        if (inter > info->net_path_bw + SLACK || inter > info->nic_bw + SLACK)
            return 0;
        k = MIN(k, MIN(info->node_ranks, info->n_nics));
    }
    return k;
}

/* CollNet Direct channels: one per head, a GPU with its own NIC (no head
 * twice, search.cc:754-770). A head's channel takes intra/(ppn - 1) from
 * every other GPU to the head and back (ncclTopoSearchTryCollnetDirect,
 * search.cc:373-410), so a head GPU carries its own channel (intra) and
 * 1/(ppn - 1) of every other head's; its NIC carries inter. */
static uint32_t
fit_collnet_direct(const Search *se, double intra, double inter)
{
    const CollTopoInfo *info = se->info;
    if (inter > info->net_path_bw + SLACK || inter > info->nic_bw + SLACK)
        return 0;
    uint32_t k = MIN(info->n_nics, info->node_ranks);
    if (info->node_ranks > 1) {
        if (intra > info->nvlink_bw + SLACK)
            return 0;
        double others = (info->nvlink_bw + SLACK) / intra - 1.0; /* other heads' shares */
        k = MIN(k, 1 + (uint32_t)floor(others * (info->node_ranks - 1)));
    }
    return k;
}

static void
try_speed(const Search *se, double intra, double inter, CollTuneGraph *g)
{
    uint32_t n;
    if (se->pattern == NA_NVLS) {
        n = fit_nvls(se, intra, inter);
    } else if (se->pattern == NA_COLLNET_DIRECT) {
        n = fit_collnet_direct(se, intra, inter);
    } else {
        n = fit_intra(se->info, intra);
        if (se->info->n_nodes > 1)
            n = MIN(n, fit_inter(se->info, inter));
    }
    memset(g, 0, sizeof *g);
    g->n_channels = MIN(n, se->max_channels);
    g->bw_intra = intra;
    g->bw_inter = inter;
}

/* ncclTopoCompareGraphs (search.cc:306-329). */
static bool
better(const Search *se, const CollTuneGraph *g, const CollTuneGraph *ref)
{
    if (g->n_channels == 0 || g->n_channels < se->min_channels)
        return false;
    if (se->pattern == NA_NVLS)
        return (g->n_channels > ref->n_channels && g->n_channels <= se->info->node_ranks) ||
               g->n_channels * g->bw_inter > ref->n_channels * ref->bw_inter;
    return g->n_channels * g->bw_intra > ref->n_channels * ref->bw_intra;
}

/* Pass 1: from the fastest speed no path exceeds, down the list while the
 * next speed is above .49 of the best found, keeping the most GB/s; done
 * at the channel limit or once a GPU's bandwidth is covered. */
static void
pass_one(const Search *se, CollTuneGraph *best)
{
    uint32_t i = 0;
    while (i < se->n_speeds - 1 &&
           (se->speeds[i] > se->max_bw || se->speeds[i] * se->min_channels > se->start_total_bw))
        i++;
    for (;;) {
        CollTuneGraph g;
        try_speed(se, se->speeds[i], se->speeds[i], &g);
        if (better(se, &g, best))
            *best = g;
        if (best->n_channels == se->max_channels ||
            best->n_channels * best->bw_inter >= se->total_bw)
            return;
        if (i + 1 < se->n_speeds &&
            (best->n_channels == 0 || se->speeds[i + 1] / best->bw_inter > SPEED_RATIO)) {
            i++;
            continue;
        }
        return;
    }
}

/* ncclTopoDupChannels (search.cc:1036-1049): twice the channels at half
 * the speed, except for NVLS, slow channels, and many mid-speed channels
 * after Ampere. */
static void
dup_channels(const Search *se, CollTuneGraph *g)
{
    if (g->n_channels == 0 || se->pattern == NA_NVLS || g->bw_intra < DUP_MIN_BW)
        return;
    if (se->info->sm_version > 80 && g->bw_intra < DUP_SM90_MIN_BW && g->n_channels > 4)
        return;
    uint32_t dup = MIN(2 * g->n_channels, se->max_channels);
    uint32_t div = (dup + g->n_channels - 1) / g->n_channels;
    g->bw_intra /= div;
    g->bw_inter /= div;
    g->n_channels = dup;
}

/* Pass 2 (search.cc:1262-1285) keeps the channels and tries faster
 * speeds: both for rings; bw_inter for NVLS (up to twice bw_intra);
 * bw_intra for trees (up to twice bw_inter), stopping at the first miss. */
static void
pass_two(Search *se, CollTuneGraph *best)
{
    uint32_t i = 0;
    while (i < se->n_speeds - 1 && se->speeds[i] > best->bw_inter)
        i++;
    se->min_channels = best->n_channels;
    double intra = se->speeds[i], inter = se->speeds[i];
    while (i > 0) {
        if (se->pattern == NA_RING) {
            intra = inter = se->speeds[--i];
        } else if (se->pattern == NA_NVLS) {
            if (inter != best->bw_inter || inter >= intra * 2)
                return;
            se->max_channels = best->n_channels;
            inter = se->speeds[--i];
        } else {
            if (intra != best->bw_intra || intra >= inter * 2)
                return;
            intra = se->speeds[--i];
        }
        CollTuneGraph g;
        try_speed(se, intra, inter, &g);
        if (better(se, &g, best))
            *best = g;
    }
}

static void
search_init(Search *se, const CollTopoInfo *info, NcclAlgo pattern)
{
    memset(se, 0, sizeof *se);
    se->info = info;
    se->pattern = pattern;
    bool multi = info->n_nodes > 1;
    if (info->sm_version >= 100) {
        se->speeds = multi ? speeds_sm100_inter : speeds_sm100_intra;
        se->n_speeds = multi ? G_N_ELEMENTS(speeds_sm100_inter) : G_N_ELEMENTS(speeds_sm100_intra);
    } else if (info->sm_version >= 90) {
        se->speeds = multi ? speeds_sm90_inter : speeds_sm90_intra;
        se->n_speeds = multi ? G_N_ELEMENTS(speeds_sm90_inter) : G_N_ELEMENTS(speeds_sm90_intra);
    } else {
        se->speeds = multi ? speeds_inter : speeds_intra;
        se->n_speeds = multi ? G_N_ELEMENTS(speeds_inter) : G_N_ELEMENTS(speeds_intra);
    }
    /* ncclTopoSearchInit (search.cc:18-54). */
    se->total_bw = MAX(info->pci_bw, info->nvlink_bw);
    if (multi)
        se->max_bw = info->net_path_bw;
    else if (info->node_ranks <= 1)
        se->max_bw = se->total_bw = LOC_BW;
    else if (info->path_gpu <= COLL_PATH_NVB)
        se->max_bw = info->nvlink_max_path_bw;
    else
        se->max_bw = info->pci_bw;
    se->start_total_bw = se->total_bw;
    if (pattern != NA_RING && info->node_ranks > 1)
        se->start_total_bw *= (double)info->node_ranks / (info->node_ranks - 1);
    se->min_channels = 1;
    se->max_channels = MAX_GRAPH_CHANNELS;
}

static void
run_search(Search *se, CollTuneGraph *out)
{
    CollTuneGraph best = {0};
    pass_one(se, &best);
    if (best.n_channels > 0) {
        dup_channels(se, &best);
        pass_two(se, &best);
    } else if (se->pattern != NA_NVLS) {
        best.n_channels = 1;
        best.bw_intra = best.bw_inter = FALLBACK_BW;
    }
    *out = best;
}

/* The ring and tree graphs; NCCL then gives both the fewer channels
 * (init.cc:1455). The tree searches for exactly the ring's channels. */
static void
ring_tree_graphs(const CollTopoInfo *info, CollTuneGraph *ring, CollTuneGraph *tree)
{
    if (info->rings.searched) {
        /* One node of direct pairs: what NCCL's own search found. */
        const CollRingsGraph *from[2] = {&info->rings.ring, &info->rings.tree};
        CollTuneGraph *to[2] = {ring, tree};
        for (int i = 0; i < 2; i++)
            *to[i] = (CollTuneGraph){.n_channels = from[i]->n_channels,
                                     .bw_intra = from[i]->bw_intra,
                                     .bw_inter = from[i]->bw_intra,
                                     .path_intra = from[i]->path_intra,
                                     .path_inter = COLL_PATH_PIX,
                                     .same_channels = from[i]->same_channels};
        return;
    }
    Search se;
    search_init(&se, info, NA_RING);
    run_search(&se, ring);
    search_init(&se, info, NA_TREE);
    se.min_channels = se.max_channels = ring->n_channels;
    run_search(&se, tree);
    ring->n_channels = tree->n_channels = MIN(ring->n_channels, tree->n_channels);
    /* Paths: the ring's, or SYS for the fallback order. Rings differ per
     * channel only where direct pairs need several disjoint rings. */
    bool fallback = ring->bw_intra == FALLBACK_BW;
    CollPath intra = info->node_ranks <= 1 ? COLL_PATH_LOC
                     : fallback            ? COLL_PATH_SYS
                                           : info->path_gpu;
    CollPath inter = info->n_nodes > 1 ? info->path_net : COLL_PATH_PIX;
    bool same = info->nvswitch || info->nvlink_ring_links <= 1 || info->path_gpu > COLL_PATH_NVB;
    ring->path_intra = tree->path_intra = intra;
    ring->path_inter = tree->path_inter = inter;
    ring->same_channels = tree->same_channels = same;
}

/* The NVLS graph: one channel per head GPU, min(32, ppn) of them on one
 * node (all required), up to that many across nodes. */
static void
nvls_graph(const CollTopoInfo *info, CollTuneGraph *g)
{
    memset(g, 0, sizeof *g);
    if (!info->nvls)
        return;
    Search se;
    search_init(&se, info, NA_NVLS);
    se.max_channels = MIN(MAX_NVLS_ARITY, info->node_ranks);
    se.min_channels = info->n_nodes == 1 ? se.max_channels : 1;
    run_search(&se, g);
    g->path_intra = COLL_PATH_NVL;
    g->path_inter = info->n_nodes > 1 ? info->path_net : COLL_PATH_PIX;
    g->same_channels = false;
}

/* The CollNet Direct graph (pattern COLLNET_DIRECT, init.cc:1196-1201):
 * NVSwitch systems only (tuning.cc:508-509), multi-node. No fallback when
 * nothing fits (search.cc:1289). */
static void
collnet_direct_graph(const CollTopoInfo *info, CollTuneGraph *g)
{
    memset(g, 0, sizeof *g);
    if (!info->collnet || !info->nvswitch)
        return;
    Search se;
    search_init(&se, info, NA_COLLNET_DIRECT);
    se.max_channels = MIN(COLL_COLLNET_MAX_PPN, info->node_ranks);
    CollTuneGraph best = {0};
    pass_one(&se, &best);
    if (best.n_channels > 0) {
        dup_channels(&se, &best);
        pass_two(&se, &best);
    }
    *g = best;
    g->path_intra = info->node_ranks <= 1 ? COLL_PATH_LOC : info->path_gpu;
    g->path_inter = info->path_net;
}

void
coll_tune_graph(const CollTopoInfo *info, CollAlgo algo, CollTuneGraph *graph)
{
    g_return_if_fail(info != NULL && graph != NULL);
    memset(graph, 0, sizeof *graph);
    CollTuneGraph ring, tree;
    switch (algo) {
    case COLL_ALGO_RING:
    case COLL_ALGO_TREE:
    case COLL_ALGO_PAT:
        ring_tree_graphs(info, &ring, &tree);
        *graph = algo == COLL_ALGO_RING ? ring : tree;
        return;
    case COLL_ALGO_NVLS:
    case COLL_ALGO_NVLS_TREE:
        nvls_graph(info, graph);
        return;
    case COLL_ALGO_COLLNET_CHAIN:
        /* The tree search again, with the ring's channels; without a
         * path it finds none (no fallback for CollNet, search.cc:1289),
         * and NCCL turns CollNet off (init.cc:1452). */
        if (!info->collnet)
            return;
        ring_tree_graphs(info, &ring, &tree);
        if (tree.bw_intra != FALLBACK_BW)
            *graph = tree;
        return;
    case COLL_ALGO_COLLNET_DIRECT:
        collnet_direct_graph(info, graph);
        return;
    case COLL_ALGO_DIRECT: {
        uint32_t n_total;
        coll_tune_p2p_channels(info, &n_total, &graph->n_channels);
        graph->bw_intra = info->path_gpu <= COLL_PATH_NVB ? info->nvlink_bw : info->pci_bw;
        graph->bw_inter = info->net_bw;
        graph->path_intra = info->path_gpu;
        graph->path_inter = info->n_nodes > 1 ? info->path_net : COLL_PATH_PIX;
        return;
    }
    case COLL_ALGO_AUTO:
    case COLL_N_ALGOS:
        return;
    }
}

void
coll_tune_p2p_channels(const CollTopoInfo *info, uint32_t *n_total, uint32_t *n_per_peer)
{
    uint32_t total = 1, per_peer = MAX(info->p2p_channels, 1);
    while (total < MIN(coll_tune_channels(info), MAX_CHANNELS))
        total <<= 1;
    if (info->n_nodes > 1) {
        uint32_t batches = (info->n_ranks + P2P_PER_BATCH - 1) / P2P_PER_BATCH;
        while (per_peer * batches > total && per_peer > 1)
            per_peer /= 2;
    } else {
        per_peer = MIN(per_peer, total);
    }
    *n_total = total;
    *n_per_peer = per_peer;
}
