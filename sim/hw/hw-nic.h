/* SPDX-License-Identifier: Apache-2.0 */
/* A NIC model: a network adapter (ConnectX-4 ... ConnectX-8, AWS EFA),
 * loaded from models/nic/NAME.ini (group [nic]). Description only.
 */
#pragma once

#include <glib.h>
#include <stdbool.h>
#include <stdint.h>

#include "hw/hw-keys.h"
#include "hw/hw-link.h"


typedef struct HwNic {
    char *name;            /* "ConnectX-7 NDR" */
    char *port_link_model; /* network link model of its port, such as ib-ndr */
    HwLink *port_link;     /* that model, loaded with the NIC */
    uint64_t pcie_generation;
    uint64_t pcie_lanes;
    uint64_t latency_ps; /* adapter processing, each way (send side + receive side) */
    char *transports;    /* the transport ids it carries, "ib-verbs, rocev2"; the first its default */
} HwNic;

/* Whether nic carries transport id (one of its transports). */
bool hw_nic_carries(const HwNic *nic, const char *id);
/* The NIC's first transport id (newly allocated). */
char *hw_nic_default_transport(const HwNic *nic);

/* Loads and checks a NIC model and its port link model (models_dir/link/);
 * NULL and error on failure. */
HwNic *hw_nic_load(const char *path, const char *models_dir, GError **error);
/* The same from the text of a NIC file (length bytes; (gsize)-1: up to its
 * NUL); path names it in messages. */
HwNic *hw_nic_load_data(const char *data, gsize length, const char *path, const char *models_dir,
                        GError **error);

void hw_nic_free(HwNic *nic);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(HwNic, hw_nic_free)

/* A NIC model's key table (for listings and tests). */
extern const HwKeyTable hw_nic_key_table;
