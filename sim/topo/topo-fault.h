/* SPDX-License-Identifier: Apache-2.0 */
/* Faults of a system's NVLink fabric, for what-if studies. Description
 * only: read from a [faults] group (a scenario file, or nvlsim coll and
 * p2p --fault KEY=VALUE), checked against the system, and applied by
 * topo_build_system_faulted as the graph is built.
 *
 *   [faults]  planes_down     NVSwitch planes (switch s of every board) down:
 *                             "1" or "1,3"; no GPU reaches them, their
 *                             trunks between boards are gone
 *             links_down      bundles down: "G:P" (GPU G's links to plane P),
 *                             "A-B" (the direct links of GPUs A and B); with
 *                             "xN" only N of the bundle's links ("3:1x2")
 *             slow_links      bundles ("G:P", "A-B") that keep slow_rate of
 *                             their rate, both directions
 *             slow_rate       the share kept, above 0 and at most 1 (0.5: half)
 *             crc_links       bundles whose packets fail their CRC at
 *                             crc_error_rate and are replayed
 *             crc_error_rate  probability, from 0 to below 1, such as 1e-4
 *             nics_down       scale-out NICs down: "3" or "1,5" (NIC k of a
 *                             node); the GPUs it served reach the network
 *                             through the next NIC up
 *             slow_nics       NICs whose links to the fabric keep slow_rate
 *                             of their rate (a degraded cable or port)
 *
 * GPUs and planes are numbered within a node (GPU 0 .. gpus - 1, plane
 * 0 .. switches - 1) and a fault holds on every node: nodes stay alike, so
 * one routing table and one cost per call shape serve them all. With one
 * node that is exactly the fault named.
 */
#pragma once

#include <glib.h>
#include <stdbool.h>
#include <stdint.h>

#include "hw/hw-keys.h"
#include "hw/hw-system.h"

typedef enum TopoFaultKind {
    TOPO_FAULT_PLANE_DOWN,
    TOPO_FAULT_LINKS_DOWN,
    TOPO_FAULT_SLOW,
    TOPO_FAULT_CRC,
    TOPO_FAULT_NIC_DOWN,
    TOPO_FAULT_NIC_SLOW,
} TopoFaultKind;

/* One fault as written. A bundle is (gpu, plane) to a switch plane or
 * (gpu, peer) between GPUs (gpu < peer); the unused field is TOPO_FAULT_NONE. */
typedef struct TopoFault {
    TopoFaultKind kind;
    uint32_t gpu;     /* node-local; TOPO_FAULT_NONE for a plane or NIC down */
    uint32_t plane;   /* switch of the GPU's board; TOPO_FAULT_NONE for a direct pair */
    uint32_t peer;    /* the other GPU of a direct pair */
    uint32_t n_links; /* LINKS_DOWN: links lost; 0 for all of them */
    uint32_t nic;     /* NIC_DOWN, NIC_SLOW: the node's NIC; else TOPO_FAULT_NONE */
} TopoFault;

#define TOPO_FAULT_NONE UINT32_MAX

typedef struct TopoFaults {
    GArray *faults;        /* TopoFault, in the order written */
    double slow_rate;      /* share of the rate slow bundles keep; 1 when none */
    double crc_error_rate; /* of crc_links' packets */
} TopoFaults;

/* The [faults] key table, for listings and for key checks (--set). */
#define TOPO_N_FAULT_KEYS 8
extern const HwKey topo_fault_keys[TOPO_N_FAULT_KEYS];
/* The same as a table, for listings and tests. */
extern const HwKeyTable topo_fault_key_table;

TopoFaults *topo_faults_new(void);
void topo_faults_free(TopoFaults *faults);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(TopoFaults, topo_faults_free)

/* Adds the faults of kf's [faults] group (none when kf has no such group)
 * to faults. Errors "PATH: [faults] KEY: what was wrong; expected ..." for
 * unknown keys, malformed lists and values out of range (a rate of 0, above
 * 1 or NaN; an error rate of 1). */
bool topo_faults_load(TopoFaults *faults, GKeyFile *kf, const char *path, GError **error);

/* The same from "KEY=VALUE" items (NULL-terminated; NULL for none), as
 * --fault gives them; what names them in errors ("--fault"). */
TopoFaults *topo_faults_from_sets(char **sets, const char *what, GError **error);

/* Whether key is a [faults] key. */
bool topo_faults_key_known(const char *key);

/* No fault at all. */
bool topo_faults_empty(const TopoFaults *faults);

/* Whether some fault concerns particular GPUs' bundles (not whole planes):
 * GPUs of one node then differ. */
bool topo_faults_single_out_gpus(const TopoFaults *faults);

/* Checks every fault against system: GPUs and planes that exist, bundles
 * the system has, links lost no more than a bundle has. Errors
 * "[faults] KEY: 'ITEM' ...; expected ..." (the caller adds the file). */
bool topo_faults_check(const TopoFaults *faults, const HwSystem *system, GError **error);

/* Whether NVSwitch plane is down. */
bool topo_faults_plane_down(const TopoFaults *faults, uint32_t plane);
/* Whether the node's scale-out NIC nic is down. */
bool topo_faults_nic_down(const TopoFaults *faults, uint32_t nic);
/* The share of its rate the link of NIC nic to the fabric keeps (1: all). */
double topo_faults_nic_rate(const TopoFaults *faults, uint32_t nic);

/* What the faults leave of a bundle of n_links: between node-local GPU gpu
 * and NVSwitch plane (peer TOPO_FAULT_NONE) or GPU peer (plane
 * TOPO_FAULT_NONE). */
typedef struct TopoBundleFault {
    uint32_t n_links;         /* links left; 0 when the bundle is down */
    double rate_factor;       /* share of the rate kept; 1 when not slow */
    double packet_error_rate; /* < 0: the link model's */
} TopoBundleFault;

void topo_faults_bundle(const TopoFaults *faults, uint32_t gpu, uint32_t plane, uint32_t peer,
                        uint32_t n_links, TopoBundleFault *out);

/* One line for reports: what is down, slow or noisy, "on every node".
 * system (may be NULL) adds the bundles' link counts. */
char *topo_faults_describe(const TopoFaults *faults, const HwSystem *system);
