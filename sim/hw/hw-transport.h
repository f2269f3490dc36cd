/* SPDX-License-Identifier: Apache-2.0 */
/* A scale-out transport: the software path NCCL's network plugin drives
 * between hosts (InfiniBand verbs, RoCEv2, EFA's SRD through aws-ofi-nccl,
 * GPUDirect-TCPXO), loaded from models/transport/ID.ini (group
 * [transport]). A NIC model lists the transports it carries; a system
 * names one ([network] transport, default the NIC's first).
 *
 *   step_latency    what one message of a step between hosts costs on
 *                   each side beyond the adapter's own processing: the
 *                   transport's posting and completion path (0 for RDMA
 *                   verbs, whose NIC does the work)
 *   plugin_latency  the latency the plugin reports to NCCL for a device
 *                   (ncclNetProperties' latency), which NCCL's tuner adds
 *                   to every step between nodes; a system may state its
 *                   platform's own ([network] net_latency)
 *
 * Description only.
 */
#pragma once

#include <glib.h>
#include <stdint.h>

#include "hw/hw-keys.h"

typedef struct HwTransport {
    char *name;                 /* "InfiniBand verbs (NCCL's net_ib)" */
    uint64_t step_latency_ps;   /* each side of a message between hosts */
    uint64_t plugin_latency_ps; /* reported to NCCL's tuner */
} HwTransport;

/* Loads and checks a transport model; NULL and error ("PATH: [transport]
 * key: ...") on failure. */
HwTransport *hw_transport_load(const char *path, GError **error);
/* The same from the text of a transport file (length bytes; (gsize)-1: up
 * to its NUL); path names it in messages. */
HwTransport *hw_transport_load_data(const char *data, gsize length, const char *path,
                                    GError **error);

void hw_transport_free(HwTransport *transport);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(HwTransport, hw_transport_free)

/* A transport model's key table (for listings and tests). */
extern const HwKeyTable hw_transport_key_table;
