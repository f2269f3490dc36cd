/* SPDX-License-Identifier: Apache-2.0 */
/* Where a job's GPUs sit: on hosts (what schedulers and nccl-tests call a
 * node: a DGX box, an NVL72 compute tray of 4 GPUs) and on NVLink domains
 * (a DGX box, a rack of 18 trays or a partition of it). A system model is
 * one domain of system->n_hosts hosts; a job takes gpus_per_host GPUs of
 * each of hosts_per_domain hosts of each of n_domains domains, all alike,
 * unless the job lists each domain's hosts (a rack of 18 trays and one of
 * 14).
 * One NVLink domain is one NCCL node, as NCCL counts nodes on multi-node
 * NVLink (its ranks form one clique: nNodes is the count of distinct
 * first ring ranks of the fused topology, init.cc of NCCL 2.30), so a
 * collective runs NVLS or rings through a domain and ring, tree or
 * NVLS-tree between domains over the NICs.
 * Description only.
 */
#pragma once

#include <glib.h>
#include <stdbool.h>
#include <stdint.h>

#include "hw/hw-system.h"

/* The most GPUs a job may take, so that counts stay in 32 bits. */
#define TOPO_PLACE_MAX_GPUS (UINT32_C(1) << 20)

/* What a job states; 0 (NULL) where it is silent. */
typedef struct TopoPlaceAsk {
    uint32_t n_gpus;         /* ranks in all; 0: the hosts' GPUs, else the domains' */
    uint32_t n_hosts;        /* nodes as the scheduler counts them */
    uint32_t gpus_per_host;  /* the first that many GPUs of each host */
    uint32_t n_domains;      /* NVLink domains the hosts spread over */
    const uint32_t *devices; /* a host's GPUs in rank order (CUDA_VISIBLE_DEVICES) */
    uint32_t n_devices;
    const uint32_t *domain_hosts; /* the hosts of each domain, in order (n_domains of them) */
} TopoPlaceAsk;

/* The field of an ask a placement error is about. */
typedef enum TopoPlaceField {
    TOPO_PLACE_GPUS,
    TOPO_PLACE_HOSTS,
    TOPO_PLACE_GPUS_PER_HOST,
    TOPO_PLACE_DOMAINS,
    TOPO_PLACE_DEVICES,
} TopoPlaceField;

typedef struct TopoPlace {
    uint32_t n_gpus;
    uint32_t n_hosts;       /* hosts the job spans, all domains */
    uint32_t gpus_per_host; /* the most on one host */
    uint32_t n_domains;
    uint32_t hosts_per_domain; /* of the system's system->n_hosts; the most where they differ */
    uint32_t per_domain;       /* ranks a domain (the most): local's length */
    uint32_t *local;           /* [per_domain] GPU (domain-local index) of each rank of a domain */
    uint32_t *domain_ranks;    /* [n_domains] ranks of each domain, the first of local; NULL when
                                  every domain has per_domain */
    bool hosts_filled;         /* hosts unstated: filled in order */
    bool domains_spread;       /* domains unstated: the fewest that hold the hosts, evenly */
} TopoPlace;

/* Places ask on system: the domain-local GPUs of each domain's ranks,
 * rank d * per_domain + i of domain d on local[i] (where domains differ,
 * domain d's ranks follow the ranks of the domains before it and take the
 * first domain_ranks[d] of local). Unstated hosts fill in order (one
 * domain's GPUs from GPU 0 when they fit one, else whole hosts); unstated
 * domains are the fewest that hold the hosts, as many hosts in each.
 * False, *bad the field and an error saying what fits, when the GPUs do
 * not split over the hosts, a host is asked for more GPUs than it has, the
 * hosts do not split evenly over the domains counted (list each domain's
 * hosts for domains that differ), the listed hosts disagree with the
 * hosts stated, or a domain is asked for more hosts than it has. */
bool topo_place(const HwSystem *system, const TopoPlaceAsk *ask, TopoPlace *out,
                TopoPlaceField *bad, GError **error);
void topo_place_clear(TopoPlace *place);
G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC(TopoPlace, topo_place_clear)

/* The hosts of each NVLink domain from text such as "18,14" or "18+14"
 * (whitespace around each allowed), each 1 to max, into a new *hosts of
 * *n: true. False when text is no list (no ',' or '+'), or, with *hosts
 * NULL, when an item is not such a number. */
bool topo_place_parse_domain_hosts(const char *text, uint32_t max, uint32_t **hosts, uint32_t *n);

/* The ranks of domain d. */
uint32_t topo_place_domain_ranks(const TopoPlace *place, uint32_t d);

/* The system's GPUs a host (1 where it has no hosts). */
uint32_t topo_place_host_gpus(const HwSystem *system);
