/* SPDX-License-Identifier: Apache-2.0 */
/* A switch model: an NVSwitch generation or an InfiniBand/Ethernet fabric
 * switch, loaded from models/switch/NAME.ini (group [switch]). Description
 * only: no behaviour.
 */
#pragma once

#include <glib.h>
#include <stdbool.h>
#include <stdint.h>

#include "hw/hw-keys.h"
#include "hw/hw-link.h"


typedef enum HwSwitchKind {
    HW_SWITCH_NVSWITCH,
    HW_SWITCH_NETWORK, /* InfiniBand or Ethernet leaf/spine switch */
} HwSwitchKind;

typedef struct HwSwitch {
    char *name; /* "NVSwitch gen 3" */
    HwSwitchKind kind;
    uint64_t generation;
    uint64_t n_ports;
    char *link_model;           /* name of the port's link model, such as nvlink4 */
    HwLink *link;               /* that model, loaded with the switch */
    uint64_t latency_ps;        /* port to port, head of packet in to head out */
    uint64_t port_buffer_bytes; /* input buffer per port (shared by its virtual output queues) */
    bool nvls;                  /* multicast and in-switch reduction (NVLink SHARP) */
    uint64_t nvls_bytes_per_s;  /* reduction throughput per port, 0 without nvls */
    uint64_t sharp_version;     /* in-network reduction of an InfiniBand switch (SHARP), 0: none */
    uint64_t sharp_bytes_per_s; /* its reduction throughput per port, 0 without SHARP */
} HwSwitch;

/* The first SHARP generation NCCL's CollNet runs on: its SHARP plugin
 * needs "NVIDIA Quantum HDR switch and above" (SHARPv2, streaming
 * aggregation; NVIDIA SHARP Rev 3.9.1 LTS, "Using NVIDIA SHARP with NVIDIA
 * NCCL"). Switch-IB 2's SHARPv1 aggregates small (low-latency) messages
 * only. */
#define HW_SWITCH_COLLNET_SHARP 2

/* Loads and checks a switch model and its port link model (found as
 * models_dir/link/LINK.ini); NULL and error on failure. */
HwSwitch *hw_switch_load(const char *path, const char *models_dir, GError **error);
/* The same from the text of a switch file (length bytes; (gsize)-1: up to
 * its NUL); path names it in messages. */
HwSwitch *hw_switch_load_data(const char *data, gsize length, const char *path,
                              const char *models_dir, GError **error);

void hw_switch_free(HwSwitch *sw);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(HwSwitch, hw_switch_free)

/* A switch model's key table (for listings and tests). */
extern const HwKeyTable hw_switch_key_table;
