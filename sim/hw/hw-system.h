/* SPDX-License-Identifier: Apache-2.0 */
/* A system model: how parts are wired into one NVLink domain (a DGX/HGX
 * box, or a GB200 NVL72 rack), and how such domains ("nodes") join a
 * scale-out fabric. Loaded from models/system/NAME.ini; the parts it names
 * are loaded from models/{gpu,link,switch,nic,runtime}/. Description only.
 *
 * The file, one key table per group (unknown groups and keys are errors;
 * ids are file stems of the models folders):
 *   [system]  name; gpu (id); gpus (per node)
 *   [nvlink]  link (NVLink id, of the GPU's generation); pairs of direct
 *             links "0-1, 0-3x2" (A-B: one link, A-BxN: N); and for switch
 *             systems switch (NVSwitch id), switches (per board),
 *             gpu_switch_links "5,5,4,4" (from each GPU to each switch of
 *             its board), boards (1), trunk_links (switch s of a board to
 *             switch s of each other board; 0) or spine_links (switch s of
 *             each board up to plane s's spine: a two-tier NVSwitch
 *             domain; 0). Optional group.
 *   [host]    hosts (1), cpus (per host), gpu_link (pcie3..5 or c2c),
 *             pcie (PCIe id of switch uplinks and NICs),
 *             gpus_per_pcie_switch (0: GPUs on the CPU), cpu_link (optional),
 *             copy_overhead (optional, default 0), runtime (nccl)
 *   [network] nic (id), nics (per node), ports_per_nic (1), transport (id;
 *             the NIC's first), net_latency (the transport's), fabric_switch
 *             (optional), rail_optimized (yes), rail_only (no: yes makes
 *             each rail its own network), oversubscription (1: a leaf's
 *             down ports to each up port), tiers (2, or 3 with a super-spine),
 *             nodes (1), collnet (no: NCCL
 *             without its SHARP plugin; yes needs a SHARPv2+ fabric switch).
 *             Optional group.
 *   [nccl]    NCCL's environment as the system's software sets it
 *             (buffsize, p2p_net_chunksize, nvls_chunksize,
 *             nvlstree_max_chunksize: NCCL_BUFFSIZE ...); NCCL's defaults
 *             without. Optional group.
 *   [loopback] instead of [nvlink], [host] and [network]: virtual ranks on
 *             one GPU (hw-loopback.h); gpus is then the most ranks.
 * Defaults in parentheses. Each GPU's pair and switch links may not exceed
 * its NVLinks, and must use all of them when there is a switch.
 */
#pragma once

#include <glib.h>
#include <stdbool.h>
#include <stdint.h>

#include "hw/hw-gpu.h"
#include "hw/hw-link.h"
#include "hw/hw-loopback.h"
#include "hw/hw-nccl-env.h"
#include "hw/hw-nic.h"
#include "hw/hw-runtime.h"
#include "hw/hw-switch.h"
#include "hw/hw-transport.h"

/* n_links NVLinks joining GPUs a and b directly (a < b, node-local ids). */
typedef struct HwGpuPair {
    uint32_t a, b, n_links;
} HwGpuPair;

/* The model ids a system file names (file stems under models_dir), kept
 * for reports and listings; NULL where the file names none. */
typedef struct HwSystemIds {
    char *gpu;
    char *nvlink;
    char *nvswitch;
    char *gpu_host_link;
    char *pcie;
    char *cpu_link;
    char *nic;
    char *transport;
    char *fabric_switch;
} HwSystemIds;

/* What a system file describes: a product (its parts from datasheets and
 * measurements), a vendor's announcement (nothing measured yet), or a
 * what-if wiring nobody sells. */
typedef enum HwSystemStatus {
    HW_SYSTEM_PRODUCT,
    HW_SYSTEM_ANNOUNCED,
    HW_SYSTEM_WHAT_IF,
} HwSystemStatus;

typedef struct HwSystem {
    char *id;   /* file stem: "dgx-h100" */
    char *name; /* "NVIDIA DGX H100" */
    HwGpu *gpu;
    uint32_t n_gpus; /* per node (NVLink domain) */

    HwSystemStatus status; /* product, announced or what-if */
    /* NVLink: direct pairs and/or switch planes. */
    HwLink *nvlink;   /* NULL when the GPUs have no NVLink */
    HwGpuPair *pairs; /* direct GPU-GPU links */
    uint32_t n_pairs;
    HwSwitch *nvswitch;    /* NULL when no switch */
    uint32_t n_boards;     /* baseboards, each with its own switches */
    uint32_t n_board_gpus; /* GPUs a board (the last of a partition may hold fewer) */
    uint32_t n_switches_per_board;
    /* [n_switches_per_board]: links from each GPU to switch s of its board */
    uint32_t *gpu_switch_links;
    uint32_t n_trunk_links; /* links from switch s of one board to switch s of each other board */
    uint32_t n_spine_links; /* or links from switch s of each board up to plane s's spine tier
                               (chips enough for every board's links: hw_system_spine_chips) */

    /* Hosts: CPU complexes (1 for a DGX box, 18 compute trays for NVL72). */
    uint32_t n_hosts;
    uint32_t n_cpus_per_host;
    HwLink *gpu_host_link;         /* GPU to its PCIe switch or CPU: PCIe or C2C */
    HwLink *pcie;                  /* PCIe switch uplinks and NIC attach */
    uint32_t gpus_per_pcie_switch; /* 0: GPUs and NICs attach to the CPU directly */
    HwLink *cpu_link;              /* between the CPUs of one host; NULL with one CPU */
    uint64_t copy_overhead_ps;     /* one cudaMemcpyPeer's fixed cost: API, DMA setup, completion */
    HwRuntime *runtime;            /* what a collective call costs around its data */
    /* The shares of their rate the NVLink links and the NIC ports reach on
     * this system ([nvlink] efficiency, [network] nic_efficiency: a
     * cluster's own, fitted by nvlsim calibrate cluster); 1 for the
     * shipped models. */
    double nvlink_efficiency, nic_efficiency;

    /* Scale-out. */
    HwNic *nic;             /* NULL when the system has no compute NIC */
    HwTransport *transport; /* what NCCL's network plugin drives over it (with nic) */
    uint32_t n_nics;        /* per node */
    uint32_t n_nic_ports_per_nic;
    /* NCCL NET devices per node (its network plugin's view): one a port,
     * or fewer, each joining an equal share of the ports (aws-ofi-nccl's
     * NIC groups: a p5 GPU's four EFA adapters are one device) */
    uint32_t n_net_devices;
    /* The latency the plugin reports for a device (ncclNetProperties'
     * latency: 0 from NCCL's InfiniBand plugin, 75 us from aws-ofi-nccl
     * on p5), which NCCL's tuner adds to each step between nodes: its
     * choices, not the simulated wire */
    uint64_t net_latency_ps;
    HwSwitch *fabric_switch;   /* leaf and spine switch model */
    bool rail_optimized;       /* NIC k of every node on leaf group k */
    bool rail_only;            /* each rail its own network: no spine joins two rails */
    uint32_t oversubscription; /* a leaf's down ports to each up port (1: non-blocking) */
    uint32_t fabric_tiers;     /* 2: leaf and spine; 3: and a super-spine over pods */
    uint32_t n_nodes;          /* nodes on the fabric; 1 by default */
    bool collnet;              /* NCCL's CollNet (SHARP plugin, NCCL_COLLNET_ENABLE=1) is on; needs
                                  hw_system_sharp */
    HwNcclEnv nccl;

    /* Virtual ranks on one GPU (nvlsim-bench loopback); NULL for real
     * systems. Such a system has no NVLink, host or network parts. */
    HwLoopback *loopback;

    HwSystemIds ids;
} HwSystem;

/* Loads a system from path, resolving its parts under models_dir, and
 * checks that the wiring adds up (links per GPU against the GPU's link
 * count, switch ports against links, pairs in range). NULL and error
 * ("PATH: [group] key: what was wrong; expected ...") on failure. */
HwSystem *hw_system_load(const char *path, const char *models_dir, GError **error);
/* The same from the text of a system file (length bytes; (gsize)-1: up to
 * its NUL); path names it in messages and gives the system its id. */
HwSystem *hw_system_load_data(const char *data, gsize length, const char *path,
                              const char *models_dir, GError **error);

/* Loads system ID: FOLDER/system/ID.ini from the first folder of the
 * search path models_dir that has it, or, when id is a path (holds a '/'
 * or ends in .ini, hw_models_ref_is_path), that file. An unknown id is an
 * error that lists the known ones; a path to nothing is "PATH: no such
 * system file". */
HwSystem *hw_system_load_by_id(const char *id, const char *models_dir, GError **error);

/* A file with [system] base = ID derives from system ID (found in
 * models_dir): kf becomes ID's keys with kf's over them (base itself
 * dropped). False and an error naming path when ID cannot be read or
 * derives from another system itself (one level only); true and kf
 * untouched without base. (hw-system-base.c) */
bool hw_system_merge_base(GKeyFile *kf, const char *path, const char *models_dir, GError **error);

/* "announced, not measured" or "a what-if, not a product"; NULL for a
 * product. */
const char *hw_system_status_text(const HwSystem *system);

/* The NVSwitch chips of one domain: every board's, and a two-tier
 * domain's spine chips, enough ports for every board's links up. */
uint32_t hw_system_nvswitch_chips(const HwSystem *system);

/* Whether the system's fabric switch reduces in the network as NCCL's
 * CollNet needs (SHARP generation HW_SWITCH_COLLNET_SHARP or later). */
bool hw_system_sharp(const HwSystem *system);

/* NVLinks per direction joining local GPUs a and b directly (0 if none). */
uint32_t hw_system_pair_links(const HwSystem *system, uint32_t a, uint32_t b);

/* Narrows system to a partition of its NVLink domain: its first n_hosts
 * hosts (1 to system->n_hosts), their GPUs, NICs and direct pairs, the
 * boards they are on and all of those boards' switches (and the spine),
 * as a job on part of a rack sees it (the rest of the rack carries none
 * of its traffic). */
void hw_system_partition(HwSystem *system, uint32_t n_hosts);

void hw_system_free(HwSystem *system);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(HwSystem, hw_system_free)

/* The key tables of every hardware model file: gpu, link, switch, nic,
 * the system file's groups (its [loopback] included), runtime;
 * NULL-terminated. */
extern const HwKeyTable *const hw_model_key_tables[];
